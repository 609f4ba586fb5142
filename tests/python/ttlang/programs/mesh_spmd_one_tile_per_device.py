# SPMD over a mesh where only per-device execution gives the answer: x is
# split with ShardTensorToMesh(dim=0) into one 32x32 tile per device, in L1;
# the operation runs on a 1x1 grid and touches tile (0, 0) only, so every
# device must run it on its own shard: y_i = x_i * 2 + 1 on each device, and
# ConcatMeshToTensor must give every tile computed. Needs at least two devices.
# expect: pass
# needs: torch
# needs: mesh
# sim: no (tt-lang-sim 1.1.6 runs an operation once over the whole tensor, so
#   only tile 0 would be written; it also lacks ttnn.get_num_devices)
import torch
import ttnn

import ttl


@ttl.operation(grid=(1, 1))
def scale_shift(x: ttnn.Tensor, y: ttnn.Tensor):
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        with x_dfb.wait() as x_blk, y_dfb.reserve() as y_blk:
            y_blk.store(x_blk * ttl.block.fill(2.0, shape=(1, 1)) + ttl.block.fill(1.0, shape=(1, 1)))

    @ttl.datamovement()
    def read():
        with x_dfb.reserve() as blk:
            ttl.copy(x[0, 0], blk).wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as blk:
            ttl.copy(blk, y[0, 0]).wait()


torch.manual_seed(103)
n_devices = ttnn.get_num_devices()
assert n_devices >= 2, f"needs at least 2 devices, found {n_devices}"
ttnn.set_fabric_config(ttnn.FabricConfig.FABRIC_1D)
mesh_device = ttnn.open_mesh_device(ttnn.MeshShape(1, n_devices))
try:
    x = torch.randn((32 * n_devices, 32), dtype=torch.float32)

    def to_mesh(t):
        return ttnn.from_torch(
            t, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=mesh_device,
            memory_config=ttnn.L1_MEMORY_CONFIG, mesh_mapper=ttnn.ShardTensorToMesh(mesh_device, dim=0),
        )

    y = to_mesh(torch.zeros_like(x))
    scale_shift(to_mesh(x), y)
    result = ttnn.to_torch(y, mesh_composer=ttnn.ConcatMeshToTensor(mesh_device, dim=0)).float()
    assert result.shape == x.shape, f"gathered shape {tuple(result.shape)}"
    for i in range(n_devices):
        rows = slice(32 * i, 32 * (i + 1))
        assert torch.allclose(result[rows], x[rows] * 2 + 1, rtol=1e-5, atol=1e-5), f"device {i}'s tile does not match"
finally:
    ttnn.close_mesh_device(mesh_device)
    ttnn.set_fabric_config(ttnn.FabricConfig.DISABLED)
