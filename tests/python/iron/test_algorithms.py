"""aie.iron.algorithms as IRON's examples call them: transform and
transform_binary with a Python function or a kernel, their parallel forms,
for_each in place, and reduce through a kernel; checked against numpy."""

import ml_dtypes
import numpy as np
import pytest

import tessel.iron as iron
from tessel.iron.algorithms import (
    for_each,
    reduce,
    transform,
    transform_binary,
    transform_binary_typed,
    transform_parallel,
    transform_parallel_binary,
    transform_parallel_typed,
    transform_typed,
)

SCALE = """
extern "C" void scale_k(int32_t* in, int32_t* out, int32_t* factor, int32_t n) {
  for (int32_t i = 0; i < n; ++i) out[i] = in[i] * factor[0] + n;
}
"""

SUM = """
extern "C" void sum_k(int32_t* in, int32_t* out, int32_t n) {
  int32_t s = 0;
  for (int32_t i = 0; i < n; ++i) s += in[i];
  out[0] = s;
}
"""


def i32(n):
    return np.ndarray[(n,), np.dtype[np.int32]]


@pytest.fixture(scope="module", autouse=True)
def current_device(device):
    iron.set_current_device(device)


def test_transform_with_a_python_function():
    a = np.arange(1024, dtype=np.int32) - 512
    b = np.zeros_like(a)
    transform(a, b, lambda x: x * 3)(a, b)  # func last
    np.testing.assert_array_equal(b, a * 3)
    transform(a, b, func=lambda x: x - 1, N=1024, dtype=np.int32)(a, b)  # keywords
    np.testing.assert_array_equal(b, a - 1)
    transform(lambda x: x * 2 + 1, a, b)(a, b)
    np.testing.assert_array_equal(b, a * 2 + 1)


def test_transform_binary_on_bfloat16():
    bf = ml_dtypes.bfloat16
    a = np.linspace(-4, 4, 256).astype(bf)
    b = np.linspace(1, 2, 256).astype(bf)
    c = np.zeros_like(a)
    transform_binary(lambda x, y: x * y, a, b, c)(a, b, c)
    np.testing.assert_array_equal(c.view(np.uint16), (a.astype(np.float32) * b.astype(np.float32)).astype(bf)
                                  .view(np.uint16))


def test_transform_with_a_kernel_and_its_parameters():
    """An array parameter reaches the worker through its own fifo; a scalar is a constant."""
    k = iron.ExternalFunction("scale_k", source_string=SCALE,
                              arg_types=[i32(32), i32(32), i32(1), np.int32])
    a = np.arange(512, dtype=np.int32)
    b = np.zeros_like(a)
    factor = np.array([-3], dtype=np.int32)
    transform(k, a, b, factor, 32)(a, b, factor)
    np.testing.assert_array_equal(b, a * -3 + 32)


def test_parallel_transforms_spread_over_columns():
    a = np.arange(2048, dtype=np.int32)
    b = np.arange(2048, dtype=np.int32)[::-1].copy()
    c = np.zeros_like(a)
    transform_parallel(lambda x: x - 7, a, c)(a, c)
    np.testing.assert_array_equal(c, a - 7)
    transform_parallel_binary(lambda x, y: x ^ y, a, b, c)(a, b, c)
    np.testing.assert_array_equal(c, a ^ b)


def test_for_each_in_place_from_a_tensor_type():
    t = np.arange(256, dtype=np.int32)
    for_each(lambda x: x // 3, i32(256), tile_size=32)(t)
    np.testing.assert_array_equal(t, np.arange(256) // 3)


def test_reduce_through_a_kernel():
    k = iron.ExternalFunction("sum_k", source_string=SUM, arg_types=[i32(1024), i32(1), np.int32])
    a = np.arange(1024, dtype=np.int32) * 3
    out = np.zeros(1, np.int32)
    reduce(a, out, func=k, N=1024, dtype=np.int32)(a, out)
    assert out[0] == a.sum()
    out[0] = 0
    reduce(k, i32(1024), i32(1))(a, out)  # reduce_typed's spelling
    assert out[0] == a.sum()


def test_transform_with_func_first_and_one_tensor_type():
    """vector_scalar_add's spelling: transform(lambda x: x + 1, tensor_ty, tile_size=32)."""
    a = np.arange(256, dtype=np.int32)
    b = np.zeros_like(a)
    transform(lambda x: x + 1, i32(256), tile_size=32)(a, b)
    np.testing.assert_array_equal(b, a + 1)


ADD_N = """
extern "C" void add_n(int32_t* in, int32_t* out, int32_t n) {
  for (int32_t i = 0; i < n; ++i) out[i] = in[i] + n;
}
"""


def test_typed_forms_take_one_tensor_type_and_give_kernels_the_tile_size():
    k = iron.ExternalFunction("add_n", source_string=ADD_N, arg_types=[i32(64), i32(64), np.int32])
    a = np.arange(512, dtype=np.int32)
    b = np.zeros_like(a)
    transform_typed(k, i32(512), tile_size=64)(a, b)
    np.testing.assert_array_equal(b, a + 64)
    c = np.zeros_like(a)
    transform_binary_typed(lambda x, y: x * y - 1, i32(512))(a, b, c)
    np.testing.assert_array_equal(c, a * b - 1)
    transform_parallel_typed(k, i32(512), tile_size=64)(a, c)  # 4 columns of 128
    np.testing.assert_array_equal(c, a + 64)
    transform_parallel_typed(lambda x: -x, i32(512), num_channels=2)(a, c)  # 8 workers of 64
    np.testing.assert_array_equal(c, -a)


@pytest.mark.parametrize("call, error, message", [
    (lambda: transform(lambda x: x, np.zeros(100, np.int32), np.zeros(100, np.int32)), ValueError,
     "100 elements are not a whole number of 16-element tiles"),
    (lambda: transform(lambda x: x, np.zeros(64, np.int32), np.zeros(32, np.int32)), ValueError,
     r"the output has shape \(32,\), input 0 has \(64,\)"),
    (lambda: transform_binary(lambda x, y: x, np.zeros(64, np.int32), np.zeros(64, np.int16),
                              np.zeros(64, np.int32)), ValueError, "input 1 holds int16, input 0 holds int32"),
    (lambda: transform(lambda x: x, np.zeros(64, np.int32), np.zeros(64, np.int32), 3), TypeError,
     "parameters go to an ExternalFunction"),
    (lambda: reduce(None, None, func=lambda x: x, N=16, dtype=np.int32), TypeError,
     "func must be an ExternalFunction"),
    (lambda: for_each(lambda x: x, "tensor"), TypeError, "for_each tensor must be a tensor, or a type like"),
    (lambda: transform(np.zeros(64, np.int32), np.zeros(64, np.int32)), TypeError,
     "give func first .* last .* or as func="),
    (lambda: transform(np.zeros(64, np.int32), np.zeros(64, np.int32), func=abs, N=32), ValueError,
     "N=32, but the tensors hold 64 elements"),
    (lambda: transform_parallel_typed(abs, i32(512), num_channels=3), ValueError, "num_channels must be 1 or 2"),
])
def test_bad_calls_are_clear_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_jit_of_an_algorithm_builds_once_for_equal_kernels_made_per_call():
    """IRON's vector_scalar_mul_jit makes its ExternalFunction anew on every call of
    iron.jit(is_placed=False)(transform)(kernel, ...): equal kernels are one cache key."""
    def kernel():
        return iron.ExternalFunction("scale_k", source_string=SCALE, arg_types=[i32(32), i32(32), i32(1), np.int32])

    jd = iron.jit(is_placed=False)(transform)
    a = np.arange(256, dtype=np.int32)
    factor = np.array([2], np.int32)
    for _ in range(3):
        b = np.zeros_like(a)
        jd(kernel(), a, b, factor, 32)
        np.testing.assert_array_equal(b, a * 2 + 32)
    assert len(jd._kernel_cache) == 1


def test_called_on_tensors_outside_a_jit_an_algorithm_runs_once():
    """IRON's 2025 spelling, transform_parallel_binary(in0, in1, out, func), ran the design; in a jit the jit runs it."""
    a = iron.randint(0, 100, (1024,), dtype=np.int32)
    b = iron.randint(0, 100, (1024,), dtype=np.int32)
    out = iron.zeros_like(a)
    design = transform_parallel_binary(a, b, out, lambda x, y: x + y)
    np.testing.assert_array_equal(out.numpy(), a.numpy() + b.numpy())
    assert design.calls == 1
    jd = iron.jit(is_placed=False)(transform)
    c = iron.zeros_like(a)
    jd(lambda x: x * 5, a, c)
    np.testing.assert_array_equal(c.numpy(), a.numpy() * 5)
    assert next(iter(jd._kernel_cache.values())).design.calls == 1  # built in the jit, run by it only
