"""tessel.ops against the op table (tessel.op_table): tests generated from
its rows.

- test_op: every op x data format x DST mode x grid (1x1, 2x2, the whole
  12x10 grid) x shape (one tile, 2x3 tiles, 100x70 which pads), plus the
  whole grid with 352x416 (143 tiles: more tiles than cores, split
  unevenly). Inputs come from the row's domain; the reference is the row's
  numpy function on the values the device computes on (the inputs stored in
  the format, as the engine's registers hold them: docs/numerics.md), and
  every element must be within the row's tolerance for the format and mode.
- test_table_matches_engine: the table has exactly the engine's ops.
- caching, runtime parameters, generated signatures and kernel sources.
"""

import inspect
import zlib

import numpy as np
import pytest
import tessel
import tessel.ops
from tessel import _tessel, formats
from tessel.op_table import BY_NAME, FORMATS, OPS, TYPECAST_FORMATS, Tolerance

GRIDS = {"1x1": (1, 1), "2x2": (2, 2), "full": None}
SHAPES = ((32, 32), (64, 96), (100, 70))
BIG_SHAPE = (352, 416)
MODES = {"dst16": False, "fp32acc": True}


@pytest.fixture(scope="module")
def device():
    with tessel.Device.open(arch="blackhole") as d:  # 12x10 worker cores
        yield d
        tessel.ops.clear_cache(d)


# ---------------------------------------------------------------------------
# Inputs, the values the device computes on, the check


def inputs(op, shape, case):
    rng = np.random.default_rng(zlib.crc32(case.encode()))
    out = []
    for d in op.domains:
        x = rng.uniform(d.lo, d.hi, shape)
        if d.signed_magnitude:
            x = np.where(rng.integers(0, 2, shape) == 1, -x, x)
        out.append(x.astype(np.float32))
    return out


def stored(x, fmt):
    """x as a DRAM buffer of fmt holds it."""
    return formats.untilize(formats.from_bytes(formats.to_bytes(formats.tilize(x), fmt), fmt), *x.shape)


def operand(x, fmt, fp32_dest_acc, engine):
    """What the op computes on: the stored value, in a 19-bit source register
    (10 mantissa bits: Float32 is truncated) for FPU operands and for copies
    into a 16-bit DST, then rounded to bfloat16 by a 16-bit DST for SFPU ops."""
    v = stored(x, fmt)
    if fmt == "Float32" and (engine == "FPU" or not fp32_dest_acc):
        v = (v.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)
    if engine == "SFPU" and not fp32_dest_acc:
        v = formats.bf16_values(formats.bf16_bits(v))
    return v.astype(np.float64)


def param_values(op):
    """The row's example parameters: for the function, and for the reference
    (float parameters as the float32 the device gets)."""
    call = {p.name: p.example for p in op.params}
    ref = {p.name: float(np.float32(p.example)) if p.kind == "float" else p.example for p in op.params}
    return call, ref


def allowed_error(reference, tol):
    bound = tol.atol + tol.rtol * np.abs(reference)
    if tol.group:
        rows, cols = reference.shape
        groups = formats.tilize(np.abs(reference).astype(np.float32)).reshape(-1, 16).max(axis=1)
        bound = bound + tol.group * formats.untilize(np.repeat(groups, 16), rows, cols)
    return bound


def check(result, reference, bound, operands, what):
    assert result.dtype == np.float32 and result.shape == reference.shape, (
        f"{what}: got a {result.dtype} array of shape {result.shape}, expected float32 {reference.shape}")
    error = np.abs(result.astype(np.float64) - reference)
    bad = ~(error <= bound)
    if bad.any():
        i = np.unravel_index(np.argmax(np.where(bad, error / np.maximum(bound, 1e-300), 0)), result.shape)
        given = ", ".join(f"{v[i]!r}" for v in operands)
        pytest.fail(f"{what}: {int(bad.sum())} of {result.size} values outside the tolerance; worst at {i}: "
                    f"op({given}) = {result[i]!r}, reference {reference[i]!r}, error {error[i]:.3g} > "
                    f"allowed {bound[i]:.3g}")


# ---------------------------------------------------------------------------
# Every op x format x DST mode x grid x shape


def _cases():
    cases = []
    for op in OPS:
        for fmt in FORMATS:
            for mode, fp32 in MODES.items():
                for grid_id, grid in GRIDS.items():
                    for rows, cols in SHAPES:
                        cases.append(pytest.param(op, fmt, fp32, grid, (rows, cols),
                                                  id=f"{op.name}-{fmt}-{mode}-{grid_id}-{rows}x{cols}"))
                rows, cols = BIG_SHAPE
                cases.append(pytest.param(op, fmt, fp32, None, BIG_SHAPE, id=f"{op.name}-{fmt}-{mode}-full-{rows}x{cols}"))
    return cases


@pytest.mark.parametrize("op, fmt, fp32, grid, shape", _cases())
def test_op(device, request, op, fmt, fp32, grid, shape):
    xs = inputs(op, shape, request.node.callspec.id)
    call_params, ref_params = param_values(op)
    fn = getattr(tessel.ops, op.name)
    result = fn(*xs, **call_params, device=device, format=fmt, fp32_dest_acc=fp32, grid=grid)
    operands = [operand(x, fmt, fp32, op.engine) for x in xs]
    reference = op.reference(*operands, **ref_params)
    check(result, reference, allowed_error(reference, op.tolerance(fmt, fp32)), operands,
          f"tessel.ops.{op.name} ({op.call}) on {fmt}, fp32_dest_acc={fp32}, grid {grid}, shape {shape}")


# typecast to every target format (the table's example is Int32): the
# table's tolerance for the input format, plus the packing of a block-float
# output (one LSB of the group: 7 magnitude bits for Bfp8_b, 3 for Bfp4_b).
_OUTPUT_GROUP = {"Bfp8_b": 2.0**-6, "Bfp4_b": 2.0**-2}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("to", TYPECAST_FORMATS)
def test_typecast_targets(device, request, to, mode):
    op = BY_NAME["typecast"]
    fp32 = MODES[mode]
    (x,) = inputs(op, (64, 64), request.node.callspec.id)
    result = tessel.ops.typecast(x, to=to, device=device, format="Float32", fp32_dest_acc=fp32, grid=(2, 1))
    v = operand(x, "Float32", fp32, "SFPU")
    reference = op.reference(v, to=to)
    t = op.tolerance("Float32", fp32)
    tol = Tolerance(rtol=t.rtol, atol=t.atol, group=_OUTPUT_GROUP.get(to, 0.0))
    check(result, reference, allowed_error(reference, tol), [v], f"tessel.ops.typecast to {to}, {mode}")


# ---------------------------------------------------------------------------
# The table against the engine


def test_table_matches_engine():
    # An op is its call, engine and arity: logsigmoid_tile and
    # lgamma_stirling_tile have a unary and a binary form.
    engine = set(_tessel.ops.engine_ops())
    table = {(op.call, op.engine, op.arity) for op in OPS}
    missing = sorted(engine - table)
    extra = sorted(table - engine)
    assert not missing, f"the compute engine has ops the op table (python/tessel/op_table.py) lacks: {missing}"
    assert not extra, f"the op table has ops the compute engine does not implement: {extra}"
    assert len(OPS) == len(engine) == len(_tessel.ops.engine_ops()) == 153


def test_every_row_is_a_generated_function():
    names = [op.name for op in OPS]
    assert len(set(names)) == len(names)
    for op in OPS:
        fn = getattr(tessel.ops, op.name)
        assert fn.op is op and op.name in tessel.ops.__all__
        sig = inspect.signature(fn)
        operands = [p.name for p in sig.parameters.values() if p.kind is p.POSITIONAL_OR_KEYWORD]
        assert operands == ["a", "b"][: op.arity]
        keywords = [p.name for p in sig.parameters.values() if p.kind is p.KEYWORD_ONLY]
        assert keywords == [p.name for p in op.params] + ["device", "format", "fp32_dest_acc", "grid"]
        assert op.call in fn.__doc__
        for fmt in FORMATS:
            source = tessel.ops.kernel_source(op.name, format=fmt, **{p.name: p.example for p in op.params})
            assert f"tessel.ops.{op.name}:" in source
            params = {p.name: p.name for p in op.params if p.kind != "output_format"}
            params.update({p.name: f"(uint32_t)DataFormat::{p.example}" for p in op.params
                           if p.kind == "output_format"})
            assert op.init.format(**params) in source
            assert op.tile.format(in_format=f"(uint32_t)DataFormat::{fmt}", **params) in source


def test_kernel_source_is_the_same_for_every_format_unless_the_op_names_it():
    for op in OPS:
        sources = {tessel.ops.kernel_source(op.name, format=f, **{p.name: p.example for p in op.params})
                   for f in FORMATS}
        assert len(sources) == (3 if "{in_format}" in op.tile else 1), op.name


# ---------------------------------------------------------------------------
# Caching and runtime parameters


def test_repeated_call_redispatches_the_cached_program(device):
    a = np.linspace(-2, 2, 64 * 64, dtype=np.float32).reshape(64, 64)
    b = np.full((64, 64), 0.5, dtype=np.float32)
    first = tessel.ops.add(a, b, device=device, grid=(2, 2))
    before = tessel.ops.cache_info()
    runs = device.command_queue.programs_run
    second = tessel.ops.add(a, b, device=device, grid=(2, 2))
    after = tessel.ops.cache_info()
    assert (after.hits, after.misses, after.entries) == (before.hits + 1, before.misses, before.entries)
    assert device.command_queue.programs_run == runs + 1
    np.testing.assert_array_equal(first, second)
    # Another grid, tile count or DST mode is another program.
    tessel.ops.add(a, b, device=device, grid=(1, 2))
    tessel.ops.add(a[:32], b[:32], device=device, grid=(2, 2))
    tessel.ops.add(a, b, device=device, grid=(2, 2), fp32_dest_acc=True)
    assert tessel.ops.cache_info().misses == before.misses + 3


def test_runtime_parameters_change_without_a_new_program(device):
    x = formats.bf16_values(formats.bf16_bits(np.linspace(-4, 4, 32 * 32, dtype=np.float32).reshape(32, 32)))
    tessel.ops.relu_max(x, upper_limit=1.0, device=device, grid=(1, 1))
    before = tessel.ops.cache_info()
    for limit in (0.5, 2.0, 3.25):
        got = tessel.ops.relu_max(x, upper_limit=limit, device=device, grid=(1, 1))
        np.testing.assert_array_equal(got, np.clip(x, 0, limit).astype(np.float32))
    assert tessel.ops.cache_info().misses == before.misses
    for exponent in (0, 1, 2):
        got = tessel.ops.power(x, exponent=exponent, device=device, fp32_dest_acc=True, format="Float32")
        np.testing.assert_allclose(got, x.astype(np.float64) ** exponent, rtol=2.0**-20)


def test_cache_keeps_at_most_cache_size_programs(device):
    x = np.ones((32, 32), dtype=np.float32)
    tessel.ops.clear_cache()
    for rows in range(1, tessel.ops.CACHE_SIZE + 3):
        tessel.ops.abs(x.repeat(rows, axis=0), device=device, grid=(1, 1))
    info = tessel.ops.cache_info()
    assert (info.entries, info.misses, info.hits) == (tessel.ops.CACHE_SIZE, tessel.ops.CACHE_SIZE + 2, 0)
    tessel.ops.clear_cache(device)
    assert tessel.ops.cache_info().entries == 0


def test_a_failed_first_dispatch_is_not_cached(device, monkeypatch):
    x = np.ones((32, 32), dtype=np.float32)
    before = tessel.ops.cache_info()
    monkeypatch.setattr(tessel.ops, "_compute_source", lambda *a: "void kernel_main() { not_a_call(); }\n")
    with pytest.raises(tessel.ProgramError, match="not_a_call"):
        tessel.ops.cos(x, device=device, grid=(1, 1))
    assert tessel.ops.cache_info() == before
    monkeypatch.undo()
    np.testing.assert_array_equal(tessel.ops.cos(np.zeros((32, 32), dtype=np.float32), device=device, grid=(1, 1)),
                                  np.ones((32, 32), dtype=np.float32))
    assert tessel.ops.cache_info().misses == before.misses + 1


def test_default_device():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(tessel.ops.negative(x), -x)
    d = tessel.ops.default_device()
    assert d is tessel.ops.default_device() and (d.grid.x, d.grid.y) == (12, 10)


def test_inputs_of_any_float_dtype(device):
    x = np.linspace(-3, 3, 40 * 50).reshape(40, 50)  # float64
    want = tessel.ops.square(x.astype(np.float32), device=device)
    np.testing.assert_array_equal(tessel.ops.square(x, device=device), want)
    np.testing.assert_array_equal(tessel.ops.square(x.astype(">f8"), device=device), want)
    half = x.astype(np.float16)
    np.testing.assert_array_equal(tessel.ops.square(half, device=device),
                                  tessel.ops.square(half.astype(np.float32), device=device))
