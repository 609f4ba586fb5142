"""ttl.math: the block math functions of compute kernels (TT-Lang spec,
Appendix B). Each is a name the compiler lowers (ttl/blockexpr.py); calling
one in Python raises. Functions the spec lists that tessel's compute engine
cannot express yet exist too, so that a kernel using one fails to compile
with an error naming the function and the line, not with a missing name.
"""

from . import blockexpr

__all__ = []

# The functions the compiler lowers, and the spec's others (a clear compile error).
_LOWERED = (sorted(blockexpr.UNARY) + sorted(blockexpr.UNARY_PARAM) + ["max", "min", "reduce_sum", "reduce_max", "typecast"])
_NOT_YET = ["tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "expm1", "log1p", "logp1",
            "hardsigmoid", "hardtanh", "softsign", "softplus", "signbit", "frac", "trunc", "round", "selu", "elu",
            "celu", "prelu", "rsub", "clamp", "threshold", "erf", "erfc", "erfinv", "isnan", "isinf", "log2", "log10",
            "pow", "mish", "hardswish", "relu6"]


def _marker(name):
    def fn(*args, **kwargs):
        raise RuntimeError(f"ttl.math.{name} runs only inside a compute kernel function; tessel compiles kernel "
                           "functions to C++ and never calls them in Python")

    fn.__name__ = fn.__qualname__ = name
    fn._ttl_op = name
    return fn


for _name in _LOWERED + _NOT_YET:
    globals()[_name] = _marker(_name)
    __all__.append(_name)
# The spec's spelling of negation.
neg = globals()["neg"]


def kind_of(fn):
    """(op name, None) when fn is one of these functions, else None."""
    op = getattr(fn, "_ttl_op", None)
    if op is None or globals().get(op) is not fn:
        return None
    return (op, None)
