"""ttl.math: the block math functions of compute kernels (TT-Lang spec,
Appendix B). Each is a name the compiler lowers (ttl/blockexpr.py); calling
one in Python raises. Functions the spec lists that tessel's compute engine
cannot express yet exist too, so that a kernel using one fails to compile
with an error naming the function and the line, not with a missing name.
"""

from . import blockexpr
from .composed import COMPOSED

__all__ = []

# The functions the compiler lowers, and the spec's others (a clear compile error).
_LOWERED = (sorted(set(blockexpr.UNARY) - set(blockexpr.COMPARE.values()) - {"exp_approx"}) + sorted(blockexpr.UNARY_PARAM) + sorted(blockexpr.COMPARE)
            + ["max", "min", "reduce_sum", "reduce_max", "typecast", "threshold", "prelu", "add", "sub", "mul", "div",
               "round"]
            + sorted(COMPOSED))
_NOT_YET = []


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
    """The op name when fn is one of these functions, else None."""
    op = getattr(fn, "_ttl_op", None)
    return op if op is not None and globals().get(op) is fn else None
