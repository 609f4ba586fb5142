"""The TT-Lang spellings beyond the block operators: the compiler's
top-level elementwise functions (ttl.add, ...), `**` on blocks,
ttl.math.exp's keywords, and `with ttl.signpost(name):` zones with the
profile `python -m tessel.ttlang --profile` prints.
"""

import os

import numpy as np
import pytest
import tessel
import tessel.ttl as ttl
from tessel.ttl.profile import print_zones, zone_durations
from ttl_dsl_support import bf16, line_of, one_tile_op, read_one, tensor

HERE = os.path.abspath(__file__)


@pytest.fixture(scope="module")
def dev():
    with tessel.Device.open(arch="wormhole_b0", grid=(2, 1), profiler=True) as d:
        yield d


def run_one(dev, compute, a):
    y = ttl.Tensor.allocate(dev, (32, 32))
    one_tile_op(compute)(tensor(dev, a), y)
    return y.to_numpy()


def _arith(a_dfb, y_dfb):
    def compute():
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            o.store(ttl.mul(ttl.sub(x, x * 0.5), ttl.add(x, x)))
    return compute


def _div(a_dfb, y_dfb):
    def compute():
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            o.store(ttl.div(x, ttl.math.add(x, x)))
    return compute


def _powers(a_dfb, y_dfb):
    def compute():
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            o.store(x ** 2 + x ** 0)
    return compute


def _exp_scaled(a_dfb, y_dfb):
    def compute():
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            o.store(ttl.math.exp(x, scale=0.5))
    return compute


def _exp_flags(a_dfb, y_dfb):
    def compute():
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            o.store(ttl.math.exp(x, approx=True, skip_clamp_check=True, iterations=8))
    return compute


A = bf16(np.linspace(0.5, 2.0, 1024, dtype=np.float32).reshape(32, 32))


@pytest.mark.parametrize("compute, ref", [
    (_arith, lambda a: (a - a * 0.5) * (a + a)),
    (_div, lambda a: a / (a + a)),
    (_powers, lambda a: a * a + 1),
    (_exp_scaled, lambda a: np.exp(0.5 * a)),
    (_exp_flags, np.exp),
])
def test_spellings_compute_what_they_say(dev, compute, ref):
    got = run_one(dev, compute, A)
    expect = ref(A.astype(np.float64))
    np.testing.assert_allclose(got, expect, rtol=2e-2, atol=1e-2)


def _exp_iterations(a_dfb, y_dfb):
    def compute():
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            o.store(ttl.math.exp(x, iterations=4))  # <- iterations
    return compute


def _exp_unknown(a_dfb, y_dfb):
    def compute():
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            o.store(ttl.math.exp(x, fast=True))  # <- unknown keyword
    return compute


def _relu_keyword(a_dfb, y_dfb):
    def compute():
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            o.store(ttl.math.relu(x, approx=True))  # <- relu keyword
    return compute


def _float_power(a_dfb, y_dfb):
    def compute():
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            o.store(x ** 0.5)  # <- float power
    return compute


@pytest.mark.parametrize("compute, message, marker", [
    (_exp_iterations, "ttl.math.exp: tessel models exp on whole tiles only (iterations=8); got iterations=4",
     "iterations"),
    (_exp_unknown, "ttl.math.exp takes a block and the keywords scale, approx, skip_clamp_check, iterations; got fast",
     "unknown keyword"),
    (_relu_keyword, "ttl.math.relu takes no keyword arguments, got approx", "relu keyword"),
    (_float_power, "'**' on a block takes a non-negative integer constant exponent (block ** 2)", "float power"),
])
def test_spelling_misuses_name_the_line(dev, compute, message, marker):
    with pytest.raises(ttl.CompileError) as e:
        run_one(dev, compute, A)
    assert str(e.value) == f"{HERE}:{line_of(HERE, marker)}: {message} (kernel function 'compute' of operation 'op')"


def _signposted_compute(a_dfb, y_dfb):
    def compute():
        with ttl.signpost("square"), a_dfb.wait() as x, y_dfb.reserve() as o:
            o.store(x * x)
    return compute


def _signposted_reader(a, a_dfb):
    def read():
        for _ in range(1):
            with ttl.signpost("read"):
                with a_dfb.reserve() as blk:
                    ttl.copy(a[0, 0], blk).wait()
    return read


def test_signposts_are_profiler_zones(dev, capsys):
    dev.clear_profiler_records()
    y = ttl.Tensor.allocate(dev, (32, 32))
    one_tile_op(_signposted_compute, _signposted_reader, grid=(2, 1))(tensor(dev, A), y)
    np.testing.assert_allclose(y.to_numpy(), bf16(A * A), rtol=1e-2)
    records = dev.profiler_records()
    zones = zone_durations(records)
    # One zone per node: the compute kernel's counted once (its markers are on all three TRISCs).
    assert sorted(zones) == ["read", "square"]
    assert len(zones["read"]) == 2 and len(zones["square"]) == 2
    assert all(d > 0 for d in zones["read"] + zones["square"])
    starts = [r for r in records if r.name == "read" and r.type == "ZONE_START"]
    assert {r.risc for r in starts} == {"NCRISC"} and {r.core for r in starts} == {(0, 0), (1, 0)}
    print_zones(dev, "op")
    err = capsys.readouterr().err
    assert "[tessel] operation 'op': zone 'read' ran 2 times: min " in err
    assert "[tessel] operation 'op': zone 'square' ran 2 times: min " in err
    assert dev.profiler_records() == []


def test_a_signpost_outside_kernels_does_nothing():
    with ttl.signpost("host") as s:
        assert s.name == "host"
    with pytest.raises(TypeError, match="ttl.signpost: the name must be a non-empty str, got 3"):
        ttl.signpost(3)


@pytest.mark.parametrize("dtype", ["bf16", "float32", tessel.DataFormat.Float16_b, "ttnn"])
def test_make_dfb_takes_a_dtype_instead_of_a_tensor(dev, dtype):
    import tessel.ttnn as ttnn

    fmt = ttnn.float32 if dtype == "ttnn" else dtype

    @ttl.operation(grid=(1, 1))
    def twice_doubled(a, y):
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
        t_dfb = ttl.make_dfb(fmt, shape=(1, 1), block_count=1)
        y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

        @ttl.compute()
        def compute():
            with a_dfb.wait() as x, t_dfb.reserve() as t:
                t.store(x + x)
            with t_dfb.wait() as t, y_dfb.reserve() as o:
                o.store(t + t)

        ttl.datamovement()(read_one(a, a_dfb))

        @ttl.datamovement()
        def write():
            with y_dfb.wait() as blk:
                ttl.copy(blk, y[0, 0]).wait()

    y = ttl.Tensor.allocate(dev, (32, 32))
    twice_doubled(tensor(dev, A), y)
    np.testing.assert_allclose(y.to_numpy(), A * 4, rtol=1e-2)


@pytest.mark.parametrize("args, error, message", [
    (("bf17", (1, 1)), ValueError, "Unrecognized data format name 'bf17' for ttnn.DataType; the names are "),
    ((3, (1, 1)), TypeError, "ttl.make_dfb: dtype must be a format name ('bf16', 'float32', ...), a ttnn.DataType, "
                             "a tessel.DataFormat or a torch dtype, got 3 (int)"),
    (("bf16", (1, 1), 2, (16, 32)), ValueError, "tessel's tiles are 32x32, got 16x32"),
])
def test_make_dfb_misuses(dev, args, error, message):
    @ttl.operation(grid=(1, 1))
    def op(a, y):
        ttl.make_dfb(*args)

    with pytest.raises(error) as e:
        op(tensor(dev, A), ttl.Tensor.allocate(dev, (32, 32)))
    assert message in str(e.value)


def test_allocation_groups_and_address_scopes_are_accepted(dev):
    @ttl.operation(grid=(1, 1))
    def op(a, y):
        group = ttl.make_dfb_allocation_group()
        ttl.make_dataflow_buffer_like(a, shape=(1, 1), allocation_group=group, address_scope="remote_uniform")
        ttl.make_dfb("bf16", shape=(1, 1), allocation_group=group, address_scope=ttl.DFBAddressScope.LOCAL)
        ttl.make_dfb("bf16", shape=(1, 1), address_scope="everywhere")

    with pytest.raises(ValueError, match=r"ttl.make_dfb: address_scope must be ttl.DFBAddressScope.LOCAL, "
                                         r"ttl.DFBAddressScope.REMOTE_UNIFORM or None, got 'everywhere'"):
        op(tensor(dev, A), ttl.Tensor.allocate(dev, (32, 32)))


def _erfinv(x):
    from math import erf

    out = np.empty_like(x)
    for i, v in np.ndenumerate(x):
        lo, hi = -6.0, 6.0
        for _ in range(80):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if erf(mid) < v else (lo, mid)
        out[i] = (lo + hi) / 2
    return out


_ERF = np.vectorize(__import__("math").erf)
SINGLE_OPS = [
    ("asin", np.arcsin, -0.95, 0.95), ("acos", np.arccos, -0.95, 0.95), ("atan", np.arctan, -4, 4),
    ("asinh", np.arcsinh, -4, 4), ("acosh", np.arccosh, 1.1, 6), ("atanh", np.arctanh, -0.9, 0.9),
    ("erf", _ERF, -2, 2), ("erfc", lambda x: 1 - _ERF(x), -2, 2), ("erfinv", _erfinv, -0.9, 0.9),
    ("tan", np.tan, -1.2, 1.2), ("sinh", np.sinh, -3, 3), ("cosh", np.cosh, -3, 3),
    ("expm1", np.expm1, -2, 2), ("log1p", np.log1p, -0.5, 4), ("trunc", np.trunc, -4, 4),
    ("frac", lambda x: x - np.trunc(x), -4, 4), ("signbit", lambda x: (x < 0).astype(float), -2, 2),
    ("isnan", lambda x: np.zeros_like(x), -2, 2), ("softsign", lambda x: x / (1 + np.abs(x)), -4, 4),
    ("hardswish", lambda x: x * np.clip(x / 6 + 0.5, 0, 1), -5, 5),
]


@pytest.mark.parametrize("fn, ref, lo, hi", SINGLE_OPS, ids=[c[0] for c in SINGLE_OPS])
def test_math_functions_of_one_sfpu_op(dev, fn, ref, lo, hi):
    f = getattr(ttl.math, fn)

    def compute(a_dfb, y_dfb):
        def compute():
            with a_dfb.wait() as x, y_dfb.reserve() as o:
                o.store(f(x))
        return compute

    a = bf16(np.linspace(lo, hi, 1024, dtype=np.float32).reshape(32, 32))
    got = run_one(dev, compute, a)
    expect = ref(a.astype(np.float64))
    assert np.all(np.abs(got - expect) <= 0.02 * np.abs(expect) + 1e-2), fn


def _rounded(a_dfb, y_dfb):
    def compute():
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            o.store(ttl.math.round(x, decimals=1) + ttl.math.round(x))
    return compute


def test_round_takes_decimals(dev):
    a = bf16(np.linspace(-3, 3, 1024, dtype=np.float32).reshape(32, 32))
    got = run_one(dev, _rounded, a)
    expect = np.round(a.astype(np.float64), 1) + np.round(a.astype(np.float64))
    assert np.all(np.abs(got - expect) <= 0.02 * np.abs(expect) + 2e-2)
