# ttl.node(dims=1|2|3) and ttl.grid_size(dims=1|2|3) on a fixed 2x3 grid. Each
# node writes eight one-tile constants (fill with values computed from its
# coordinates) to tile row node(dims=1) of y: its linear index, its 2-D and
# 3-D coordinates and the grid sizes. The host checks that dims=1 flattens the
# 2-D coordinate (n = x * rows + y), that dims=3 pads with 0 / 1, and that every
# node appears exactly once.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl

FIELDS = 8


@ttl.operation(grid=(2, 3))
def coordinates(y: ttnn.Tensor):
    out_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        n = ttl.node(dims=1)
        x2, y2 = ttl.node(dims=2)
        x3, y3, z3 = ttl.node(dims=3)
        size = ttl.grid_size(dims=1)
        gx, gy = ttl.grid_size(dims=2)
        gx3, gy3, gz3 = ttl.grid_size(dims=3)
        with out_dfb.reserve() as blk:
            blk.store(ttl.block.fill(n, shape=blk.shape))
        with out_dfb.reserve() as blk:
            blk.store(ttl.block.fill(x2, shape=blk.shape))
        with out_dfb.reserve() as blk:
            blk.store(ttl.block.fill(y2, shape=blk.shape))
        with out_dfb.reserve() as blk:
            blk.store(ttl.block.fill(100 * x3 + 10 * y3 + z3, shape=blk.shape))
        with out_dfb.reserve() as blk:
            blk.store(ttl.block.fill(size, shape=blk.shape))
        with out_dfb.reserve() as blk:
            blk.store(ttl.block.fill(gx, shape=blk.shape))
        with out_dfb.reserve() as blk:
            blk.store(ttl.block.fill(gy, shape=blk.shape))
        with out_dfb.reserve() as blk:
            blk.store(ttl.block.fill(100 * gx3 + 10 * gy3 + gz3, shape=blk.shape))

    @ttl.datamovement()
    def read():
        pass

    @ttl.datamovement()
    def write():
        n = ttl.node(dims=1)
        for field in range(FIELDS):
            with out_dfb.wait() as blk:
                ttl.copy(blk, y[n, field]).wait()


device = ttnn.open_device(device_id=0)
try:
    nodes = 6
    y = ttnn.from_torch(
        torch.full((nodes * 32, FIELDS * 32), -1.0, dtype=torch.float32), dtype=ttnn.float32,
        layout=ttnn.TILE_LAYOUT, device=device, memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )
    coordinates(y)
    tiles = ttnn.to_torch(y).float().reshape(nodes, 32, FIELDS, 32)
    values = tiles[:, 0, :, 0]
    assert torch.all(tiles == values[:, None, :, None]), "a tile is not one constant"
    seen = set()
    for row in range(nodes):
        n, x, yy, xyz, size, gx, gy, gxyz = (int(v) for v in values[row].tolist())
        assert n == row, f"node(dims=1) = {n} wrote tile row {row}"
        assert (gx, gy) == (2, 3) and size == 6 and gxyz == 231, f"grid sizes {gx, gy, size, gxyz}"
        assert n == x * gy + yy, f"node(dims=1) = {n} does not flatten node(dims=2) = {(x, yy)}"
        assert xyz == 100 * x + 10 * yy, f"node(dims=3) for {(x, yy)} encodes {xyz}"
        seen.add((x, yy))
    assert len(seen) == nodes, f"coordinates {sorted(seen)}"
finally:
    ttnn.close_device(device)
