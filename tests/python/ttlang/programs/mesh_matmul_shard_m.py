# Multi-device SPMD matmul, sharded along M (the matmul tutorial's step 5,
# small): a, c and y are split by rows over a 1xN mesh with ShardTensorToMesh,
# b is replicated; every device runs the grid="full" matmul + bias + relu on
# its own rows and ConcatMeshToTensor gathers y.
# expect: pass
# needs: torch
# needs: mesh
import torch
import ttnn

import ttl


def from_torch(tensor, mesh_mapper):
    return ttnn.from_torch(
        tensor, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=mesh_device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG, mesh_mapper=mesh_mapper,
    )


TILE_SIZE = 32
M_TILES = 1
N_TILES = 1
K_TILES = 1


@ttl.operation(grid="full")
def matmul_bias_relu(a: ttnn.Tensor, b: ttnn.Tensor, c: ttnn.Tensor, y: ttnn.Tensor):
    m_blocks = a.shape[0] // TILE_SIZE // M_TILES
    n_blocks = b.shape[1] // TILE_SIZE // N_TILES
    k_blocks = a.shape[1] // TILE_SIZE // K_TILES
    grid_n, grid_m = ttl.grid_size(dims=2)
    m_per_node = -(-m_blocks // grid_m)
    n_per_node = -(-n_blocks // grid_n)
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(M_TILES, K_TILES), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(K_TILES, N_TILES), block_count=2)
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(M_TILES, N_TILES), block_count=2)
    acc_dfb = ttl.make_dataflow_buffer_like(y, shape=(M_TILES, N_TILES), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(M_TILES, N_TILES), block_count=2)

    @ttl.datamovement()
    def read():
        node_n, node_m = ttl.node(dims=2)
        for local_m in range(m_per_node):
            mb = node_m * m_per_node + local_m
            if mb < m_blocks:
                m0 = mb * M_TILES
                for local_n in range(n_per_node):
                    nb = node_n * n_per_node + local_n
                    if nb < n_blocks:
                        n0 = nb * N_TILES
                        with c_dfb.reserve() as c_blk:
                            ttl.copy(c[m0 : m0 + M_TILES, n0 : n0 + N_TILES], c_blk).wait()
                        for kb in range(k_blocks):
                            k0 = kb * K_TILES
                            with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
                                tx_a = ttl.copy(a[m0 : m0 + M_TILES, k0 : k0 + K_TILES], a_blk)
                                tx_b = ttl.copy(b[k0 : k0 + K_TILES, n0 : n0 + N_TILES], b_blk)
                                tx_a.wait()
                                tx_b.wait()

    @ttl.compute()
    def compute():
        node_n, node_m = ttl.node(dims=2)
        for local_m in range(m_per_node):
            mb = node_m * m_per_node + local_m
            if mb < m_blocks:
                for local_n in range(n_per_node):
                    nb = node_n * n_per_node + local_n
                    if nb < n_blocks:
                        with acc_dfb.reserve() as acc_blk:
                            acc_blk.store(ttl.block.fill(0, shape=acc_blk.shape))
                        for _ in range(k_blocks):
                            with (
                                a_dfb.wait() as a_blk,
                                b_dfb.wait() as b_blk,
                                acc_dfb.wait() as pre_acc_blk,
                            ):
                                with acc_dfb.reserve() as acc_blk:
                                    acc_blk.store(pre_acc_blk + a_blk @ b_blk)
                        with c_dfb.wait() as c_blk, acc_dfb.wait() as acc_blk:
                            with y_dfb.reserve() as y_blk:
                                y_blk.store(ttl.math.relu(c_blk + acc_blk))

    @ttl.datamovement()
    def write():
        node_n, node_m = ttl.node(dims=2)
        for local_m in range(m_per_node):
            mb = node_m * m_per_node + local_m
            if mb < m_blocks:
                m0 = mb * M_TILES
                for local_n in range(n_per_node):
                    nb = node_n * n_per_node + local_n
                    if nb < n_blocks:
                        n0 = nb * N_TILES
                        with y_dfb.wait() as y_blk:
                            ttl.copy(y_blk, y[m0 : m0 + M_TILES, n0 : n0 + N_TILES]).wait()


torch.manual_seed(100)
n_devices = ttnn.GetNumAvailableDevices()
assert n_devices > 0 and n_devices & (n_devices - 1) == 0, "the device count must be a power of 2"
ttnn.set_fabric_config(ttnn.FabricConfig.FABRIC_1D)
mesh_device = ttnn.open_mesh_device(ttnn.MeshShape(1, n_devices))
try:
    M, K, N = 64 * n_devices, 96, 64
    a = torch.randn((M, K), dtype=torch.bfloat16)
    b = torch.randn((K, N), dtype=torch.bfloat16)
    c = torch.randn((M, N), dtype=torch.bfloat16)
    expected = torch.relu(a.float() @ b.float() + c.float())
    a = from_torch(a, ttnn.ShardTensorToMesh(mesh_device, dim=0))
    b = from_torch(b, ttnn.ReplicateTensorToMesh(mesh_device))
    c = from_torch(c, ttnn.ShardTensorToMesh(mesh_device, dim=0))
    y = from_torch(torch.zeros((M, N), dtype=torch.bfloat16), ttnn.ShardTensorToMesh(mesh_device, dim=0))
    matmul_bias_relu(a, b, c, y)
    y = ttnn.to_torch(y, mesh_composer=ttnn.ConcatMeshToTensor(mesh_device, dim=0))
    pcc = torch.corrcoef(torch.stack([y.flatten().float(), expected.flatten().float()]))[0, 1].item()
    assert pcc > 0.999, f"PCC {pcc:.6f}"
finally:
    ttnn.close_device(mesh_device)
