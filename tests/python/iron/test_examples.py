"""The tessel.iron examples (examples/iron), run with host checks."""

import importlib.util
import pathlib

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[3]


def example(name):
    path = ROOT / "examples" / "iron" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"iron_example_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_passthrough_4096_uint8(device):
    ex = example("passthrough")
    design = ex.build(device=device)
    a = np.arange(ex.N, dtype=np.uint8)
    for _ in range(2):
        b = np.zeros(ex.N, np.uint8)
        design(a, b)
        np.testing.assert_array_equal(b, a)


def test_vector_scalar_mul_factor_fifo_and_rtp_barrier(device):
    ex = example("vector_scalar_mul")
    rng = np.random.default_rng(1)
    a = rng.integers(0, 100, ex.N, dtype=np.int16)
    c = np.zeros(ex.N, np.int16)
    ex.build_fifo(device=device)(a, np.array([3], np.int32), c)
    np.testing.assert_array_equal(c, (a.astype(np.int32) * 3).astype(np.int16))
    design = ex.build_rtp(7, device=device)
    for _ in range(3):  # the barrier is taken once per call and set again by the next
        c2 = np.zeros(ex.N, np.int16)
        design(a, c2)
        np.testing.assert_array_equal(c2, (a.astype(np.int32) * 7).astype(np.int16))


def test_matmul_single_core_bf16_in_f32_out(device):
    ex = example("matmul_single_core")
    c, ref, design = ex.run(M=128, K=64, N=96, m=32, k=32, n=32, device=device)
    np.testing.assert_allclose(c, ref, rtol=1e-5, atol=1e-5)


def test_matmul_through_the_library_mm_kernel_with_dims_to_stream(device):
    """IRON's single-core matmul: iron.kernels.mm's blocks laid out by the forwards' dims_to_stream."""
    ex = example("matmul_mm_kernel")
    c, ref, _, _ = ex.run(M=128, K=128, N=64, m=64, k=64, n=32, device=device)
    np.testing.assert_allclose(c, ref, rtol=1e-4, atol=1e-3)


def test_copy_with_a_dispatch_time_count():
    ex = example("dispatch_copy")
    assert ex.main() == 0
    assert len(ex.copy._kernel_cache) == 1


def test_one_compiled_design_across_100_dispatch_values():
    import tessel.iron as iron

    ex = example("dispatch_copy")
    tile = 256
    a = iron.arange(ex.CAPACITY_TILES * tile, dtype=np.int32)
    for k in range(100):
        count = 1 + (k * 5) % ex.CAPACITY_TILES
        b = iron.zeros(ex.CAPACITY_TILES * tile, dtype=np.int32)
        ex.copy(a, b, count=count)
        want = np.where(np.arange(a.numel()) < count * tile, a.numpy(), 0)
        np.testing.assert_array_equal(b.numpy(), want, err_msg=f"count={count}")
    assert len(ex.copy._kernel_cache) == 1


def test_jit_with_a_fixed_value_builds_its_own_design():
    import tessel.iron as iron

    ex = example("dispatch_copy")
    fixed = iron.jit(ex.copy._generator, count=2)
    a = iron.arange(ex.CAPACITY_TILES * 256, dtype=np.int32)
    b = iron.zeros(ex.CAPACITY_TILES * 256, dtype=np.int32)
    fixed(a, b)
    np.testing.assert_array_equal(b.numpy()[: 2 * 256], a.numpy()[: 2 * 256])
    assert not b.numpy()[2 * 256:].any()
    try:
        fixed(a, b, count=3)
    except TypeError as e:
        assert "`count` is fixed to 2 by specialization" in str(e)
    else:
        raise AssertionError("a fixed value was overridden")
