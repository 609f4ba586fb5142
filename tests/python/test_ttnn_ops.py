"""tessel.ttnn's operations run as programs on the device the tensors live
on: values against numpy, the program cache, and the errors."""

import numpy as np
import pytest

import tessel.ttnn as ttnn
from tessel.ttnn import creation
from tessel import formats
from tessel.ttnn import device as device_module


@pytest.fixture(autouse=True)
def _numpy_results(monkeypatch):
    """to_torch's numpy form (what it returns without torch), whether or not torch is installed."""
    monkeypatch.setattr(creation, "_torch", lambda: None)


@pytest.fixture(scope="module")
def device():
    d = ttnn.open_device(device_id=0)
    yield d
    ttnn.close_device(d)


def _bf16(a):
    return formats.bf16_values(formats.bf16_bits(np.asarray(a, np.float32)))


def _tensor(device, shape, seed, dtype=ttnn.bfloat16, lo=-4.0, hi=4.0, **kw):
    a = np.random.default_rng(seed).uniform(lo, hi, shape).astype(np.float32)
    t = ttnn.from_torch(a, dtype=dtype, layout=ttnn.TILE_LAYOUT, device=device, **kw)
    return t, ttnn.to_torch(t).astype(np.float64)


BINARY = [("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply), ("maximum", np.maximum)]
UNARY = [("relu", lambda x: np.maximum(x, 0)), ("exp", np.exp), ("neg", np.negative), ("abs", np.abs),
         ("sigmoid", lambda x: 1 / (1 + np.exp(-x))), ("square", np.square)]


@pytest.mark.parametrize("name, reference", BINARY, ids=[b[0] for b in BINARY])
@pytest.mark.parametrize("dtype", [ttnn.bfloat16, ttnn.float32], ids=["bf16", "fp32"])
def test_binary(device, name, reference, dtype):
    a, av = _tensor(device, (2, 64, 96), 1, dtype)
    b, bv = _tensor(device, (2, 64, 96), 2, dtype)
    y = getattr(ttnn, name)(a, b)
    assert y.shape == a.shape and y.dtype == dtype and y.device() is device
    rtol = 2**-8 if dtype == ttnn.bfloat16 else 2**-20
    np.testing.assert_allclose(ttnn.to_torch(y), reference(av, bv), rtol=rtol, atol=1e-30)


@pytest.mark.parametrize("name, reference", UNARY, ids=[u[0] for u in UNARY])
def test_unary(device, name, reference):
    a, av = _tensor(device, (64, 64), 3, ttnn.float32, lo=-3, hi=3)
    y = getattr(ttnn, name)(a)
    np.testing.assert_allclose(ttnn.to_torch(y), reference(av), rtol=2**-8, atol=1e-6)


def test_tutorial_chain_stays_on_the_device(device):
    """y = (a * b + c) * d, ttnn's elementwise baseline, checked as it allcloses."""
    (a, av), (b, bv), (c, cv), (d, dv) = (_tensor(device, (128, 128), s, lo=0, hi=1) for s in range(4))
    queue = device.tessel_device.command_queue
    before = queue.programs_run
    y = ttnn.multiply(ttnn.add(ttnn.multiply(a, b), c), d)
    assert queue.programs_run == before + 3  # three programs, no host round trip between them
    expected = _bf16(_bf16(_bf16(av * bv) + cv) * dv)
    np.testing.assert_allclose(ttnn.to_torch(y), expected, rtol=2**-7, atol=0)


def test_number_operand_and_operators(device):
    a, av = _tensor(device, (32, 64), 5, ttnn.float32)
    np.testing.assert_allclose(ttnn.to_torch(ttnn.add(a, 1.5)), av + 1.5, rtol=2**-20)
    np.testing.assert_allclose(ttnn.to_torch(a * 2.0), av * 2.0, rtol=2**-20)
    np.testing.assert_allclose(ttnn.to_torch(a - a), np.zeros_like(av), atol=0)


def test_parameterised_ops(device):
    a, av = _tensor(device, (32, 32), 6, ttnn.float32)
    np.testing.assert_allclose(ttnn.to_torch(ttnn.relu_max(a, 2.0)), np.clip(av, 0, 2.0), rtol=2**-20)
    np.testing.assert_allclose(ttnn.to_torch(ttnn.leaky_relu(a, 0.25)), np.where(av < 0, av * 0.25, av),
                               rtol=2**-20)
    cast = ttnn.typecast(a, ttnn.bfloat16)
    assert cast.dtype == ttnn.bfloat16
    np.testing.assert_array_equal(ttnn.to_torch(cast), _bf16(av))


def test_output_placement(device):
    a, av = _tensor(device, (64, 64), 7, ttnn.float32, memory_config=ttnn.L1_MEMORY_CONFIG)
    y = ttnn.relu(a)
    assert y.memory_config() == ttnn.L1_MEMORY_CONFIG  # the input's, as ttnn does
    z = ttnn.relu(a, memory_config=ttnn.DRAM_MEMORY_CONFIG)
    assert z._ttl.buffer.type == ttnn.BufferType.DRAM
    sharded = ttnn.create_sharded_memory_config((64, 64), ttnn.CoreGrid(y=2, x=1), ttnn.ShardStrategy.HEIGHT)
    s = ttnn.add(a, a, memory_config=sharded, dtype=ttnn.bfloat16)
    assert s._ttl.buffer.is_sharded and s.dtype == ttnn.bfloat16
    np.testing.assert_array_equal(ttnn.to_torch(s), _bf16(av * 2))


@pytest.mark.parametrize("shapes", [((64, 96), (96, 32)), ((2, 64, 64), (64, 96)), ((2, 32, 64), (2, 64, 32)),
                                    ((40, 64), (64, 50))], ids=["2d", "batched_a", "batched_both", "padded_mn"])
def test_matmul(device, shapes):
    sa, sb = shapes
    a, av = _tensor(device, sa, 8, ttnn.float32, lo=-1, hi=1)
    b, bv = _tensor(device, sb, 9, ttnn.float32, lo=-1, hi=1)
    y = ttnn.matmul(a, b)
    expected = av @ bv
    assert y.shape == expected.shape
    # The FPU's source registers keep 10 of a float32 operand's mantissa bits
    # (round to nearest); HiFi4 products and the 32-bit DST are exact after that.
    bound = 2.0**-10 * (np.abs(av) @ np.abs(bv)) + 1e-6
    assert np.all(np.abs(ttnn.to_torch(y) - expected) <= bound)
    assert np.all(np.abs(ttnn.to_torch(a @ b) - expected) <= bound)


def test_matmul_bias_relu_tutorial(device):
    (a, av), (b, bv), (c, cv) = (_tensor(device, (64, 64), s, lo=-1, hi=1) for s in (10, 11, 12))
    y = ttnn.relu(ttnn.add(ttnn.matmul(a, b), c))
    expected = np.maximum(av @ bv + cv, 0)
    got = ttnn.to_torch(y)
    assert np.corrcoef(got.ravel(), expected.ravel())[0, 1] > 0.999


def test_programs_are_kept_per_structure():
    device = ttnn.open_device(device_id=2)
    a, _ = _tensor(device, (32, 96), 13)
    b, _ = _tensor(device, (32, 96), 14)
    ttnn.add(a, b)
    kept = len(device._programs)
    cache = device.tessel_device.program_cache
    misses = cache.misses
    ttnn.add(b, a)  # same structure, other addresses: the kept program, re-dispatched
    assert len(device._programs) == kept and cache.misses == misses
    c, _ = _tensor(device, (64, 96), 15)
    ttnn.add(c, c)
    assert len(device._programs) == kept + 1
    ttnn.close_device(device)
    assert len(device._programs) == 0  # closing drops them


def test_program_cache_is_bounded(device):
    for rows in range(1, device_module.PROGRAM_CACHE_SIZE + 3):
        a, _ = _tensor(device, (32 * rows, 32), rows)
        ttnn.relu(a)
    assert len(device._programs) == device_module.PROGRAM_CACHE_SIZE


def test_errors(device):
    a, _ = _tensor(device, (32, 64), 16)
    b, _ = _tensor(device, (64, 64), 17)
    with pytest.raises(ValueError, match=r"ttnn.add: input_tensor_a and input_tensor_b must have the same shape "
                                         r"\(tessel's ttnn does not broadcast\), got \(32, 64\) and \(64, 64\)"):
        ttnn.add(a, b)
    rows = ttnn.from_torch(np.zeros((32, 64), np.float32), device=device)
    with pytest.raises(ValueError, match=r"ttnn.relu: input_tensor is ROW_MAJOR_LAYOUT: element-wise ops and matmul "
                                         r"take TILE_LAYOUT tensors \(ttnn.to_layout\(tensor, ttnn.TILE_LAYOUT\)\)"):
        ttnn.relu(rows)
    host = ttnn.from_torch(np.zeros((32, 64), np.float32), layout=ttnn.TILE_LAYOUT)
    with pytest.raises(ValueError, match=r"ttnn.multiply: output_tensor is on the host: ttnn operations run on a "
                                         r"device"):
        ttnn.multiply(a, a, output_tensor=host)
    with pytest.raises(TypeError, match=r"ttnn.exp: input_tensor must be a ttnn.Tensor, got 3 \(int\)"):
        ttnn.exp(3)
    with pytest.raises(ValueError, match=r"ttnn.matmul: a \(..., M, K\) @ b \(..., K, N\) needs a's last dimension "
                                         r"to equal b's second-to-last, got \(32, 64\) and \(32, 64\)"):
        ttnn.matmul(a, a)
    c = ttnn.from_torch(np.zeros((32, 40), np.float32), layout=ttnn.TILE_LAYOUT, device=device)
    d = ttnn.from_torch(np.zeros((40, 32), np.float32), layout=ttnn.TILE_LAYOUT, device=device)
    with pytest.raises(ValueError, match=r"ttnn.matmul: K = 40 must be whole tiles \(a multiple of 32\)"):
        ttnn.matmul(c, d)
    other = ttnn.open_device(device_id=1)
    try:
        e = ttnn.from_torch(np.zeros((32, 64), np.float32), layout=ttnn.TILE_LAYOUT, device=other)
        with pytest.raises(ValueError, match=r"ttnn.add: input_tensor_a and input_tensor_b are on different devices "
                                             r"\(0 and 1\)"):
            ttnn.add(a, e)
    finally:
        ttnn.close_device(other)


def test_host_tensors_run_on_device_copies(device):
    """Programs written for TT-Lang's simulator make tensors without a device:
    an op of host tensors runs on a copy on the device and gives a host
    tensor; with a device tensor the host one is copied to its device (a
    bfloat16 and a float32 operand: the unpacker is reconfigured between
    them)."""
    a_values = np.linspace(-2, 2, 32 * 64, dtype=np.float32).reshape(32, 64)
    host = ttnn.from_torch(a_values, layout=ttnn.TILE_LAYOUT)
    y = ttnn.abs(host)
    assert y.storage_type() == ttnn.StorageType.HOST
    np.testing.assert_array_equal(ttnn.to_torch(y), np.abs(a_values))
    a, ref = _tensor(device, (32, 64), 18)
    z = ttnn.multiply(a, host)
    assert z.storage_type() == ttnn.StorageType.DEVICE
    np.testing.assert_allclose(ttnn.to_torch(z), ref * a_values, rtol=2e-2, atol=1e-6)


def test_options_tessel_does_not_model_are_refused_not_dropped(device):
    a, _ = _tensor(device, (32, 32), 18)
    with pytest.raises(ValueError, match=r"ttnn.add: activations \(fused activations\) are not supported by tessel's "
                                         r"ttnn: call the activation after the op"):
        ttnn.add(a, a, activations=["relu"])
    with pytest.raises(ValueError, match=r"ttnn.matmul: activation \(a fused activation\) is not supported"):
        ttnn.matmul(a, a, activation="relu")
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'memory_confg'"):
        ttnn.relu(a, memory_confg=ttnn.L1_MEMORY_CONFIG)


def test_matmul_into_an_output_tensor(device):
    a, av = _tensor(device, (32, 64), 19, ttnn.float32, lo=-1, hi=1)
    b, bv = _tensor(device, (64, 32), 20, ttnn.float32, lo=-1, hi=1)
    out = ttnn.zeros((32, 32), dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device)
    assert ttnn.matmul(a, b, optional_output_tensor=out) is out
    assert np.all(np.abs(ttnn.to_torch(out) - av @ bv) <= 2.0**-10 * (np.abs(av) @ np.abs(bv)) + 1e-6)
    with pytest.raises(ValueError, match=r"ttnn.matmul: optional_output_tensor must be a TILE_LAYOUT \(32, 32\) tensor"):
        ttnn.matmul(a, b, optional_output_tensor=a)
