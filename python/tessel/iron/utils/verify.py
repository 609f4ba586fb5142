"""IRON's `aie.utils.verify`: comparing a design's output with a reference.

Tolerant comparison is IRON's (and its C++ testbenches'):
    |a - b| < max(atol, rtol * (|a| + |b|)),  rtol 0.128 by default,
computed in float32, so bfloat16 (ml_dtypes) arrays compare directly.
"""

import sys

import numpy as np

from .benchmark import print_benchmark

__all__ = ["nearly_equal", "count_mismatches", "assert_pass", "assert_close_with_benchmark"]

DEFAULT_RTOL = 0.128


def _f32(x):
    return np.asarray(np.asarray(x.numpy() if hasattr(x, "numpy") else x), dtype=np.float32)


def nearly_equal(a, b, *, rtol=DEFAULT_RTOL, atol=None):
    """Element-wise: True where a equals b or |a - b| < max(atol, rtol*(|a|+|b|)); NaN is never equal."""
    a32, b32 = _f32(a), _f32(b)
    floor = float(np.finfo(np.float32).tiny) if atol is None else atol
    with np.errstate(over="ignore", invalid="ignore"):
        scale = np.minimum(np.abs(a32) + np.abs(b32), np.finfo(np.float32).max)
        return (a32 == b32) | (np.abs(a32 - b32) < np.maximum(floor, rtol * scale))


def count_mismatches(actual, ref, *, rtol=DEFAULT_RTOL, atol=None, stop_at_nonfinite=True):
    """(elements out of tolerance, elements compared); with stop_at_nonfinite
    the comparison stops at the first inf or NaN on either side."""
    a32, r32 = _f32(actual).ravel(), _f32(ref).ravel()
    if a32.shape != r32.shape:
        raise ValueError(f"count_mismatches: actual has {a32.size} elements and ref {r32.size}")
    stop = a32.size
    if stop_at_nonfinite:
        bad = ~(np.isfinite(a32) & np.isfinite(r32))
        if bad.any():
            stop = int(np.argmax(bad))
    ok = nearly_equal(a32[:stop], r32[:stop], rtol=rtol, atol=atol)
    return int(ok.size - np.count_nonzero(ok)), stop


def assert_pass(actual, expected, *, rtol=None, atol=None, fail_msg=None, print_pass=True):
    """Exact comparison (no tolerance given) or tolerant; on a mismatch
    sys.exit("FAIL! ...") (exit status 1), else print PASS! (print_pass)."""
    a = np.asarray(actual.numpy() if hasattr(actual, "numpy") else actual)
    e = np.asarray(expected.numpy() if hasattr(expected, "numpy") else expected)
    if rtol is None and atol is None:
        ok = bool(np.array_equal(a, e))
    else:
        ok = count_mismatches(a, e, rtol=DEFAULT_RTOL if rtol is None else rtol, atol=atol)[0] == 0
    if not ok:
        sys.exit("FAIL!" if fail_msg is None else f"FAIL! {fail_msg}")
    if print_pass:
        print("PASS!")


def assert_close_with_benchmark(actual, expected, *, bench, ops=None, gflops_fmt=".2f", float_rtol=0.05,
                                float_atol=0.5, fail_msg=None, **kwargs):
    """Compare (exact for integer references, tolerant otherwise), print the
    benchmark (and GFLOPS when `ops` is given), then PASS!."""
    if np.issubdtype(np.asarray(expected).dtype, np.integer):
        assert_pass(actual, expected, fail_msg=fail_msg, print_pass=False)
    else:
        assert_pass(actual, expected, rtol=float_rtol, atol=float_atol, fail_msg=fail_msg, print_pass=False)
    print()
    print_benchmark(bench)
    stats = bench.npu if bench.npu is not None else bench.e2e
    if ops is not None and stats.avg_us > 0:
        print(f"NPU GFLOPS                    : {ops / (1000 * stats.avg_us):{gflops_fmt}}")
    print("PASS!")
