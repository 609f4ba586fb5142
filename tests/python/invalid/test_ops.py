"""Misuse of tessel.ops: each case raises its exact message (a TypeError or
ValueError naming the function and the argument) and leaves the Program
cache as it was. Non-contiguous arrays are not a misuse: they are accepted
(tilizing copies them anyway) and give the contiguous array's result."""

import re

import numpy as np
import pytest
import tessel
import tessel.ops

A = np.zeros((32, 32), dtype=np.float32)
B = np.zeros((32, 64), dtype=np.float32)


@pytest.fixture(scope="module")
def device():
    with tessel.Device.open(arch="blackhole") as d:  # 12x10 worker cores
        yield d
        tessel.ops.clear_cache(d)


@pytest.fixture
def closed_device():
    d = tessel.Device.open(grid=(1, 1))
    d.close()
    return d


CASES = [
    # operands
    ("int-dtype", TypeError, lambda d: tessel.ops.exp(np.zeros((32, 32), dtype=np.int32), device=d),
     ("tessel.ops.exp: a must be an array of floating-point values (float16, float32 or float64), got an array "
      "of int32")),
    ("bool-dtype", TypeError, lambda d: tessel.ops.add(A, np.zeros((32, 32), dtype=bool), device=d),
     ("tessel.ops.add: b must be an array of floating-point values (float16, float32 or float64), got an array "
      "of bool")),
    ("complex-dtype", TypeError, lambda d: tessel.ops.exp(A.astype(np.complex64), device=d),
     ("tessel.ops.exp: a must be an array of floating-point values (float16, float32 or float64), got an array "
      "of complex64")),
    ("not-an-array", TypeError, lambda d: tessel.ops.exp([[1.0, 2.0]], device=d),
     "tessel.ops.exp: a must be a numpy array, got [[1.0, 2.0]] (list)"),
    ("mismatched-shapes", ValueError, lambda d: tessel.ops.add(A, B, device=d),
     "tessel.ops.add: a and b must have the same shape, got (32, 32) and (32, 64)"),
    ("mismatched-shapes-sfpu", ValueError, lambda d: tessel.ops.div_binary(A, A.T[:16], device=d),
     "tessel.ops.div_binary: a and b must have the same shape, got (32, 32) and (16, 32)"),
    ("3-d", ValueError, lambda d: tessel.ops.exp(np.zeros((2, 32, 32), dtype=np.float32), device=d),
     "tessel.ops.exp: a must be 2-D (rows x cols), got shape (2, 32, 32)"),
    ("1-d", ValueError, lambda d: tessel.ops.mul(A, np.zeros(32, dtype=np.float32), device=d),
     "tessel.ops.mul: b must be 2-D (rows x cols), got shape (32,)"),
    ("empty", ValueError, lambda d: tessel.ops.relu(np.zeros((0, 5), dtype=np.float32), device=d),
     "tessel.ops.relu: a is empty (shape (0, 5)): expected at least one row and one column"),
    # format
    ("unknown-format", ValueError, lambda d: tessel.ops.add(A, A, device=d, format="Float64"),
     "tessel.ops.add: format must be one of Float16_b, Float32, Bfp8_b, got 'Float64'"),
    ("unsupported-format", ValueError, lambda d: tessel.ops.add(A, A, device=d, format="Int32"),
     "tessel.ops.add: format must be one of Float16_b, Float32, Bfp8_b, got 'Int32'"),
    ("unsupported-format-enum", ValueError, lambda d: tessel.ops.add(A, A, device=d, format=tessel.DataFormat.Bfp4_b),
     "tessel.ops.add: format must be one of Float16_b, Float32, Bfp8_b, got DataFormat.Bfp4_b"),
    ("format-not-a-name", TypeError, lambda d: tessel.ops.exp(A, device=d, format=5),
     "tessel.ops.exp: format must be a tessel.DataFormat or a format name (Float16_b, Float32, Bfp8_b), got 5 (int)"),
    # grid
    ("grid-true", TypeError, lambda d: tessel.ops.add(A, A, device=d, grid=True),
     "tessel.ops.add: grid must be None or an (x, y) tuple of core counts, got True (bool)"),
    ("grid-of-bools", TypeError, lambda d: tessel.ops.exp(A, device=d, grid=(True, 1)),
     "tessel.ops.exp: grid must be None or an (x, y) tuple of core counts, got (True, 1) (tuple)"),
    ("grid-of-three", TypeError, lambda d: tessel.ops.exp(A, device=d, grid=(1, 1, 1)),
     "tessel.ops.exp: grid must be None or an (x, y) tuple of core counts, got (1, 1, 1) (tuple)"),
    ("grid-zero", ValueError, lambda d: tessel.ops.exp(A, device=d, grid=(0, 2)),
     "tessel.ops.exp: grid[0] must be a core count (1..65535), got 0"),
    ("grid-too-big", ValueError, lambda d: tessel.ops.exp(A, device=d, grid=(13, 1)),
     "tessel.ops.exp: grid (13, 1) does not fit the device's 12x10 grid of worker cores"),
    # other options
    ("fp32-dest-acc-int", TypeError, lambda d: tessel.ops.exp(A, device=d, fp32_dest_acc=1),
     "tessel.ops.exp: fp32_dest_acc must be True or False, got 1 (int)"),
    ("device-not-a-device", TypeError, lambda d: tessel.ops.exp(A, device="cpu"),
     "tessel.ops.exp: device must be a tessel.Device or None, got 'cpu' (str)"),
    # the signature
    ("missing-operand", TypeError, lambda d: tessel.ops.add(A, device=d),
     "tessel.ops.add: missing a required argument: 'b'"),
    ("extra-operand", TypeError, lambda d: tessel.ops.exp(A, A, device=d),
     "tessel.ops.exp: too many positional arguments"),
    ("unknown-keyword", TypeError, lambda d: tessel.ops.exp(A, device=d, approx=True),
     "tessel.ops.exp: got an unexpected keyword argument 'approx'"),
    ("positional-option", TypeError, lambda d: tessel.ops.exp(A, d),
     "tessel.ops.exp: too many positional arguments"),
    # op parameters
    ("missing-parameter", TypeError, lambda d: tessel.ops.relu_max(A, device=d),
     "tessel.ops.relu_max: missing a required argument: 'upper_limit'"),
    ("float-parameter-str", TypeError, lambda d: tessel.ops.leaky_relu(A, slope="0.1", device=d),
     "tessel.ops.leaky_relu: slope must be a number, got '0.1' (str)"),
    ("float-parameter-too-big", ValueError, lambda d: tessel.ops.fill(A, value=1e39, device=d),
     "tessel.ops.fill: value must fit a float32 (|value| < 3.4e38), got 1e+39"),
    ("int-parameter-negative", ValueError, lambda d: tessel.ops.power(A, exponent=-1, device=d),
     "tessel.ops.power: exponent must be an integer word (0..4294967295), got -1"),
    ("int-parameter-float", TypeError, lambda d: tessel.ops.power(A, exponent=2.0, device=d),
     "tessel.ops.power: exponent must be an integer word (0..4294967295), got 2.0 (float)"),
    ("typecast-unknown-format", ValueError, lambda d: tessel.ops.typecast(A, to="Int64", device=d),
     ("tessel.ops.typecast: to must be one of Float32, Float16_b, Bfp8_b, Bfp4_b, Int32, UInt32, UInt16, UInt8, "
      "got 'Int64'")),
    # kernel_source
    ("kernel-source-unknown-op", ValueError, lambda d: tessel.ops.kernel_source("mish"),
     "tessel.ops.kernel_source: no op named 'mish'; the ops are " + ", ".join(op.name for op in tessel.op_table.OPS)),
]


@pytest.mark.parametrize("error, call, message", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_invalid(device, error, call, message):
    before = tessel.ops.cache_info()
    with pytest.raises(error, match=f"^{re.escape(message)}$"):
        call(device)
    assert tessel.ops.cache_info() == before


def test_closed_device(closed_device):
    with pytest.raises(ValueError, match=re.escape("tessel.ops.exp: device is closed: open a device with "
                                                   "tessel.Device.open()") + "$"):
        tessel.ops.exp(A, device=closed_device)


def test_non_contiguous_arrays_are_accepted(device):
    wide = np.linspace(-3, 3, 40 * 100, dtype=np.float32).reshape(40, 100)
    for view in (wide[:, ::2], wide.T, wide[::-1]):
        assert not view.flags.c_contiguous
        np.testing.assert_array_equal(tessel.ops.square(view, device=device),
                                      tessel.ops.square(np.ascontiguousarray(view), device=device))
        np.testing.assert_array_equal(tessel.ops.add(view, view, device=device),
                                      tessel.ops.add(np.ascontiguousarray(view), np.ascontiguousarray(view),
                                                     device=device))
