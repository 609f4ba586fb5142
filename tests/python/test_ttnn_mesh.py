"""tessel.ttnn's mesh devices: N tessel devices, shards placed per device,
concatenated back, all_reduce and relu on mesh tensors."""

import numpy as np
import pytest

import tessel.ttnn as ttnn
from tessel.ttnn import creation
from tessel.ttl.tensor import as_tensor


@pytest.fixture(autouse=True)
def _numpy_results(monkeypatch):
    """to_torch's numpy form (what it returns without torch), whether or not torch is installed."""
    monkeypatch.setattr(creation, "_torch", lambda: None)


@pytest.fixture
def mesh():
    ttnn.set_fabric_config(ttnn.FabricConfig.FABRIC_1D)
    m = ttnn.open_mesh_device(ttnn.MeshShape(1, 4))
    yield m
    ttnn.close_mesh_device(m)
    ttnn.set_fabric_config(ttnn.FabricConfig.DISABLED)


def _values(shape, seed):
    return np.random.default_rng(seed).uniform(-2, 2, shape).astype(np.float32)


def test_device_count_defaults_to_eight_and_is_settable(monkeypatch):
    monkeypatch.delenv("TESSEL_MESH", raising=False)
    assert ttnn.GetNumAvailableDevices() == 8 == ttnn.get_num_devices()
    assert ttnn.mesh.system_mesh_shape() == (1, 8)
    monkeypatch.setenv("TESSEL_MESH", "1x2")  # the machine's mesh, as the compat SystemMesh reads it
    assert ttnn.get_num_devices() == 2
    with pytest.raises(ValueError, match=r"ttnn.open_mesh_device: a 1x4 mesh needs 4 devices, the machine has 2"):
        ttnn.open_mesh_device(ttnn.MeshShape(1, 4))
    monkeypatch.setenv("TESSEL_MESH", "2x3")
    assert ttnn.get_num_devices() == 6
    ttnn.set_num_devices(16)
    try:
        assert ttnn.get_num_devices() == 16 and ttnn.mesh.system_mesh_shape() == (1, 16)
    finally:
        ttnn.set_num_devices(None)
    monkeypatch.setenv("TESSEL_MESH", "lots")
    with pytest.raises(ValueError, match=r"TESSEL_MESH='lots' is not a mesh shape; give rows x columns, e.g. "
                                         r"TESSEL_MESH=2x4 \(at most 64 devices\)"):
        ttnn.get_num_devices()


def test_a_galaxy_of_full_grids_does_not_fit_one_process_and_the_error_says_what_does(monkeypatch):
    monkeypatch.setenv("TESSEL_MESH", "8x4")
    from tessel.ttl.settings import settings
    monkeypatch.setattr(settings, "grid", None, raising=False)
    with pytest.raises(ttnn.mesh.OutOfMemoryError, match=r"ttnn.open_mesh_device: a 8x4 mesh of 32 devices does not "
                       r"fit in one process .*split over MPI ranks \(docs/multichip.md\)"):
        ttnn.open_mesh_device(ttnn.MeshShape(8, 4))
    # The devices opened before the failure were closed: as many open again
    # (how many full grids fit depends on what else the process maps below 4 GiB).
    m = ttnn.open_mesh_device(ttnn.MeshShape(1, 2))
    ttnn.close_mesh_device(m)


def test_open_mesh_device_without_a_shape_opens_the_machine(monkeypatch):
    monkeypatch.setenv("TESSEL_MESH", "2x1")
    m = ttnn.open_mesh_device()
    try:
        assert m.shape == (2, 1) and m.get_num_devices() == 2
    finally:
        ttnn.close_mesh_device(m)


def test_mesh_is_one_tessel_device_per_position(mesh):
    assert mesh.get_num_devices() == 4 and mesh.shape == (1, 4)
    assert len({id(d.tessel_device) for d in mesh.devices}) == 4
    assert mesh.fabric_config == ttnn.FabricConfig.FABRIC_1D == ttnn.fabric_config()
    assert mesh.compute_with_storage_grid_size() == mesh.devices[0].compute_with_storage_grid_size()


def test_shard_and_concat(mesh):
    a = _values((4 * 32, 64), 1)
    t = ttnn.from_torch(a, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=mesh,
                        memory_config=ttnn.DRAM_MEMORY_CONFIG, mesh_mapper=ttnn.ShardTensorToMesh(mesh, dim=0))
    assert t.shape == (32, 64)  # each device's shard, as ttnn reports it
    assert len(t._shards) == 4
    for i, shard in enumerate(t._shards):
        assert shard.device() is mesh.devices[i]
        np.testing.assert_array_equal(as_tensor(shard, "op: a").to_numpy(), a[32 * i:32 * (i + 1)])
    np.testing.assert_array_equal(ttnn.to_torch(t, mesh_composer=ttnn.ConcatMeshToTensor(mesh, dim=0)), a)
    cols = ttnn.from_torch(a, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=mesh,
                           mesh_mapper=ttnn.ShardTensorToMesh(mesh, dim=-1))
    assert cols.shape == (128, 16)


def test_replicate(mesh):
    a = _values((32, 32), 2)
    t = ttnn.from_torch(a, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=mesh,
                        mesh_mapper=ttnn.ReplicateTensorToMesh(mesh))
    out = ttnn.to_torch(t, mesh_composer=ttnn.ConcatMeshToTensor(mesh, dim=0))
    np.testing.assert_array_equal(out, np.concatenate([a] * 4))


def test_without_a_mapper_a_mesh_tensor_is_replicated(mesh):
    a = _values((32, 64), 5)
    for t in (ttnn.from_torch(a, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=mesh),
              ttnn.full((32, 64), 1.5, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=mesh),
              ttnn.empty((32, 64), ttnn.float32, ttnn.TILE_LAYOUT, mesh)):
        assert t._mesh is mesh and [s.device() for s in t._shards] == mesh.devices and t.shape == (32, 64)
    out = ttnn.to_torch(ttnn.from_torch(a, dtype=ttnn.float32, device=mesh),
                        mesh_composer=ttnn.ConcatMeshToTensor(mesh, dim=0))
    np.testing.assert_array_equal(out, np.concatenate([a] * 4))


def test_all_reduce_then_relu_is_replicated(mesh):
    """The last steps of the multi-device matmul tutorial (shard K, all-reduce)."""
    partials = _values((4 * 64, 32), 3)
    t = ttnn.from_torch(partials, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=mesh,
                        mesh_mapper=ttnn.ShardTensorToMesh(mesh, dim=0))
    y = ttnn.relu(ttnn.all_reduce(t))
    assert y._mesh is mesh and y.shape == (64, 32)
    got = ttnn.to_torch(y, mesh_composer=ttnn.ConcatMeshToTensor(mesh, dim=0))
    expected = np.maximum(partials.reshape(4, 64, 32).astype(np.float64).sum(axis=0), 0)
    for i in range(4):
        np.testing.assert_allclose(got[64 * i:64 * (i + 1)], expected, rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(got[64 * i:64 * (i + 1)], got[:64])  # the same bits everywhere


def test_all_reduce_over_one_axis():
    ttnn.set_fabric_config(ttnn.FabricConfig.FABRIC_2D)
    m = ttnn.open_mesh_device(ttnn.MeshShape(2, 2))
    ttnn.set_fabric_config(ttnn.FabricConfig.DISABLED)
    assert m.fabric_config == ttnn.FabricConfig.FABRIC_2D  # the config the mesh was opened with
    try:
        a = np.arange(4, dtype=np.float32).repeat(32 * 32).reshape(4 * 32, 32)
        t = ttnn.from_torch(a, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=m,
                            mesh_mapper=ttnn.ShardTensorToMesh(m, dim=0))
        rows = ttnn.to_torch(ttnn.all_reduce(t, cluster_axis=1), mesh_composer=ttnn.ConcatMeshToTensor(m, dim=0))
        assert [rows[32 * i, 0] for i in range(4)] == [1.0, 1.0, 5.0, 5.0]  # devices (0, 1) and (2, 3)
        cols = ttnn.to_torch(ttnn.all_reduce(t, cluster_axis=0), mesh_composer=ttnn.ConcatMeshToTensor(m, dim=0))
        assert [cols[32 * i, 0] for i in range(4)] == [2.0, 4.0, 2.0, 4.0]  # devices (0, 2) and (1, 3)
    finally:
        ttnn.close_device(m)
    assert not m.is_open


def test_each_device_of_a_mesh_writes_its_own_trace(tmp_path):
    from tessel.ttl.settings import settings

    settings.trace = str(tmp_path / "run.json")
    try:
        m = ttnn.open_mesh_device(ttnn.MeshShape(1, 2))
    finally:
        settings.trace = None
    t = ttnn.from_torch(np.ones((64, 32), np.float32), layout=ttnn.TILE_LAYOUT, device=m,
                        mesh_mapper=ttnn.ShardTensorToMesh(m, dim=0))
    ttnn.relu(t)
    assert [d.tessel_device.trace_path for d in m.devices] == [str(tmp_path / "run.device0.json"),
                                                              str(tmp_path / "run.device1.json")]
    ttnn.close_mesh_device(m)
    assert (tmp_path / "run.device0.json").exists() and (tmp_path / "run.device1.json").exists()
    assert not (tmp_path / "run.json").exists()


def test_mesh_errors(mesh):
    a = _values((90, 32), 4)
    with pytest.raises(ValueError, match=r"ttnn.from_torch: ShardTensorToMesh splits dimension 0 \(90\) into 4 equal "
                                         r"shards, one per device: it must be a multiple of 4"):
        ttnn.from_torch(a, layout=ttnn.TILE_LAYOUT, device=mesh, mesh_mapper=ttnn.ShardTensorToMesh(mesh, dim=0))
    t = ttnn.from_torch(a, layout=ttnn.TILE_LAYOUT, device=mesh, mesh_mapper=ttnn.ReplicateTensorToMesh(mesh))
    with pytest.raises(ValueError, match=r"ttnn.to_torch: the tensor is spread over 4 devices: pass "
                                         r"mesh_composer=ttnn.ConcatMeshToTensor\(mesh_device, dim=...\)"):
        ttnn.to_torch(t)
    with pytest.raises(ValueError, match=r"ttnn.to_torch: ConcatMeshToTensor dim=2 is not a dimension of the 2-D "
                                         r"shards"):
        ttnn.to_torch(t, mesh_composer=ttnn.ConcatMeshToTensor(mesh, dim=2))
    other = ttnn.open_mesh_device(ttnn.MeshShape(1, 1))
    try:
        with pytest.raises(ValueError, match=r"ttnn.to_torch: mesh_composer was made for another mesh device than the "
                                             r"tensor's"):
            ttnn.to_torch(t, mesh_composer=ttnn.ConcatMeshToTensor(other, dim=0))
    finally:
        ttnn.close_mesh_device(other)
    with pytest.raises(TypeError, match=r"op: a is a mesh tensor over 4 devices: an operation takes one device tensor"):
        as_tensor(t, "op: a")
    with pytest.raises(TypeError, match=r"ttnn.all_reduce: input_tensor must be a mesh tensor"):
        ttnn.all_reduce(t._shards[0])
    with pytest.raises(TypeError, match=r"ttnn.set_fabric_config: config must be a ttnn.FabricConfig, got '1D'"):
        ttnn.set_fabric_config("1D")
    with pytest.raises(TypeError, match=r"ttnn.ShardTensorToMesh: mesh_device must be a ttnn.MeshDevice, got None"):
        ttnn.ShardTensorToMesh(None, dim=0)


def test_all_reduce_without_a_fabric_is_a_warning_or_under_strict_an_error(monkeypatch):
    ttnn.set_fabric_config(ttnn.FabricConfig.DISABLED)
    m = ttnn.open_mesh_device(ttnn.MeshShape(1, 2))
    try:
        t = ttnn.from_torch(np.ones((64, 32), np.float32), dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=m,
                            mesh_mapper=ttnn.ShardTensorToMesh(m, dim=0))
        text = (r"ttnn.all_reduce: the mesh device was opened with FabricConfig.DISABLED, and ttnn's collectives move "
                r"data over the fabric: call ttnn.set_fabric_config\(ttnn.FabricConfig.FABRIC_1D\) before "
                r"ttnn.open_mesh_device")
        monkeypatch.delenv("TESSEL_STRICT", raising=False)
        with pytest.warns(ttnn.mesh.FabricWarning, match=text):
            y = ttnn.all_reduce(t)
        assert ttnn.to_torch(y, mesh_composer=ttnn.ConcatMeshToTensor(m, dim=0)).max() == 2.0
        monkeypatch.setenv("TESSEL_STRICT", "1")
        with pytest.raises(ValueError, match=text + r" \(TESSEL_STRICT=1 makes this an error\)"):
            ttnn.all_reduce(t)
    finally:
        ttnn.close_mesh_device(m)
