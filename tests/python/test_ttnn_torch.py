"""tessel.ttnn with torch tensors: from_torch takes them, to_torch returns
them in the tensor's type (bfloat16 as torch.bfloat16), as TT-Lang's
tutorials use them."""

import numpy as np
import pytest

import tessel.ttnn as ttnn

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def device():
    d = ttnn.open_device(device_id=0)
    yield d
    ttnn.close_device(d)


def test_bfloat16_round_trip_is_exact(device):
    torch.manual_seed(42)
    a = torch.rand((64, 96), dtype=torch.bfloat16)
    t = ttnn.from_torch(a, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device,
                        memory_config=ttnn.DRAM_MEMORY_CONFIG)
    assert t.dtype == ttnn.bfloat16
    out = ttnn.to_torch(t)
    assert isinstance(out, torch.Tensor) and out.dtype == torch.bfloat16
    assert torch.equal(out, a)


def test_types_follow_the_tensor(device):
    assert ttnn.from_torch(torch.zeros(2, 2, dtype=torch.float32)).dtype == ttnn.float32
    assert ttnn.from_torch(torch.zeros(2, 2, dtype=torch.bfloat16)).dtype == ttnn.bfloat16
    assert ttnn.from_torch(torch.zeros(2, 2, dtype=torch.int32)).dtype == ttnn.int32
    t = ttnn.from_torch(torch.arange(6, dtype=torch.int32).reshape(2, 3), device=device)
    out = ttnn.to_torch(t)
    assert out.dtype == torch.int32 and torch.equal(out, torch.arange(6, dtype=torch.int32).reshape(2, 3))
    assert ttnn.to_torch(t, dtype=torch.float32).dtype == torch.float32


def test_elementwise_tutorial_baseline(device):
    """Step 0 of the elementwise tutorial at a smaller size: y = (a * b + c) * d."""
    torch.manual_seed(42)
    shape = (128, 128)
    a, b, c, d = (torch.rand(shape, dtype=torch.bfloat16) for _ in range(4))
    expected = (a * b + c) * d
    on = [ttnn.from_torch(x, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device,
                          memory_config=ttnn.DRAM_MEMORY_CONFIG) for x in (a, b, c, d)]
    y = ttnn.to_torch(ttnn.multiply(ttnn.add(ttnn.multiply(on[0], on[1]), on[2]), on[3]))
    assert torch.allclose(y, expected, rtol=1e-2, atol=1e-2)


def test_matmul_tutorial_baseline(device):
    torch.manual_seed(42)
    a, b, c = torch.randn((64, 128), dtype=torch.bfloat16), torch.randn((128, 96), dtype=torch.bfloat16), \
        torch.randn((64, 96), dtype=torch.bfloat16)
    expected = torch.relu(a.float() @ b.float() + c.float()).to(torch.bfloat16)
    on = [ttnn.from_torch(x, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device) for x in (a, b, c)]
    y = ttnn.to_torch(ttnn.relu(ttnn.add(ttnn.matmul(on[0], on[1]), on[2])))
    pcc = torch.corrcoef(torch.stack([y.flatten().float(), expected.flatten().float()]))[0, 1].item()
    assert pcc > 0.99


def test_mesh_shards_and_concat_with_torch():
    mesh = ttnn.open_mesh_device(ttnn.MeshShape(1, 2))
    try:
        a = torch.randn((64, 32), dtype=torch.bfloat16)
        t = ttnn.from_torch(a, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=mesh,
                            mesh_mapper=ttnn.ShardTensorToMesh(mesh, dim=0))
        out = ttnn.to_torch(t, mesh_composer=ttnn.ConcatMeshToTensor(mesh, dim=0))
        assert out.dtype == torch.bfloat16 and torch.equal(out, a)
    finally:
        ttnn.close_device(mesh)


def test_numpy_and_torch_inputs_agree(device):
    a = np.linspace(-1, 1, 32 * 32, dtype=np.float32).reshape(32, 32)
    x = ttnn.to_torch(ttnn.from_torch(a, dtype=ttnn.bfloat16, device=device))
    y = ttnn.to_torch(ttnn.from_torch(torch.from_numpy(a), dtype=ttnn.bfloat16, device=device))
    assert torch.equal(x, y)
