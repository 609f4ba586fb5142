"""ttl.utils.correctness: comparing a program's output with a reference.

Each check takes torch tensors, numpy arrays or ttnn tensors (read back
with ttnn.to_torch) and computes in float64 with numpy, so it works with or
without torch. A failed check raises AssertionError with the numbers.

- assert_pcc(golden, actual, threshold=0.99): Pearson correlation >= threshold
- assert_allclose(actual, expected, rtol=1e-5, atol=1e-8, verbose=True):
  |actual - expected| <= atol + rtol * |expected| everywhere, with the
  worst absolute and relative errors and where they are on failure
- assert_with_ulp(expected_result, actual_result, ulp_threshold=10,
  allow_nonfinite=False): the largest error in units of the last place of
  the actual result's type (bfloat16, float32, float64) is at most the
  threshold; returns (passed, message)
"""

import numpy as np

__all__ = ["assert_allclose", "assert_pcc", "assert_with_ulp", "comp_pcc", "comp_ulp", "ulp"]

# Mantissa bits of the types results come in: the ULP is 2^(exponent - bits).
_MANTISSA_BITS = {"bfloat16": 7, "float16": 10, "float32": 23, "float64": 52}


def _type_name(value):
    """The element type's name: 'bfloat16', 'float32', ... ('float32' for ttnn's block floats)."""
    dtype = getattr(value, "dtype", None)
    name = str(dtype).rsplit(".", 1)[-1].lower()
    if name in ("bfloat16", "datatype.bfloat16"):
        return "bfloat16"
    return name if name in _MANTISSA_BITS else "float32"


def _array(value, what):
    """A float64 numpy array of a torch tensor, numpy array, ttnn tensor or number."""
    module = type(value).__module__.split(".")[0]
    if module == "tessel" and hasattr(value, "_ttl_tensor_of"):
        from ...ttnn import to_torch

        value = to_torch(value)
        module = type(value).__module__.split(".")[0]
    if module == "torch":
        return value.detach().cpu().double().numpy()
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be a torch tensor, a numpy array or a ttnn.Tensor, got "
                        f"{type(value).__name__}") from None


def comp_pcc(golden, actual):
    """The Pearson correlation of the two (1.0 when both are the same constant)."""
    g, a = _array(golden, "comp_pcc: golden").ravel(), _array(actual, "comp_pcc: actual").ravel()
    if g.shape != a.shape:
        raise AssertionError(f"comp_pcc: shapes differ: golden has {g.size} values, actual {a.size}")
    if np.array_equal(g, a):
        return 1.0
    if g.std() == 0 or a.std() == 0:
        return 0.0
    return float(np.corrcoef(g, a)[0, 1])


def assert_pcc(golden, actual, threshold=0.99):
    """Assert the Pearson correlation of golden and actual is at least threshold."""
    pcc = comp_pcc(golden, actual)
    assert pcc >= threshold, f"Expected pcc {pcc} >= {threshold}\ngolden:\n{golden}\nactual:\n{actual}"


def assert_allclose(actual, expected, rtol=1e-5, atol=1e-8, verbose=True):
    """Assert |actual - expected| <= atol + rtol * |expected| everywhere."""
    a, e = _array(actual, "assert_allclose: actual"), _array(expected, "assert_allclose: expected")
    if a.shape != e.shape:
        raise AssertionError(f"Shape mismatch: actual {a.shape} vs expected {e.shape}")
    diff = np.abs(a - e)
    bad = ~(diff <= atol + rtol * np.abs(e))
    if not bad.any():
        return
    relative = diff / (np.abs(e) + 1e-10)
    if not verbose:
        raise AssertionError(f"Tensors not close: max_abs_error={np.nanmax(diff):.6e}, "
                             f"max_rel_error={np.nanmax(relative):.6e}, rtol={rtol}, atol={atol}")
    worst_abs = np.unravel_index(np.nanargmax(diff), a.shape) if a.ndim else ()
    worst_rel = np.unravel_index(np.nanargmax(relative), a.shape) if a.ndim else ()
    raise AssertionError(
        "Tensor comparison failed!\n"
        f"  Absolute error: mean {np.nanmean(diff):.6e}, max {diff[worst_abs]:.6e} at {tuple(map(int, worst_abs))} "
        f"(actual={a[worst_abs]:.6f}, expected={e[worst_abs]:.6f})\n"
        f"  Relative error: mean {np.nanmean(relative):.6e}, max {relative[worst_rel]:.6e} at "
        f"{tuple(map(int, worst_rel))} (actual={a[worst_rel]:.6f}, expected={e[worst_rel]:.6f})\n"
        f"  Thresholds: rtol {rtol}, atol {atol}\n"
        f"  Shape: {a.shape}; mismatched elements: {int(bad.sum())} / {a.size}")


def ulp(x, type_name="float32"):
    """The unit in the last place of each |x| in type `type_name` (2^(e - mantissa bits))."""
    bits = _MANTISSA_BITS[type_name]
    x = np.abs(np.asarray(x, dtype=np.float64))
    smallest = {"bfloat16": -126, "float16": -14, "float32": -126, "float64": -1022}[type_name]
    with np.errstate(divide="ignore"):
        exponent = np.floor(np.log2(np.where(x > 0, x, 1.0)))
    exponent = np.maximum(np.where(x > 0, exponent, smallest), smallest)
    return np.ldexp(1.0, (exponent - bits).astype(np.int64))


def comp_ulp(golden, calculated, ulp_threshold, allow_nonfinite=True):
    """(passed, message): the largest |calculated - golden| in ULPs of the
    calculated type, measured at golden."""
    type_name = _type_name(calculated)
    g = _array(golden, "comp_ulp: golden")
    c = _array(calculated, "comp_ulp: calculated")
    if g.size == 0 and c.size == 0:
        return True, "Both tensors are empty"
    if not allow_nonfinite and not np.all(np.isfinite(c)):
        return False, "Calculated tensor contains non-finite values"
    same = (np.isnan(g) == np.isnan(c)) & (np.isinf(g) == np.isinf(c))
    if not same.all() or not np.array_equal(g[np.isinf(g)], c[np.isinf(c)]):
        return False, "Tensors are not finite at the same positions"
    finite = np.isfinite(g)
    delta = np.abs(c[finite] - g[finite]) / ulp(g[finite], type_name)
    worst = float(delta.max()) if delta.size else 0.0
    return worst <= ulp_threshold, f"Max ULP Delta: {worst}"


def assert_with_ulp(expected_result, actual_result, ulp_threshold=10, allow_nonfinite=False):
    """Assert the error is at most ulp_threshold ULPs; returns (passed, message)."""
    e, a = _array(expected_result, "assert_with_ulp: expected_result"), _array(actual_result,
                                                                              "assert_with_ulp: actual_result")
    assert list(e.shape) == list(a.shape), f"list(expected_result.shape)={list(e.shape)} vs " \
                                           f"list(actual_result.shape)={list(a.shape)}"
    passed, message = comp_ulp(expected_result, actual_result, ulp_threshold, allow_nonfinite)
    assert passed, message
    return passed, message
