"""Layouts of the card a program's arguments name (the spec's layout module).

Nocs: the cores' NoC coordinates of an open device, before any load: grid;
noc_xy[(x, y)], the translated NoC address the dispatcher's core table holds;
noc0[(x, y)], the NoC0 coordinates (the same on tessel's card, which has no
coordinate translation); words, the translated addresses as x | y << 16 in
core order.
"""

__all__ = ["Nocs"]


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

    def __repr__(self):
        return f"Nocs(grid={self.grid})"
