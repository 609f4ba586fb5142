"""tessel.ttnn's devices and tensors: creation, conversion, layouts, memory
configs, against the values numpy holds."""

import numpy as np
import pytest

import tessel.ttnn as ttnn
from tessel.ttnn import creation
from tessel.ttl.tensor import as_tensor


@pytest.fixture(autouse=True)
def _numpy_results(monkeypatch):
    """to_torch's numpy form (what it returns without torch), whether or not torch is installed."""
    monkeypatch.setattr(creation, "_torch", lambda: None)


@pytest.fixture(scope="module")
def device():
    d = ttnn.open_device(device_id=0)
    yield d
    ttnn.close_device(d)


def _values(shape, seed=0, lo=-4.0, hi=4.0):
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(np.float32)


def _bf16(a):
    from tessel import formats

    return formats.bf16_values(formats.bf16_bits(a.astype(np.float32)))


def test_device_answers_what_programs_ask(device):
    assert device.arch() == ttnn.device.Arch.BLACKHOLE
    grid = device.compute_with_storage_grid_size()
    assert (grid.x, grid.y) == tuple(device.tessel_device.grid)
    stats = device.tessel_device.memory_statistics("l1")
    assert device.get_max_worker_l1_unreserved_size() == stats.end - stats.begin > 1_000_000
    assert device.core_grid == ttnn.CoreGrid(y=grid.y, x=grid.x)


@pytest.mark.parametrize("layout", [ttnn.TILE_LAYOUT, ttnn.ROW_MAJOR_LAYOUT], ids=["tile", "row_major"])
@pytest.mark.parametrize("dtype", [ttnn.bfloat16, ttnn.float32], ids=["bf16", "fp32"])
@pytest.mark.parametrize("config", [ttnn.DRAM_MEMORY_CONFIG, ttnn.L1_MEMORY_CONFIG], ids=["dram", "l1"])
def test_round_trip(device, layout, dtype, config):
    a = _values((2, 64, 96))
    t = ttnn.from_torch(a, dtype=dtype, layout=layout, device=device, memory_config=config)
    assert t.shape == (2, 64, 96) and t.shape[1] == 64 and t.dtype == dtype and t.layout == layout
    assert t.memory_config() == config and t.device() is device
    expected = _bf16(a) if dtype == ttnn.bfloat16 else a
    out = ttnn.to_torch(t)
    assert isinstance(out, np.ndarray) and out.dtype == np.float32
    np.testing.assert_array_equal(out, expected)
    assert as_tensor(t, "op: a") is t._ttl and t._ttl.tiled == (layout == ttnn.TILE_LAYOUT)


def test_tile_layout_pads_to_whole_tiles(device):
    a = _values((50, 70))
    t = ttnn.from_torch(a, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device)
    assert t.shape == (50, 70) and t.padded_shape == (64, 96)
    assert t._ttl.shape == (64, 96)
    np.testing.assert_array_equal(ttnn.to_torch(t), a)
    assert np.all(t._ttl.to_numpy()[50:, :] == 0) and np.all(t._ttl.to_numpy()[:, 70:] == 0)


def test_one_dimensional_tiled_tensor_is_one_row(device):
    a = np.arange(40, dtype=np.float32)
    t = ttnn.from_torch(a, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device)
    assert t.padded_shape == (32, 64)
    np.testing.assert_array_equal(ttnn.to_torch(t), a)


def test_row_major_is_one_row_per_page(device):
    t = ttnn.from_torch(_values((3, 5, 7)), dtype=ttnn.float32, device=device)
    assert t.layout == ttnn.ROW_MAJOR_LAYOUT  # from_torch's default, as in ttnn
    assert t._ttl.num_pages == 15 and t._ttl.page_size == 28


@pytest.mark.parametrize("dtype, np_type", [(ttnn.int32, np.int32), (ttnn.uint32, np.uint32),
                                            (ttnn.uint16, np.uint16), (ttnn.uint8, np.uint8)])
def test_integer_types_round_trip_exactly(device, dtype, np_type):
    a = (np.arange(64 * 32).reshape(64, 32) % 250).astype(np_type)
    for layout in (ttnn.ROW_MAJOR_LAYOUT, ttnn.TILE_LAYOUT):
        out = ttnn.to_torch(ttnn.from_torch(a, dtype=dtype, layout=layout, device=device))
        assert out.dtype == np_type
        np.testing.assert_array_equal(out, a)


def test_dtype_is_inferred_from_the_array(device):
    assert ttnn.from_torch(np.zeros((2, 2), np.float64), device=device).dtype == ttnn.float32
    assert ttnn.from_torch(np.zeros((2, 2), np.int32)).dtype == ttnn.int32
    assert ttnn.from_torch(np.zeros((2, 2), np.uint8)).dtype == ttnn.uint8


def test_block_float_lives_in_tiles(device):
    a = _values((32, 64))
    t = ttnn.from_torch(a, dtype=ttnn.bfloat8_b, layout=ttnn.TILE_LAYOUT, device=device)
    out = ttnn.to_torch(t)
    assert np.max(np.abs(out - a)) <= 4.0 * 2**-6
    with pytest.raises(ValueError, match=r"ttnn.from_torch: DataType.BFLOAT8_B is a block-float type and exists only "
                                         r"in tiles: use layout=ttnn.TILE_LAYOUT"):
        ttnn.from_torch(a, dtype=ttnn.bfloat8_b, device=device)


def test_host_tensors_and_moving_them(device):
    a = _values((32, 32))
    host = ttnn.from_torch(a, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT)
    assert host.device() is None and host.storage_type() == ttnn.StorageType.HOST
    np.testing.assert_array_equal(ttnn.to_torch(host), _bf16(a))
    with pytest.raises(TypeError, match=r"op: a is a host tensor: put it on a device first"):
        as_tensor(host, "op: a")
    on = ttnn.to_device(host, device, memory_config=ttnn.L1_MEMORY_CONFIG)
    assert on.device() is device and on.memory_config() == ttnn.L1_MEMORY_CONFIG
    assert ttnn.to_device(on, device) is on
    back = ttnn.from_device(on)
    assert back.device() is None
    np.testing.assert_array_equal(ttnn.to_torch(back), _bf16(a))


def test_creation_functions(device):
    z = ttnn.zeros((2, 40), device=device)
    assert z.dtype == ttnn.bfloat16 and z.layout == ttnn.ROW_MAJOR_LAYOUT
    np.testing.assert_array_equal(ttnn.to_torch(z), np.zeros((2, 40), np.float32))
    o = ttnn.ones((64, 32), dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device)
    np.testing.assert_array_equal(ttnn.to_torch(o), np.ones((64, 32), np.float32))
    f = ttnn.full((3, 3), 2.5, dtype=ttnn.float32, device=device)
    np.testing.assert_array_equal(ttnn.to_torch(f), np.full((3, 3), 2.5, np.float32))
    e = ttnn.empty((64, 64), ttnn.bfloat16, ttnn.TILE_LAYOUT, device, ttnn.L1_MEMORY_CONFIG)
    assert e.shape == (64, 64) and e.memory_config() == ttnn.L1_MEMORY_CONFIG and e.layout == ttnn.TILE_LAYOUT
    r = ttnn.to_torch(ttnn.rand((64, 64), device=device, dtype=ttnn.float32, low=-1, high=3, seed=5))
    assert r.min() >= -1 and r.max() < 3 and r.std() > 0.5
    np.testing.assert_array_equal(r, ttnn.to_torch(ttnn.rand((64, 64), device, dtype=ttnn.float32, low=-1,
                                                             high=3, seed=5)))
    like = ttnn.zeros_like(o)
    assert like.dtype == ttnn.float32 and like.layout == ttnn.TILE_LAYOUT and like.device() is device


@pytest.mark.parametrize("strategy, shard", [(ttnn.ShardStrategy.HEIGHT, (32, 128)),
                                             (ttnn.ShardStrategy.WIDTH, (128, 32)),
                                             (ttnn.ShardStrategy.BLOCK, (64, 64))])
def test_sharded_memory_configs(device, strategy, shard):
    config = ttnn.create_sharded_memory_config((128, 128), ttnn.CoreGrid(y=2, x=2), strategy)
    assert config.is_sharded() and config.buffer_type == ttnn.BufferType.L1
    assert config.shard_spec.shape == (shard if strategy != ttnn.ShardStrategy.HEIGHT else (32, 128))
    a = _values((128, 128))
    t = ttnn.from_torch(a, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device, memory_config=config)
    assert t._ttl.buffer.is_sharded
    np.testing.assert_array_equal(ttnn.to_torch(t), a)


def test_to_memory_config_copies_on_the_device(device):
    a = _values((64, 96))
    t = ttnn.from_torch(a, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device)
    before = device.tessel_device.command_queue.programs_run
    l1 = ttnn.to_memory_config(t, ttnn.L1_MEMORY_CONFIG)
    assert device.tessel_device.command_queue.programs_run == before + 1
    assert l1.memory_config() == ttnn.L1_MEMORY_CONFIG and l1._ttl.buffer.type == ttnn.BufferType.L1
    np.testing.assert_array_equal(ttnn.to_torch(l1), a)
    sharded = ttnn.to_memory_config(l1, ttnn.create_sharded_memory_config((64, 96), ttnn.CoreGrid(y=1, x=3),
                                                                          ttnn.ShardStrategy.WIDTH))
    np.testing.assert_array_equal(ttnn.to_torch(sharded), a)
    rows = ttnn.from_torch(a, dtype=ttnn.float32, device=device)
    np.testing.assert_array_equal(ttnn.to_torch(ttnn.to_memory_config(rows, ttnn.L1_MEMORY_CONFIG)), a)
    assert ttnn.to_memory_config(t, ttnn.DRAM_MEMORY_CONFIG) is t


def test_to_layout(device):
    a = _values((40, 50))
    t = ttnn.from_torch(a, dtype=ttnn.float32, device=device)
    tiled = ttnn.to_layout(t, ttnn.TILE_LAYOUT)
    assert tiled.layout == ttnn.TILE_LAYOUT and tiled.padded_shape == (64, 64)
    np.testing.assert_array_equal(ttnn.to_torch(tiled), a)
    assert ttnn.to_layout(tiled, ttnn.TILE_LAYOUT) is tiled


def test_shape_is_a_tuple():
    s = ttnn.Shape([2, 3])
    assert s == (2, 3) and s == [2, 3] and s[-1] == 3 and len(s) == 2 and repr(s) == "Shape([2, 3])"


def test_bad_input_says_what_where_and_what_was_expected(device):
    with pytest.raises(TypeError, match=r"ttnn.from_torch: tensor must be a torch.Tensor or a numpy array, "
                                        r"got \[1, 2\] \(list\)"):
        ttnn.from_torch([1, 2], device=device)
    with pytest.raises(TypeError, match=r"ttnn.from_torch: dtype must be a ttnn.DataType \(ttnn.bfloat16, "):
        ttnn.from_torch(np.zeros((2, 2)), dtype="bf16", device=device)
    with pytest.raises(TypeError, match=r"ttnn.from_torch: memory_config must be a ttnn.MemoryConfig"):
        ttnn.from_torch(np.zeros((2, 2)), device=device, memory_config="l1")
    with pytest.raises(TypeError, match=r"ttnn.from_torch: device must be a ttnn.Device, a ttnn.MeshDevice or None, "
                                        r"got 0 \(int\)"):
        ttnn.from_torch(np.zeros((2, 2)), device=0)
    with pytest.raises(ValueError, match=r"a value is outside DataType.UINT8's range \(0..255\)"):
        ttnn.from_torch(np.full((2, 2), 300, np.int32), dtype=ttnn.uint8, device=device)
    with pytest.raises(ValueError, match=r"ttnn.from_torch: a row-major tensor has one page per row, so a shard must "
                                         r"hold whole rows \(width 64\), got shard shape \(64, 32\)"):
        ttnn.from_torch(np.zeros((64, 64), np.float32), device=device, memory_config=ttnn.create_sharded_memory_config(
            (64, 64), ttnn.CoreGrid(y=1, x=2), ttnn.ShardStrategy.WIDTH))
    with pytest.raises(ValueError, match=r"ttnn.open_device: device_id 99 is not a device: the machine has 8"):
        ttnn.open_device(device_id=99)


def test_synchronize_device(device):
    ttnn.synchronize_device(device)
    with pytest.raises(TypeError, match=r"ttnn.synchronize_device: device must be a ttnn.Device or ttnn.MeshDevice, "
                                        r"got 'dev' \(str\)"):
        ttnn.synchronize_device("dev")


def test_closed_device(device):
    d = ttnn.open_device(device_id=1)
    t = ttnn.from_torch(np.zeros((32, 32), np.float32), layout=ttnn.TILE_LAYOUT, device=d)
    ttnn.close_device(d)
    with pytest.raises(ValueError, match=r"op: a: the tensor's device 1 is closed"):
        as_tensor(t, "op: a")
    with pytest.raises(ValueError, match=r"ttnn.from_torch: device 1 is closed"):
        ttnn.from_torch(np.zeros((32, 32), np.float32), device=d)
    with pytest.raises(ValueError, match=r"ttnn.synchronize_device: device 1 is closed"):
        ttnn.synchronize_device(d)


def test_layout_defaults_follow_where_the_tensor_is(device):
    """Without a layout: row-major on a device, as ttnn's creation functions;
    tiles on the host, as TT-Lang's simulator makes them (a tensor without a
    device exists only in programs written for it)."""
    assert ttnn.empty((32, 64), device=device).layout == ttnn.ROW_MAJOR_LAYOUT
    assert ttnn.zeros((32, 64), device=device).layout == ttnn.ROW_MAJOR_LAYOUT
    assert ttnn.empty((32, 64)).layout == ttnn.TILE_LAYOUT
    assert ttnn.full((32, 64), 2.0).layout == ttnn.TILE_LAYOUT
    assert ttnn.ones((32, 64), layout=ttnn.ROW_MAJOR_LAYOUT).layout == ttnn.ROW_MAJOR_LAYOUT


def test_the_spellings_programs_use(device):
    grid = ttnn.CoreRangeSet([ttnn.CoreRange(ttnn.CoreCoord(0, 0), ttnn.CoreCoord(1, 1))])
    assert grid.ranges() == list(grid.ranges) == [ttnn.CoreRange(ttnn.CoreCoord(0, 0), ttnn.CoreCoord(1, 1))]
    assert ttnn.device.get_max_worker_l1_unreserved_size() == device.get_max_worker_l1_unreserved_size() > 0


def test_torch_dtypes_name_ttnn_types():
    torch = pytest.importorskip("torch")
    assert ttnn.empty((32, 32), dtype=torch.float32).dtype == ttnn.float32
    assert ttnn.zeros((32, 32), dtype=torch.bfloat16).dtype == ttnn.bfloat16
