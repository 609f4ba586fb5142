"""Layouts of the card a program's arguments name (the spec's layout module).

Nocs: the cores' NoC coordinates of an open device, before any load: grid;
noc_xy[(x, y)], the translated NoC address the dispatcher's core table holds;
noc0[(x, y)], the NoC0 coordinates (the same on tessel's card, which has no
coordinate translation); words, the translated addresses as x | y << 16 in
core order; panels, the rectangles of logical cores whose NoC columns are
contiguous (tessel's worker columns are: one panel, the whole grid).
"""

__all__ = ["Nocs", "broadcast_args"]


class Nocs:
    def __init__(self, device, grid):
        self.grid = tuple(grid)
        self.noc_xy = {}
        for y in range(grid[1]):
            for x in range(grid[0]):
                c = device.worker_core_from_logical_core((x, y))
                self.noc_xy[(x, y)] = (c.x, c.y)
        self.noc0 = dict(self.noc_xy)
        self.words = [nx | ny << 16 for (nx, ny) in (self.noc_xy[(x, y)] for y in range(grid[1])
                                                      for x in range(grid[0]))]
        self.panels = []
        start = 0
        for x in range(1, grid[0] + 1):
            if x == grid[0] or self.noc_xy[(x, 0)][0] != self.noc_xy[(x - 1, 0)][0] + 1:
                self.panels.append(((start, 0), (x - 1, grid[1] - 1)))
                start = x

    def __repr__(self):
        return f"Nocs(grid={self.grid})"


def broadcast_args(nocs, rect, root=None):
    """The KM_BROADCAST_ARGS words of a broadcast (tessel/persistent.h,
    persistent::Broadcast) from `root` (default: the rectangle's first core)
    to the rectangle rect = (x, y, columns, rows) of logical cores: its NoC
    corners (x | y << 16), its receivers (its cores but the root), the root's
    NoC coordinates. `nocs` is session.nocs()."""
    if not isinstance(nocs, Nocs):
        raise TypeError(f"broadcast_args: nocs must be session.nocs(), got {type(nocs).__name__}")
    if not isinstance(rect, (tuple, list)) or len(rect) != 4 or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in rect):
        raise TypeError(f"broadcast_args: rect must be (x, y, columns, rows) integers, got {rect!r}")
    x, y, w, h = rect
    gx, gy = nocs.grid
    if x < 0 or y < 0 or w < 1 or h < 1 or x + w > gx or y + h > gy:
        raise ValueError(f"broadcast_args: rect {tuple(rect)} does not lie inside the {gx}x{gy} grid")
    root = (x, y) if root is None else tuple(root)
    if root not in nocs.noc_xy:
        raise ValueError(f"broadcast_args: root {root} is outside the {gx}x{gy} grid")
    inside = x <= root[0] < x + w and y <= root[1] < y + h

    def word(core):
        nx, ny = nocs.noc_xy[core]
        return nx | ny << 16

    return [word((x, y)), word((x + w - 1, y + h - 1)), w * h - (1 if inside else 0), word(root)]
