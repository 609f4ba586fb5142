"""ttl.math functions the compute engine has no single SFPU op for, built
from the ones it has (blockexpr.py): each takes the operand's expression
tree and the function's numeric parameters (C++ float expressions) and
returns the tree of the composition. The results follow the functions'
definitions within the accuracy of the ops they use (docs/ttlang.md);
their edge cases are those of the composition (softplus of a large input
overflows in exp, as a direct evaluation would).
"""

from .blockexpr import Node

__all__ = ["COMPOSED", "PARAMETERS"]


def _k(value, like):
    """A constant of `like`'s shape (a fill)."""
    return Node("scalar", like.shape, param=f"float({value})", line=like.line)


def _bin(op, a, b):
    return Node("binary", a.shape or b.shape, [a, b], op=op, line=a.line)


def _un(op, a, param=""):
    return Node("unary", a.shape, [a], op=op, param=param, line=a.line)


def _exp_minus_one(x):
    return _bin("-", _un("exp", x), _k(1.0, x))


def _elu_core(x, alpha):
    """max(x, 0) + min(alpha * (exp(x) - 1), 0)."""
    return _bin("+", _un("relu", x), _bin("min", _bin("*", _k(alpha, x), _exp_minus_one(x.copy())), _k(0.0, x)))


def _softplus(x):
    return _un("log", _bin("+", _un("exp", x), _k(1.0, x)))


def _clamp(x, lo, hi):
    return _bin("max", _bin("min", x, _k(hi, x)), _k(lo, x))


# name -> (parameter names with defaults as C++ floats, builder(x, *params))
PARAMETERS = {
    "log2": ((), lambda x: _bin("*", _un("log", x), _k("1.4426950408889634f", x))),
    "log10": ((), lambda x: _bin("*", _un("log", x), _k("0.4342944819032518f", x))),
    "softplus": ((), _softplus),
    "mish": ((), lambda x: _bin("*", x, _un("tanh", _softplus(x.copy())))),
    "relu6": ((), lambda x: _un("relu_max", x, param="6.0f")),
    "elu": ((("alpha", "1.0f"),), _elu_core),
    "selu": ((("scale", "1.0507009873554805f"), ("alpha", "1.6732632423543772f")),
             lambda x, scale, alpha: _bin("*", _k(scale, x), _elu_core(x, alpha))),
    "celu": ((("alpha", "1.0f"),),
             lambda x, alpha: _bin("+", _un("relu", x),
                                   _bin("min", _bin("*", _k(alpha, x),
                                                    _exp_minus_one(_bin("/", x.copy(), _k(alpha, x)))),
                                        _k(0.0, x)))),
    "hardtanh": ((("min_val", "-1.0f"), ("max_val", "1.0f")), _clamp),
    "clamp": ((("min", None), ("max", None)), _clamp),
    "rsub": ((("value", None),), lambda x, value: _bin("-", _k(value, x), x)),
    "pow": ((("exponent", None),), None),  # an integer exponent: power_tile (compiler_compute.py)
}
COMPOSED = set(PARAMETERS)
