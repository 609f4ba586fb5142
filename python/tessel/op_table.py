"""The op table: every element-wise op of tessel's compute engine, as data.

Each row (an `Op`) says how to run the op on the simulated device and how to
check it: the compute-API calls its kernel makes, a numpy reference, the
inputs the reference is defined on, and the error allowed per data format and
DST mode. `tessel.ops` generates one public function per row, and
tests/python/test_ops.py generates the tests from the same rows; the test
also checks that the rows and the engine's own list of ops
(`tessel._tessel.ops.engine_ops()`) agree.

Kernel text. `init` runs once before the tile loop, `tile` once per tile with
the inputs in DST tiles 0 (and 1) for an SFPU op, or in the front pages of
CBs `cb_in0` (and `cb_in1`) for an FPU op; the result must end in DST tile 0.
`{name}` in either is replaced by the value of the op's parameter `name`
(a C++ variable read from the compute kernel's common runtime args for a
runtime parameter, a `(uint32_t)DataFormat::X` constant for an output
format), and `{in_format}` by the input format's constant.

References. A reference takes float64 arrays, the values the device computes
on (the stored inputs as the engine's registers hold them), and the op's
parameters as keywords, and returns the exact result in float64. The
tolerances then cover only what the device adds: the op's own rounding, the
bfloat16 rounding of a 16-bit DST, and the packing into the output format.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import formats

FORMATS = ("Float16_b", "Float32", "Bfp8_b")
"""The data formats tessel.ops runs in (every op has a tolerance for each)."""

TYPECAST_FORMATS = ("Float32", "Float16_b", "Bfp8_b", "Bfp4_b", "Int32", "UInt32", "UInt16", "UInt8")
"""The formats typecast_tile converts to (kernel/include/tessel/sfpu.h)."""


@dataclass(frozen=True)
class Param:
    """A parameter of an op, passed to its function as a keyword.

    kind: "float" (a runtime word: the value's float32 bits), "int" (a
    runtime word, 0..2^32-1) or "output_format" (compile time: the output
    CB's format, one of TYPECAST_FORMATS). `example` is the value the
    generated tests use."""

    name: str
    kind: str
    doc: str
    example: object


@dataclass(frozen=True)
class Domain:
    """Where the reference is defined and the tests draw inputs: uniform in
    [lo, hi], or with signed_magnitude |x| uniform in [lo, hi] and a random
    sign (keeps divisors away from zero). Domains that exclude zero span less
    than 2^6, so that no Bfp8_b input rounds to zero."""

    lo: float
    hi: float
    signed_magnitude: bool = False


@dataclass(frozen=True)
class Tolerance:
    """|result - reference| <= atol + rtol * |reference| + group * the
    largest |reference| of the element's 16-value block-float group (the
    unit of Bfp8_b's shared exponent: one group is 16 consecutive values of
    one row of a 16x16 tile face)."""

    rtol: float
    atol: float = 2.0**-126
    group: float = 0.0


@dataclass(frozen=True)
class Op:
    """One row of the table. `call` is the compute engine's name for the op
    (as engine_ops() lists it); `name` is the tessel.ops function."""

    name: str
    call: str
    engine: str  # "FPU" or "SFPU"
    arity: int
    init: str
    tile: str
    reference: Callable[..., np.ndarray]
    domains: tuple[Domain, ...]
    doc: str
    params: tuple[Param, ...] = ()
    tolerances: tuple[tuple[str, bool, Tolerance], ...] = ()
    header: str = ""  # the op's own compute-API header, when the common ones lack it

    def tolerance(self, format: str, fp32_dest_acc: bool) -> Tolerance:
        """The tolerance for `format` (a name in FORMATS) and the DST mode."""
        for f, fp32, t in self.tolerances:
            if f == format and fp32 == fp32_dest_acc:
                return t
        raise KeyError(f"op table: {self.name} has no tolerance for {format} with fp32_dest_acc={fp32_dest_acc}")

    @property
    def output_format_param(self) -> "Param | None":
        """The parameter that sets the output format (typecast's `to`), if any."""
        return next((p for p in self.params if p.kind == "output_format"), None)


# Every op here is computed exactly: a correctly rounded float32 result, or
# one IEEE float32 operation (docs/numerics.md, "SFPU ops" and "Compute").
# What the data path adds to it, by output format and DST mode:
# - a 16-bit DST rounds every result to bfloat16 (2^-8 relative, results
#   below 2^-126 flush to zero); so does a Float16_b output CB;
# - a Float32 output from a 32-bit DST is the float32 result (2^-24, plus
#   a float32 rounding of the reference);
# - a Bfp8_b output is within one LSB of its group's shared exponent
#   (7 magnitude bits: 2^-6 of the group's largest value, which covers the
#   half-LSB rounding and the carry-out clamp).
_BF16 = Tolerance(rtol=2.0**-8 + 2.0**-22)
_F32 = Tolerance(rtol=2.0**-22)
EXACT = (
    ("Float16_b", False, _BF16),
    ("Float16_b", True, _BF16),
    ("Float32", False, _BF16),
    ("Float32", True, _F32),
    ("Bfp8_b", False, Tolerance(rtol=_BF16.rtol, group=2.0**-6)),
    ("Bfp8_b", True, Tolerance(rtol=_F32.rtol, group=2.0**-6)),
)

_SYMMETRIC = Domain(-4.0, 4.0)


def _sfpu(name, reference, domain, doc, *, call=None, init=None, tile=None, params=(), header=""):
    call = call or f"{name}_tile"
    return Op(name=name, call=call, engine="SFPU", arity=1, init=init or f"{call}_init();",
              tile=tile or f"{call}(0);", reference=reference, domains=(domain,), doc=doc, params=params,
              tolerances=EXACT, header=header)


def _sfpu_binary(name, reference, b_domain, doc, *, a_domain=None, init=None, tile=None, header="", call=None):
    call = call or f"{name}_tile"
    return Op(name=name, call=call, engine="SFPU", arity=2, init=init or f"{call}_init();",
              tile=tile or f"{call}(0, 1, 0);", reference=reference, domains=(a_domain or _SYMMETRIC, b_domain),
              doc=doc, tolerances=EXACT, header=header)


def _fpu(name, reference, doc):
    call = f"{name}_tiles"
    return Op(name=name, call=call, engine="FPU", arity=2, init=f"{call}_init(cb_in0, cb_in1);",
              tile=f"{call}(cb_in0, cb_in1, 0, 0, 0);", reference=reference, domains=(_SYMMETRIC, _SYMMETRIC),
              doc=doc, tolerances=EXACT)


_erfc = np.frompyfunc(math.erfc, 1, 1)
_erf = np.frompyfunc(math.erf, 1, 1)


def _math(f):
    """A float64 array function of a math-module function."""
    vectorized = np.frompyfunc(f, 1, 1)
    return lambda x: vectorized(x).astype(np.float64)


def _erfinv(x):
    """The y with erf(y) = x: a closed-form start, then Newton steps."""
    ln = np.log((1.0 - x) * (1.0 + x))
    k = 2.0 / (math.pi * 0.147) + ln / 2.0
    y = np.sign(x) * np.sqrt(np.sqrt(k * k - ln / 0.147) - k)
    for _ in range(5):
        y = y - (_erf(y).astype(np.float64) - x) / (2.0 / math.sqrt(math.pi) * np.exp(-y * y))
    return y


def _where(condition):
    return np.where(condition, 1.0, 0.0)


def _scalar(name, reference, doc):
    """Arithmetic with a scalar (binop_with_scalar.h)."""
    return _sfpu(name, reference, _SYMMETRIC, doc, init="binop_with_scalar_tile_init();",
                 tile=f"{name}_tile(0, {{scalar}});", params=(Param("scalar", "float", "the scalar", 2.5),))


def _compare(name, reference, doc):
    """Comparison with a scalar (comp.h): 1 / 0."""
    return _sfpu(name, reference, Domain(-2.0, 2.0), doc, tile=f"{name}_tile(0, {{value}});",
                 params=(Param("value", "float", "the scalar compared with", 0.5),))


def _int_compare(name, reference, doc):
    """Comparison of two integer tiles (binary_comp.h): 1 / 0."""
    call = f"{name}_tile"
    return _sfpu_binary(name, reference, _SYMMETRIC, doc, init=f"{call}_init<DataFormat::Int32>();",
                        tile=f"{call}<DataFormat::Int32>(0, 1, 0);")


def _special(name, reference, domain, doc, header, **kw):
    """An op of its own Metalium header (tessel/sfpu_special.h)."""
    return _sfpu(name, reference, domain, doc, header=f"api/compute/eltwise_unary/{header}.h", **kw)


def _bitwise(name, f, doc):
    """A bitwise op on the integers two tiles hold (binary_bitwise_sfpu.h)."""
    def reference(x, y):
        return f(np.trunc(x).astype(np.int64), np.trunc(y).astype(np.int64)).astype(np.float64)
    return _sfpu_binary(name, reference, _SYMMETRIC, doc, init="binary_bitwise_tile_init();",
                        tile=f"{name}_tile<DataFormat::Int32>(0, 1, 0);", header="api/compute/binary_bitwise_sfpu.h")


def _bessel_series(x, order):
    """I0 or I1 of x by their power series (|x| <= 4 here: 40 terms are plenty)."""
    half = x / 2.0
    term = np.ones_like(x) if order == 0 else half.copy()
    total = term.copy()
    for k in range(1, 40):
        term = term * half * half / (k * (k + order))
        total = total + term
    return total


def _nextafter_bf16(x, y):
    """x's float32 bits stepped by 0x10000 (one bfloat16 ULP) toward y; from a
    zero, the smallest bfloat16 denormal of y's sign; y where x == y."""
    a = x.astype(np.float32)
    bits = a.view(np.int32).astype(np.int64)
    up = (y > x) == (x >= 0)
    stepped = np.where(up, bits + 0x10000, bits - 0x10000).astype(np.uint32).view(np.float32).astype(np.float64)
    tiny = np.where(y > 0, 1.0, -1.0) * np.float64(np.uint32(0x10000).view(np.float32))
    return np.where(x == y, y, np.where(x == 0, tiny, stepped))


# i0 follows tt-llk's truncated series: within 2e-6 of I0 on [-4, 4]
# (docs/numerics.md), on top of what the data path adds.
_I0 = tuple((f, fp32, Tolerance(rtol=t.rtol + 2e-6, atol=t.atol, group=t.group)) for f, fp32, t in EXACT)


def _integers(f):
    """A reference on the integers two tiles hold (a fraction dropped toward zero)."""
    return lambda x, y: f(np.trunc(x).astype(np.int64), np.trunc(y).astype(np.int64)).astype(np.float64)


def _wrap(fmt):
    """An integer wrapped to `fmt`'s range, as the format's integer unit does."""
    if fmt == "Int32":
        return lambda v: (v.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32).astype(np.int32)
    return lambda v: v.astype(np.int64) & (0xFFFFFFFF if fmt == "UInt32" else 0xFFFF)


_INT_DIVISOR = Domain(1.0, 4.0, signed_magnitude=True)
_NATURAL = Domain(0.0, 4.0)


def _int32(name, f, doc, header, *, b_domain=_SYMMETRIC):
    """An int32 op of two tiles (sfpu_integer.h)."""
    return _sfpu_binary(name, _integers(f), b_domain, doc, header=f"api/compute/{header}.h")


def _per_format(name, call, init, f, doc, header):
    """An integer op that wraps to its tiles' format: one row per format."""
    return tuple(
        _sfpu_binary(f"{name}_{fmt.lower()}", _integers(lambda x, y, w=_wrap(fmt): w(f(x, y))), _NATURAL,
                     f"{doc} ({fmt})", a_domain=_NATURAL, init=f"{init}();",
                     tile=f"{call}<DataFormat::{fmt}>(0, 1, 0);", header=f"api/compute/{header}.h",
                     call=f"{call}<{fmt}>")
        for fmt in ("Int32", "UInt32", "UInt16"))


def _softplus(x):
    return np.where(x > 0.0, x + np.log1p(np.exp(-np.abs(x))), np.log1p(np.exp(np.minimum(x, 0.0))))


_lgamma = _math(math.lgamma)


def _lgamma_stirling(x):
    return _lgamma(np.where(x < 0.5, 1.0 - x, x))


def _gelu(x):
    return 0.5 * x * _erfc(-x / math.sqrt(2.0)).astype(np.float64)


def _saturate(lo, hi):
    return lambda x: np.clip(np.rint(x), lo, hi)


def _bf16(x):
    return formats.bf16_values(formats.bf16_bits(x.astype(np.float32))).astype(np.float64)


_TYPECAST = {
    "Int32": _saturate(-2.0**31, 2.0**31 - 1),
    "UInt32": _saturate(0.0, 2.0**32 - 1),
    "UInt16": _saturate(0.0, 65535.0),
    "UInt8": _saturate(0.0, 255.0),
    "Float16_b": _bf16,
}


def _typecast(x, *, to):
    return _TYPECAST.get(to, lambda v: v)(x)


OPS = (
    # Exponentials, logarithm, roots, reciprocal.
    _sfpu("exp", np.exp, Domain(-10.0, 10.0), "e^a", init="exp_tile_init<false>();", tile="exp_tile<false>(0);"),
    _sfpu("exp2", np.exp2, Domain(-14.0, 14.0), "2^a"),
    _sfpu("log", np.log, Domain(0.25, 12.0), "ln(a)", init="log_tile_init<false>();",
          tile="log_tile<false>(0);"),
    _sfpu("sqrt", np.sqrt, Domain(0.0, 100.0), "sqrt(a)", tile="sqrt_tile<false>(0);"),
    _sfpu("rsqrt", lambda x: 1.0 / np.sqrt(x), Domain(0.25, 12.0), "1 / sqrt(a)",
          init="rsqrt_tile_init<false>();", tile="rsqrt_tile<false, false>(0);"),
    _sfpu("recip", lambda x: 1.0 / x, Domain(0.25, 8.0, signed_magnitude=True), "1 / a"),
    # The ReLU family.
    _sfpu("relu", lambda x: np.maximum(x, 0.0), _SYMMETRIC, "max(a, 0)"),
    _sfpu("relu_max", lambda x, *, upper_limit: np.minimum(np.maximum(x, 0.0), upper_limit), _SYMMETRIC,
          "min(max(a, 0), upper_limit)", tile="relu_max_tile(0, {upper_limit});",
          params=(Param("upper_limit", "float", "the upper limit", 2.5),)),
    _sfpu("relu_min", lambda x, *, lower_limit: np.maximum(x, lower_limit), _SYMMETRIC, "max(a, lower_limit)",
          tile="relu_min_tile(0, {lower_limit});", params=(Param("lower_limit", "float", "the lower limit", 0.5),)),
    _sfpu("leaky_relu", lambda x, *, slope: np.where(x < 0.0, x * slope, x), _SYMMETRIC,
          "a * slope where a < 0, else a", tile="leaky_relu_tile(0, {slope});",
          params=(Param("slope", "float", "the slope below zero", 0.125),)),
    # Activations (exact forms: gelu is the erf form).
    _sfpu("gelu", _gelu, Domain(-6.0, 6.0), "gelu(a) = 0.5 a erfc(-a / sqrt(2)), the erf form",
          init="gelu_tile_init<false>();", tile="gelu_tile<false>(0);"),
    _sfpu("sigmoid", lambda x: 1.0 / (1.0 + np.exp(-x)), Domain(-10.0, 10.0), "1 / (1 + e^-a)",
          init="sigmoid_tile_init<false>();", tile="sigmoid_tile<VectorMode::RC, false>(0);"),
    _sfpu("tanh", np.tanh, Domain(-5.0, 5.0), "tanh(a)", init="tanh_tile_init<false>();",
          tile="tanh_tile<false>(0);"),
    _sfpu("silu", lambda x: x / (1.0 + np.exp(-x)), Domain(-8.0, 8.0), "a * sigmoid(a)"),
    # Sign and magnitude.
    _sfpu("abs", np.abs, _SYMMETRIC, "|a|"),
    _sfpu("negative", np.negative, _SYMMETRIC, "-a"),
    _sfpu("sign", np.sign, _SYMMETRIC, "1 where a > 0, -1 where a < 0, a at zeros"),
    _sfpu("square", np.square, _SYMMETRIC, "a * a"),
    _sfpu("power", lambda x, *, exponent: x**exponent, Domain(-3.0, 3.0), "a^exponent",
          tile="power_tile(0, {exponent});",
          params=(Param("exponent", "int", "the exponent, a non-negative integer (a^0 = 1)", 3),)),
    # Trigonometry.
    _sfpu("sin", np.sin, Domain(-6.3, 6.3), "sin(a)"),
    _sfpu("cos", np.cos, Domain(-6.3, 6.3), "cos(a)"),
    # Rounding.
    _sfpu("floor", np.floor, Domain(-8.0, 8.0), "floor(a), the largest integer <= a"),
    _sfpu("ceil", np.ceil, Domain(-8.0, 8.0), "ceil(a), the smallest integer >= a"),
    # Fill and typecast.
    _sfpu("fill", lambda x, *, value: np.full_like(x, value), _SYMMETRIC, "value everywhere (a gives the shape)",
          tile="fill_tile_bitcast(0, {value});", params=(Param("value", "float", "the value", -1.75),)),
    _sfpu("typecast", _typecast, Domain(-1000.0, 1000.0),
          "a converted to the format `to`: integers round to nearest (ties to even) and saturate, Float16_b "
          "rounds to bfloat16", tile="typecast_tile<{in_format}, {to}>(0);",
          params=(Param("to", "output_format", "the output format, one of " + ", ".join(TYPECAST_FORMATS),
                        "Int32"),)),
    # Comparisons with zero and with a scalar: 1 where they hold, else 0.
    _sfpu("eqz", lambda x: _where(x == 0.0), Domain(-2.0, 2.0), "1 where a == 0, else 0"),
    _sfpu("nez", lambda x: _where(x != 0.0), Domain(-2.0, 2.0), "1 where a != 0, else 0"),
    _sfpu("ltz", lambda x: _where(x < 0.0), Domain(-2.0, 2.0), "1 where a < 0, else 0"),
    _sfpu("gtz", lambda x: _where(x > 0.0), Domain(-2.0, 2.0), "1 where a > 0, else 0"),
    _sfpu("lez", lambda x: _where(x <= 0.0), Domain(-2.0, 2.0), "1 where a <= 0, else 0"),
    _sfpu("gez", lambda x: _where(x >= 0.0), Domain(-2.0, 2.0), "1 where a >= 0, else 0"),
    _compare("unary_eq", lambda x, *, value: _where(x == value), "1 where a == value, else 0"),
    _compare("unary_ne", lambda x, *, value: _where(x != value), "1 where a != value, else 0"),
    _compare("unary_gt", lambda x, *, value: _where(x > value), "1 where a > value, else 0"),
    _compare("unary_lt", lambda x, *, value: _where(x < value), "1 where a < value, else 0"),
    _compare("unary_ge", lambda x, *, value: _where(x >= value), "1 where a >= value, else 0"),
    _compare("unary_le", lambda x, *, value: _where(x <= value), "1 where a <= value, else 0"),
    # Classification and logic.
    _sfpu("isinf", lambda x: _where(np.isinf(x)), _SYMMETRIC, "1 where a is infinite, else 0"),
    _sfpu("isposinf", lambda x: _where(np.isposinf(x)), _SYMMETRIC, "1 where a is +inf, else 0"),
    _sfpu("isneginf", lambda x: _where(np.isneginf(x)), _SYMMETRIC, "1 where a is -inf, else 0"),
    _sfpu("isnan", lambda x: _where(np.isnan(x)), _SYMMETRIC, "1 where a is NaN, else 0"),
    _sfpu("isfinite", lambda x: _where(np.isfinite(x)), _SYMMETRIC, "1 where a is finite, else 0"),
    _sfpu("signbit", lambda x: _where(np.signbit(x)), _SYMMETRIC, "1 where a's sign bit is set, else 0"),
    _sfpu("logical_not", lambda x: _where(x == 0.0), Domain(-2.0, 2.0), "1 where a == 0, else 0",
          tile="logical_not_tile<(DataFormat){in_format}>(0);"),
    _sfpu("heaviside", lambda x, *, value: np.where(x < 0.0, 0.0, np.where(x > 0.0, 1.0, value)), Domain(-2.0, 2.0),
          "0 where a < 0, 1 where a > 0, value at 0", tile="heaviside_tile(0, {value});",
          params=(Param("value", "float", "the result at zero", 0.5),)),
    # Special and inverse functions.
    _sfpu("erf", _math(math.erf), Domain(-3.0, 3.0), "erf(a)", init="erf_tile_init<false>();",
          tile="erf_tile<false>(0);"),
    _sfpu("erfc", _math(math.erfc), Domain(-2.0, 4.0), "erfc(a) = 1 - erf(a)"),
    _sfpu("erfinv", _erfinv, Domain(-0.9, 0.9), "erfinv(a), the y with erf(y) = a"),
    _sfpu("tan", np.tan, Domain(-1.4, 1.4), "tan(a)"),
    _sfpu("asin", np.arcsin, Domain(-1.0, 1.0), "asin(a)"),
    _sfpu("acos", np.arccos, Domain(-1.0, 1.0), "acos(a)"),
    _sfpu("atan", np.arctan, Domain(-10.0, 10.0), "atan(a)"),
    _sfpu("sinh", np.sinh, Domain(-5.0, 5.0), "sinh(a)"),
    _sfpu("cosh", np.cosh, Domain(-5.0, 5.0), "cosh(a)"),
    _sfpu("asinh", np.arcsinh, Domain(-10.0, 10.0), "asinh(a)"),
    _sfpu("acosh", np.arccosh, Domain(1.0, 10.0), "acosh(a)"),
    _sfpu("atanh", np.arctanh, Domain(-0.9, 0.9), "atanh(a)"),
    _sfpu("log1p", np.log1p, Domain(-0.5, 10.0), "ln(1 + a)"),
    _sfpu("expm1", np.expm1, Domain(-5.0, 5.0), "e^a - 1"),
    _sfpu("log_with_base", lambda x, *, base_scale: np.log(x) * base_scale, Domain(0.25, 12.0),
          "ln(a) * base_scale (base_scale = 1 / ln(base))", tile="log_with_base_tile(0, {base_scale});",
          params=(Param("base_scale", "float", "1 / ln(base)", 1.0 / math.log(2.0)),)),
    # More rounding (rounding_op_tile_init configures floor, ceil and these).
    _sfpu("trunc", np.trunc, Domain(-8.0, 8.0), "trunc(a), a rounded toward zero",
          init="rounding_op_tile_init();"),
    _sfpu("frac", lambda x: x - np.trunc(x), Domain(-8.0, 8.0), "a - trunc(a)", init="rounding_op_tile_init();"),
    _sfpu("round", lambda x, *, decimals: np.round(x, decimals), Domain(-8.0, 8.0),
          "a rounded half to even at `decimals` decimal places", init="rounding_op_tile_init();",
          tile="round_tile(0, (int32_t){decimals});",
          params=(Param("decimals", "int", "the decimal places", 1),)),
    # More activations.
    _sfpu("elu", lambda x, *, alpha: np.where(x > 0.0, x, alpha * np.expm1(x)), _SYMMETRIC,
          "a where a > 0, else alpha (e^a - 1)", tile="elu_tile(0, {alpha});",
          params=(Param("alpha", "float", "the scale below zero", 0.5),)),
    _sfpu("selu", lambda x, *, scale, alpha: scale * np.where(x > 0.0, x, alpha * np.expm1(x)), _SYMMETRIC,
          "scale (a where a > 0, else alpha (e^a - 1))", tile="selu_tile(0, {scale}, {alpha});",
          params=(Param("scale", "float", "the scale", 1.0507009873554805),
                  Param("alpha", "float", "the scale below zero", 1.6732632423543772))),
    _sfpu("prelu", lambda x, *, slope: np.where(x < 0.0, x * slope, x), _SYMMETRIC,
          "a * slope where a < 0, else a", tile="prelu_tile(0, {slope});",
          params=(Param("slope", "float", "the slope below zero", 0.25),)),
    _sfpu("hardsigmoid", lambda x: np.clip(x / 6.0 + 0.5, 0.0, 1.0), _SYMMETRIC, "clamp(a / 6 + 1/2, 0, 1)"),
    _sfpu("hardswish", lambda x: x * np.clip(x / 6.0 + 0.5, 0.0, 1.0), _SYMMETRIC, "a * hardsigmoid(a)"),
    _sfpu("softsign", lambda x: x / (1.0 + np.abs(x)), _SYMMETRIC, "a / (1 + |a|)"),
    _sfpu("hardtanh", lambda x, *, low, high: np.clip(x, low, high), _SYMMETRIC, "a clamped to [low, high]",
          tile="hardtanh_tile(0, {low}, {high});",
          params=(Param("low", "float", "the lower limit", -0.5), Param("high", "float", "the upper limit", 2.0))),
    _sfpu("clamp", lambda x, *, low, high: np.clip(x, low, high), _SYMMETRIC, "a clamped to [low, high]",
          tile="clamp_tile(0, {low}, {high});",
          params=(Param("low", "float", "the lower limit", -1.5), Param("high", "float", "the upper limit", 0.75))),
    _sfpu("threshold", lambda x, *, threshold, value: np.where(x > threshold, x, value), _SYMMETRIC,
          "a where a > threshold, else value", tile="threshold_tile(0, {threshold}, {value});",
          params=(Param("threshold", "float", "the threshold", 1.0),
                  Param("value", "float", "the value at or below it", -7.0))),
    # Ops of their own headers (tessel/sfpu_special.h).
    _special("cbrt", np.cbrt, Domain(-8.0, 8.0), "the cube root of a", "cbrt"),
    _special("hardmish", lambda x: x * np.clip(x + 2.8, 0.0, 5.0) / 5.0, _SYMMETRIC, "a clamp(a + 2.8, 0, 5) / 5",
             "hardmish"),
    _special("lgamma", _lgamma, Domain(0.25, 8.0), "ln|gamma(a)|", "lgamma"),
    _special("lgamma_stirling", _lgamma_stirling, Domain(-6.0, 6.0),
             "ln gamma(z), z = 1 - a where a < 0.5, else a (the first step of ttnn's lgamma)", "lgamma"),
    _special("softcap", lambda x, *, cap, cap_recip: cap * np.tanh(x * cap_recip), Domain(-8.0, 8.0),
             "cap tanh(a cap_recip), cap_recip = 1 / cap", "softcap", tile="softcap_tile(0, {cap}, {cap_recip});",
             params=(Param("cap", "float", "the cap", 2.5), Param("cap_recip", "float", "1 / cap", 0.4))),
    _special("log1p_exp", _softplus, Domain(-8.0, 8.0), "ln(1 + e^a) (softplus)", "log1p",
             init="log1p_exp_tile_init<false>();", tile="log1p_exp_tile<false>(0);"),
    _special("celu", lambda x, *, alpha, alpha_recip: np.where(x > 0.0, x, alpha * np.expm1(x * alpha_recip)),
             _SYMMETRIC, "a where a > 0, else alpha (e^(a alpha_recip) - 1)", "activations",
             tile="celu_tile(0, {alpha}, {alpha_recip});",
             params=(Param("alpha", "float", "alpha", 2.0), Param("alpha_recip", "float", "1 / alpha", 0.5))),
    _special("softshrink", lambda x, *, lambd: np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, 0.0)),
             _SYMMETRIC, "a - lambd above lambd, a + lambd below -lambd, else 0", "activations",
             tile="softshrink_tile(0, {lambd});", params=(Param("lambd", "float", "the threshold", 0.5),)),
    _special("hardshrink", lambda x, *, lambd: np.where(np.abs(x) > lambd, x, 0.0), _SYMMETRIC,
             "a where |a| > lambd, else 0", "activations", tile="hardshrink_tile(0, {lambd});",
             params=(Param("lambd", "float", "the threshold", 0.5),)),
    _special("logsigmoid", lambda x: -_softplus(-x), Domain(-8.0, 8.0), "ln(sigmoid(a)) = -ln(1 + e^-a)",
             "logsigmoid"),
    _special("rpow", lambda x, *, base: np.power(base, x), Domain(-6.0, 6.0), "base^a", "rpow",
             tile="rpow_tile(0, {base});", params=(Param("base", "float", "the base", 2.5),)),
    _special("gelu_derivative", lambda x: 0.5 * _erfc(-x / math.sqrt(2.0)).astype(np.float64)
             + x * np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi), Domain(-6.0, 6.0),
             "the derivative of gelu's erf form, Phi(a) + a phi(a)", "gelu", init="gelu_derivative_tile_init<false>();",
             tile="gelu_derivative_tile<false>(0);"),
    _special("gelu_tanh", lambda x: x / (1.0 + np.exp(-2.0 * math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3))),
             Domain(-6.0, 6.0), "gelu's tanh form, 0.5 a (1 + tanh(sqrt(2 / pi) (a + 0.044715 a^3)))", "gelu"),
    _special("tanh_derivative", lambda x: 1.0 / np.cosh(x) ** 2, Domain(-5.0, 5.0), "1 - tanh(a)^2 = sech(a)^2",
             "tanh_derivative", init="tanh_derivative_tile_init<false>();", tile="tanh_derivative_tile<false>(0);"),
    # Arithmetic with a scalar.
    _scalar("add_unary", lambda x, *, scalar: x + scalar, "a + scalar"),
    _scalar("sub_unary", lambda x, *, scalar: x - scalar, "a - scalar"),
    _scalar("mul_unary", lambda x, *, scalar: x * scalar, "a * scalar"),
    _scalar("div_unary", lambda x, *, scalar: x / scalar, "a / scalar"),
    _scalar("rsub_unary", lambda x, *, scalar: scalar - x, "scalar - a"),
    # Binary SFPU ops between DST tiles.
    _sfpu_binary("add_binary", np.add, _SYMMETRIC, "a + b"),
    _sfpu_binary("sub_binary", np.subtract, _SYMMETRIC, "a - b"),
    _sfpu_binary("mul_binary", np.multiply, _SYMMETRIC, "a * b"),
    _sfpu_binary("div_binary", np.divide, Domain(0.25, 4.0, signed_magnitude=True), "a / b"),
    _sfpu_binary("binary_max", np.maximum, _SYMMETRIC, "max(a, b)"),
    _sfpu_binary("binary_min", np.minimum, _SYMMETRIC, "min(a, b)"),
    _sfpu_binary("rsub_binary", lambda x, y: y - x, _SYMMETRIC, "b - a"),
    _sfpu_binary("power_binary", np.power, Domain(-3.0, 3.0), "a^b", a_domain=Domain(0.25, 4.0)),
    _sfpu_binary("div_no_nan_binary", lambda x, y: np.where(y == 0.0, 0.0, x / np.where(y == 0.0, 1.0, y)),
                 Domain(0.25, 4.0, signed_magnitude=True), "a / b, or 0 where b == 0", init="div_binary_tile_init();"),
    _sfpu_binary("eq_binary", lambda x, y: _where(x == y), _SYMMETRIC, "1 where a == b, else 0"),
    _sfpu_binary("ne_binary", lambda x, y: _where(x != y), _SYMMETRIC, "1 where a != b, else 0"),
    _sfpu_binary("lt_binary", lambda x, y: _where(x < y), _SYMMETRIC, "1 where a < b, else 0"),
    _sfpu_binary("gt_binary", lambda x, y: _where(x > y), _SYMMETRIC, "1 where a > b, else 0"),
    _sfpu_binary("le_binary", lambda x, y: _where(x <= y), _SYMMETRIC, "1 where a <= b, else 0"),
    _sfpu_binary("ge_binary", lambda x, y: _where(x >= y), _SYMMETRIC, "1 where a >= b, else 0"),
    _bitwise("bitwise_and_binary", np.bitwise_and, "a & b on the integers the tiles hold"),
    _bitwise("bitwise_or_binary", np.bitwise_or, "a | b on the integers the tiles hold"),
    _bitwise("bitwise_xor_binary", np.bitwise_xor, "a ^ b on the integers the tiles hold"),
    _sfpu_binary("copy_dest_values", lambda x, y: y, _SYMMETRIC, "b (DST tile 1 copied over tile 0)",
                 init="copy_dest_values_init();", tile="copy_dest_values<DataFormat::Float16_b>(1, 0);",
                 header="api/compute/copy_dest_values.h", call="copy_dest_values"),
    _sfpu_binary("logsigmoid_binary", lambda x, y: -_softplus(x), Domain(-8.0, 8.0),
                 "-ln(1 + e^a): logsigmoid of -a, from a = -x (b, e^a, is not read)", a_domain=Domain(-8.0, 8.0),
                 init="logsigmoid_tile_init();", tile="logsigmoid_tile(0, 1, 0);",
                 header="api/compute/eltwise_unary/logsigmoid.h", call="logsigmoid_tile"),
    _sfpu_binary("lgamma_stirling_binary", lambda x, y: _lgamma_stirling(x), _SYMMETRIC,
                 "ln gamma(z), z = 1 - a where a < 0.5, else a (b, ln z, is not read)", a_domain=Domain(-6.0, 6.0),
                 init="lgamma_stirling_tile_init();", tile="lgamma_stirling_tile(0, 1, 0);",
                 header="api/compute/eltwise_unary/lgamma.h", call="lgamma_stirling_tile"),
    _sfpu_binary("atan2_binary", np.arctan2, _SYMMETRIC, "atan2(a, b)", header="api/compute/atan2.h"),
    _sfpu_binary("fmod_binary", np.fmod, Domain(0.25, 4.0, signed_magnitude=True), "fmod(a, b), the sign of a",
                 header="api/compute/binary_fmod.h"),
    _sfpu_binary("remainder_binary", np.remainder, Domain(0.25, 4.0, signed_magnitude=True),
                 "a - b floor(a / b), the sign of b", header="api/compute/binary_remainder.h"),
    _sfpu_binary("xlogy_binary", lambda x, y: x * np.log(y), Domain(0.25, 4.0), "a ln(b), 0 where a == 0",
                 header="api/compute/xlogy.h"),
    _int32("fmod_int32", np.fmod, "a % b on integers, the sign of a", "binary_fmod", b_domain=_INT_DIVISOR),
    _int32("remainder_int32", np.remainder, "a mod b on integers, the sign of b", "binary_remainder",
           b_domain=_INT_DIVISOR),
    _int32("div_int32", np.divide, "a / b of two integers, as a float", "div_int32_sfpu", b_domain=_INT_DIVISOR),
    _int32("div_int32_floor", np.floor_divide, "floor(a / b) of two integers", "div_int32_floor",
           b_domain=_INT_DIVISOR),
    _int32("div_int32_trunc", lambda x, y: np.trunc(x / y), "trunc(a / b) of two integers", "div_int32_floor",
           b_domain=_INT_DIVISOR),
    _int32("gcd", np.gcd, "gcd(a, b) of two integers", "gcd"),
    _int32("lcm", np.lcm, "lcm(a, b) of two integers", "lcm"),
    *_per_format("sub_int", "sub_int_tile", "sub_int_tile_init", np.subtract, "a - b", "sub_int_sfpu"),
    *_per_format("rsub_int", "rsub_int_tile", "rsub_int_tile_init", lambda x, y: y - x, "b - a", "sub_int_sfpu"),
    *_per_format("left_shift", "binary_left_shift_tile", "binary_shift_tile_init", np.left_shift, "a << b",
                 "binary_shift"),
    *_per_format("right_shift", "binary_right_shift_tile", "binary_shift_tile_init", np.right_shift, "a >> b",
                 "binary_shift"),
    *_per_format("logical_right_shift", "binary_logical_right_shift_tile", "binary_shift_tile_init",
                 np.right_shift, "a >> b, logical", "binary_shift"),
    _int_compare("lt_int", lambda x, y: _where(x < y), "1 where a < b, else 0 (the integer comparison)"),
    _int_compare("gt_int", lambda x, y: _where(x > y), "1 where a > b, else 0 (the integer comparison)"),
    _int_compare("le_int", lambda x, y: _where(x <= y), "1 where a <= b, else 0 (the integer comparison)"),
    _int_compare("ge_int", lambda x, y: _where(x >= y), "1 where a >= b, else 0 (the integer comparison)"),
    # Ops of Metalium's newer headers (tessel/sfpu_misc.h).
    _sfpu("identity", lambda x: x, _SYMMETRIC, "a (read and written back)", header="api/compute/eltwise_unary/identity.h"),
    _sfpu("identity_uint32", lambda x: x, _SYMMETRIC, "a (read and written back as a 32-bit word)",
          call="identity_tile_uint32", init="identity_tile_init();", header="api/compute/eltwise_unary/identity.h"),
    Op(name="i0", call="i0_tile", engine="SFPU", arity=1, init="i0_tile_init();", tile="i0_tile(0);",
       reference=lambda x: _bessel_series(x, 0), domains=(_SYMMETRIC,),
       doc="the modified Bessel function I0(a), as tt-llk's 11-term series", tolerances=_I0,
       header="api/compute/eltwise_unary/i0.h"),
    _special("i1", lambda x: _bessel_series(x, 1), _SYMMETRIC, "the modified Bessel function I1(a)", "i1"),
    _sfpu_binary("nextafter_binary", lambda x, y: np.nextafter(x.astype(np.float32), y.astype(np.float32)).astype(
        np.float64), _SYMMETRIC, "the float32 next to a toward b (one float32 ULP)",
        tile="nextafter_binary_tile<true>(0, 1, 0);", header="api/compute/nextafter.h"),
    _sfpu_binary("nextafter_bf16_binary", _nextafter_bf16, _SYMMETRIC, "a stepped one bfloat16 ULP toward b",
                 header="api/compute/nextafter.h"),
    _sfpu_binary("logaddexp_binary", np.logaddexp, _SYMMETRIC, "ln(e^a + e^b)", header="api/compute/logaddexp.h"),
    _sfpu_binary("logaddexp2_binary", np.logaddexp2, _SYMMETRIC, "log2(2^a + 2^b)",
                 header="api/compute/logaddexp2.h"),
    # FPU element-wise ops between CB tiles (HiFi4: exact products).
    _fpu("add", np.add, "a + b"),
    _fpu("sub", np.subtract, "a - b"),
    _fpu("mul", np.multiply, "a * b"),
)
"""Every op, in the order tessel.ops lists them."""

BY_NAME = {op.name: op for op in OPS}

__all__ = ["BY_NAME", "EXACT", "FORMATS", "OPS", "TYPECAST_FORMATS", "Domain", "Op", "Param", "Tolerance"]
