"""tessel.dispatch.Session and Program (spec: persistent-dispatch-host-api,
Session and Program): the spec's opening snippet on the map example, every
Program field and its rule, the clock steps, the kernel buffer and L1
budget, the session's log, the context manager's stop and abort, close()
and the cores' NoC words.

Most tests use a 4 x 2 Blackhole device of their own (Session(device=...));
the opening snippet and kernel_bytes use the card's full 12 x 10 grid,
where the spec's numbers (15 jobs of 8 cores) hold.
"""

import pathlib

import numpy as np
import pytest

import tessel
import tessel.dispatch as km
from tessel.dispatch.program import OPT_LEVELS

from .common import ROOT, BASIC, BASIC_HEADER, GRID, CORES  # noqa: F401

PROBE = pathlib.Path(__file__).resolve().parent / "kernels" / "probe"
PROBE_HEADER = PROBE.parent / "probe.hpp"
MAP = ROOT / "examples" / "dispatch_map" / "kernels"
NO_OPT_LEVEL = 0xFFFF  # probe.hpp's kNoOptLevel


@pytest.fixture
def small():
    with tessel.Device.open(arch="blackhole", grid=GRID) as d:
        yield d


@pytest.fixture
def lines():
    return []


@pytest.fixture
def session(small, lines):
    s = km.Session(device=small, log=lines.append)
    yield s
    s.close()


@pytest.fixture
def card_lock(tmp_path, monkeypatch):
    """Card numbers' lock files in a directory of the test's own."""
    monkeypatch.setenv("TESSEL_CARD_LOCK_DIR", str(tmp_path))
    monkeypatch.delenv("TT_VISIBLE_DEVICES", raising=False)
    return tmp_path


def basic_program(**kw):
    return km.Program("basic", BASIC, buffers=[km.Buffer(0, "uint32", 64, 1)], handlers=km.abi.handlers(BASIC_HEADER),
                      **kw)


def probe_program(**kw):
    return km.Program("probe", PROBE, handlers=PROBE_HEADER, **kw)


def results(run, handler, groups):
    """The leader's result word of `handler` run on each group."""
    handles = [run.submit(handler, group=g, result=True) for g in groups]
    return [e.result for e in run.wait(handles, timeout=5.0)]


def message(exc_type, fn):
    with pytest.raises(exc_type) as e:
        fn()
    return str(e.value)


# ---------------------------------------------------------------------------
# The spec's opening snippet


def test_opening_snippet_on_the_map_example(card_lock):
    """The spec's snippet with only its import changed, on the map example's
    kernels: 15 jobs of 8 cores each double one bf16 tile per core."""
    import tessel.dispatch as km  # the spec: import komorebi as km

    x = np.random.default_rng(3).uniform(-4, 4, size=(120 * 32, 32)).astype(np.float32)
    with km.Session(card=0) as session:
        assert session.grid == (12, 10)
        src = session.tensor(x, "bfloat16", layout="tile")
        dst = session.empty(src.shape, "bfloat16", layout="tile")
        program = km.Program("map", MAP,
                             buffers=[km.Buffer(0, "bfloat16", 2048, 2), km.Buffer(16, "bfloat16", 2048, 2)],
                             compile_args={"reader": src.accessor_args(), "writer": dst.accessor_args()},
                             handlers=km.abi.handlers(MAP / "map.hpp"))
        run = session.load(program)
        handles = [run.submit("map", group=(job * 8, 8), args=[src.address, dst.address, job * 8]) for job in range(15)]
        run.wait(handles, timeout=5.0)
        run.stop()
        trace = run.trace()
        y = dst.read()
    assert handles == list(range(1, 16))
    expected = 2 * km.formats.bf16_values(km.formats.bf16_bits(x))
    np.testing.assert_array_equal(y, expected)
    result = run.result()
    assert (result.clean, result.commands, result.events, result.abandoned) == (True, 15, 15, [])
    # trace=0 (the snippet's default): nothing traced, and wait forgot the handles.
    assert isinstance(trace, km.Trace) and trace.command(handles[0]) == {}
    assert session.closed


# ---------------------------------------------------------------------------
# Program


@pytest.mark.parametrize("fmt", ["bfloat16", "float32", "int32", "uint32", "uint16", "uint8", "bfloat8_b", "bfloat4_b"])
def test_buffer_formats_by_name(fmt):
    b = km.Buffer(3, fmt, 2048, 2)
    assert (b.index, b.format, b.page_bytes, b.pages) == (3, fmt, 2048, 2)
    assert repr(b) == f"Buffer(3, {fmt!r}, 2048, 2)"


def test_every_format_loads(session):
    """Circular buffers of all eight formats on every core, in one program."""
    formats = ["bfloat16", "float32", "int32", "uint32", "uint16", "uint8", "bfloat8_b", "bfloat4_b"]
    buffers = [km.Buffer(0, "uint32", 64, 1)] + [km.Buffer(1 + i, f, 2048, 1) for i, f in enumerate(formats)]
    program = km.Program("formats", BASIC, buffers=buffers, handlers=km.abi.handlers(BASIC_HEADER))
    run = session.load(program)
    assert run.wait(run.submit(0), timeout=5.0).kind == "done"
    assert run.stop().clean


BUFFER_ERRORS = [
    ("float16", km.ProgramError, dict(index=0, format="float16"),
     "Buffer(index=0): format 'float16' is not a data type name: expected one of bfloat16, float32, int32, uint32, "
     "uint16, uint8, bfloat8_b, bfloat4_b"),
    ("format-number", km.ProgramError, dict(index=2, format=3),
     "Buffer(index=2): format 3 is not a data type name: expected one of bfloat16, float32, int32, uint32, uint16, "
     "uint8, bfloat8_b, bfloat4_b"),
    ("cb-64", ValueError, dict(index=64), "Buffer(index=64): index must be an integer (0..63), got 64"),
    ("cb-negative", ValueError, dict(index=-1), "Buffer(index=-1): index must be an integer (0..63), got -1"),
    ("page-bytes-0", ValueError, dict(page_bytes=0),
     "Buffer(index=0): page_bytes must be an integer (1..16777216), got 0"),
    ("pages-0", ValueError, dict(pages=0), "Buffer(index=0): pages must be an integer (1..65536), got 0"),
]


@pytest.mark.parametrize("kw,exc,text", [(c[2], c[1], c[3]) for c in BUFFER_ERRORS],
                         ids=[c[0] for c in BUFFER_ERRORS])
def test_buffer_errors(kw, exc, text):
    args = dict(index=0, format="uint32", page_bytes=64, pages=1) | kw
    assert message(exc, lambda: km.Buffer(**args)) == text


@pytest.mark.parametrize("index", [29, 30, 31])
def test_runtime_circular_buffers_are_refused(index):
    text = message(km.ProgramError, lambda: km.Buffer(index, "uint32", 64, 1))
    assert text == (f"Buffer(index={index}): circular buffers 29, 30 and 31 are the runtime's (the command tokens and "
                    f"the trace); use another index")
    assert km.Buffer(28, "uint32", 64, 1).index == 28 and km.Buffer(32, "uint32", 64, 1).index == 32


def test_program_fields_and_defaults():
    p = km.Program("basic", str(BASIC))
    assert p.name == "basic"
    assert p.kernels == {k: str(BASIC / f"{k}.cpp") for k in ("reader", "compute", "writer")}
    assert (p.buffers, p.args, p.depth, p.handlers, p.opt, p.defines) == ([], None, 4, {}, {}, {})
    assert p.compile_args == {"reader": [], "compute": [], "writer": []}
    assert p.sizes is None  # nothing is built before a load
    assert repr(p) == "Program('basic', depth=4, handlers={})"
    # A dict of the three paths is the same program.
    q = km.Program("basic", {k: BASIC / f"{k}.cpp" for k in ("writer", "reader", "compute")})
    assert q.kernels == p.kernels
    r = km.Program("x", BASIC, compile_args={"writer": (1, np.uint32(2))}, defines={"A": 1, "B": "two"})
    assert r.compile_args == {"reader": [], "compute": [], "writer": [1, 2]}
    assert r.defines == {"A": "1", "B": "two"}


def test_handlers_from_a_dict_and_from_a_header():
    by_dict = basic_program()
    assert by_dict.handlers == {"fill": 1, "spin": 2, "result": 3, "fault": 4, "count": 5, "nap": 6}
    header = probe_program()  # kHandlerCompileArg -> compile_arg; kNoOptLevel is not a handler
    assert header.handlers == {"define": 1, "writer_opt": 2, "reader_opt": 3, "compile_arg": 4, "writer_arg": 5,
                               "reader_arg": 6, "compute_arg": 7, "core_index": 8, "writer_build": 9,
                               "compute_build": 10}
    assert header.handler("compile_arg") == 4 and header.handler(4) == 4
    assert header.handler("nop") == 0 and header.handler(0) == 0
    assert message(km.ProgramError, lambda: header.handler("step")) == (
        "Program 'probe' has no handler 'step' (it has: define, writer_opt, reader_opt, compile_arg, writer_arg, "
        "reader_arg, compute_arg, core_index, writer_build, compute_build)")
    assert message(km.ProgramError, lambda: header.handler(11)) == "Program 'probe' has no handler number 11"


@pytest.mark.parametrize("depth", [1, 2, 16])
def test_depth_in_range(session, lines, depth):
    run = session.load(basic_program(depth=depth))
    # Twice as many commands as the program has completion slots: all complete.
    events = run.wait([run.submit(0, group=(i % CORES, 1)) for i in range(2 * depth)], timeout=5.0)
    assert [e.kind for e in events] == ["done"] * (2 * depth)
    assert run.stop().clean
    assert f"launch: program 'basic' on 8 cores, depth {depth}, host depth 64, event depth 128" in lines


@pytest.mark.parametrize("depth", [0, 17, -1, True, "4", 4.0])
def test_depth_out_of_range(depth):
    assert message(km.ProgramError, lambda: basic_program(depth=depth)) == (
        f"Program: depth {depth!r} is out of range: expected 1 to 16")


COMPUTE_FIELDS = "math_fidelity, unpack_to_dest_mode, fp32_dest_acc_en, math_approx_mode, dst_full_sync_en, " \
                 "bfp8_pack_precise, enable_trisc2_rvv"


def test_compute_options_are_the_compute_config_descriptor_fields():
    assert km.program.COMPUTE_OPTIONS == tuple(COMPUTE_FIELDS.split(", "))
    every = {"math_fidelity": "LoFi", "unpack_to_dest_mode": {3: "UnpackToDestFp32", 5: "Default"},
             "fp32_dest_acc_en": True, "math_approx_mode": True, "dst_full_sync_en": False,
             "bfp8_pack_precise": True, "enable_trisc2_rvv": False}
    fidelity, flags, per_cb = km.Program("c", BASIC, compute=every)._compute
    assert fidelity == 0
    assert flags == {"fp32_dest_acc_en": True, "math_approx_mode": True, "dst_full_sync_en": False,
                     "bfp8_pack_precise": True, "enable_trisc2_rvv": False}
    assert per_cb == [1 if cb == 3 else 0 for cb in range(64)]
    for name, number in (("LoFi", 0), ("HiFi2", 2), ("HiFi3", 3), ("HiFi4", 4)):
        assert km.Program("c", BASIC, compute={"math_fidelity": name})._compute[0] == number
    assert km.Program("c", BASIC, compute={"unpack_to_dest_mode": "UnpackToDestFp32"})._compute[2] == [1] * 64
    assert km.Program("c", BASIC, compute={"unpack_to_dest_mode": "Default"})._compute[2] == [0] * 64
    assert km.Program("c", BASIC)._compute == (4, dict.fromkeys(flags, False), [0] * 64)  # HiFi4, no flags


COMPUTE_ERRORS = [
    ("unknown-field", {"fidelity": "HiFi4"},
     f"Program: compute option 'fidelity' is not a field of ComputeConfigDescriptor: expected {COMPUTE_FIELDS}"),
    ("compile-args-field", {"compile_args": [1]},
     f"Program: compute option 'compile_args' is not a field of ComputeConfigDescriptor: expected {COMPUTE_FIELDS}"),
    ("fidelity-name", {"math_fidelity": "HiFi1"},
     "Program: compute math_fidelity 'HiFi1': expected LoFi, HiFi2, HiFi3 or HiFi4"),
    ("flag-int", {"fp32_dest_acc_en": 1}, "Program: compute fp32_dest_acc_en must be True or False, got 1 (int)"),
    ("flag-str", {"enable_trisc2_rvv": "yes"},
     "Program: compute enable_trisc2_rvv must be True or False, got 'yes' (str)"),
    ("mode-name", {"unpack_to_dest_mode": "Fp32"},
     "Program: compute unpack_to_dest_mode 'Fp32': expected 'UnpackToDestFp32', 'Default' or {cb: name}"),
    ("mode-per-cb", {"unpack_to_dest_mode": {0: "Fp32"}},
     "Program: compute unpack_to_dest_mode[0] 'Fp32': expected 'UnpackToDestFp32' or 'Default'"),
    ("mode-int", {"unpack_to_dest_mode": 1},
     "Program: compute unpack_to_dest_mode must be a name or {cb: name}, got 1 (int)"),
]


@pytest.mark.parametrize("compute,text", [c[1:] for c in COMPUTE_ERRORS], ids=[c[0] for c in COMPUTE_ERRORS])
def test_compute_option_errors(compute, text):
    assert message(km.ProgramError, lambda: km.Program("c", BASIC, compute=compute)) == text


def test_compute_mode_cb_index():
    assert message(ValueError, lambda: km.Program("c", BASIC, compute={"unpack_to_dest_mode": {64: "Default"}})) == (
        "Program: compute unpack_to_dest_mode's CB index must be an integer (0..63), got 64")


def test_compute_must_be_a_dict():
    assert message(TypeError, lambda: km.Program("c", BASIC, compute=["math_fidelity"])) == (
        "Program: compute must be a dict of ComputeConfigDescriptor fields, got ['math_fidelity'] (list)")


@pytest.mark.parametrize("level", ["O0", "O1", "O2", "O3", "Os", "Ofast", "Oz"])
def test_opt_levels_accepted(level):
    p = km.Program("o", BASIC, opt={"reader": level, "writer": level, "compute": level})
    assert p.opt == {"reader": level, "writer": level, "compute": level}


@pytest.mark.parametrize("kernel,level", [("reader", "O4"), ("writer", "-O2"), ("compute", "os"), ("reader", 2),
                                          ("writer", "")])
def test_opt_levels_refused(kernel, level):
    assert message(km.ProgramError, lambda: km.Program("o", BASIC, opt={kernel: level})) == (
        f"Program: opt[{kernel!r}] = {level!r} is not an optimisation level: expected one of O0, O1, O2, O3, Os, "
        f"Ofast, Oz")


def test_opt_key_refused():
    assert message(km.ProgramError, lambda: km.Program("o", BASIC, opt={"math": "O2"})) == (
        "Program: opt key 'math': expected reader, writer or compute")


def test_fields_reach_the_kernels(session):
    """defines, compile_args and args(core), read back from the probe's
    handlers as result words."""
    seen = []

    def args(core):
        seen.append(core)
        i = core[1] * GRID[0] + core[0]
        return [100 + i], (200 + i,), np.array([300 + i])

    run = session.load(probe_program(defines={"PROBE_VALUE": 4321}, compile_args={"writer": [77]}, args=args))
    assert sorted(seen) == sorted((x, y) for x in range(GRID[0]) for y in range(GRID[1]))
    every = [(i, 1) for i in range(CORES)]
    assert results(run, "define", [(0, CORES)]) == [4321]
    assert results(run, "compile_arg", [(5, 1)]) == [77]
    assert results(run, "reader_arg", every) == [100 + i for i in range(CORES)]
    assert results(run, "writer_arg", every) == [200 + i for i in range(CORES)]
    assert results(run, "compute_arg", every) == [300 + i for i in range(CORES)]
    assert results(run, "core_index", every) == list(range(CORES))
    # Without opt no kernel has KM_OPT_LEVEL.
    assert results(run, "writer_opt", [(0, 1)]) + results(run, "reader_opt", [(0, 1)]) == [NO_OPT_LEVEL] * 2
    assert run.stop().clean
    run = session.load(probe_program())  # without the define: the probe's default
    assert results(run, "define", [(0, 1)]) == [0]
    assert run.stop().clean


# probe_build.hpp's build_flags() bits: what the compiler predefines at each
# level (__OPTIMIZE__ 1, __OPTIMIZE_SIZE__ 2, __FAST_MATH__ 4, __NO_INLINE__ 8).
LEVEL_FLAGS = {"O0": 8, "O1": 1, "O2": 1, "O3": 1, "Os": 3, "Ofast": 5, "Oz": 3}
PACK_PRECISE, TRISC2_RVV = 16, 32


@pytest.mark.parametrize("level", ["O0", "O1", "O2", "O3", "Os", "Ofast", "Oz"])
def test_opt_level_loads_and_defines_km_opt_level(session, level):
    run = session.load(probe_program(opt={"writer": level}))
    writer_level, reader_level = results(run, "writer_opt", [(0, 1)]) + results(run, "reader_opt", [(0, 1)])
    assert writer_level == OPT_LEVELS.index(level)  # a set level defines KM_OPT_LEVEL for that kernel only
    assert reader_level == NO_OPT_LEVEL
    assert run.stop().clean


@pytest.mark.parametrize("level", ["O0", "O1", "O2", "O3", "Os", "Ofast", "Oz"])
def test_opt_level_is_the_simulated_kernels_build(session, level):
    """The simulated writer and compute kernels are compiled at the level
    set, not only the size estimate; the unset reader keeps its default."""
    run = session.load(probe_program(opt={"writer": level, "compute": level}))
    assert results(run, "writer_build", [(0, 1)]) == [LEVEL_FLAGS[level]]
    assert results(run, "compute_build", [(0, 1)]) == [LEVEL_FLAGS[level]]
    assert run.stop().clean
    run = session.load(probe_program())  # the defaults: O2 and O3
    assert results(run, "writer_build", [(0, 1)]) + results(run, "compute_build", [(0, 1)]) == [1, 1]
    assert run.stop().clean


@pytest.mark.parametrize("options,flags", [({}, 0), ({"bfp8_pack_precise": True}, PACK_PRECISE),
                                           ({"enable_trisc2_rvv": True}, TRISC2_RVV),
                                           ({"bfp8_pack_precise": True, "enable_trisc2_rvv": True},
                                            PACK_PRECISE | TRISC2_RVV)],
                         ids=["neither", "bfp8_pack_precise", "enable_trisc2_rvv", "both"])
def test_compute_build_options_reach_the_compute_kernel(session, options, flags):
    run = session.load(probe_program(compute=options))
    assert results(run, "compute_build", [(0, 1)]) == [LEVEL_FLAGS["O3"] | flags]
    assert results(run, "writer_build", [(0, 1)]) == [LEVEL_FLAGS["O2"]]  # compute options are the compute kernel's
    assert run.stop().clean


ARGS_ERRORS = [
    ("two", lambda core: ([1], [2]), km.ProgramError,
     "Program 'basic': args((0, 0)) must return (reader, writer, compute), got ([1], [2]) (tuple)"),
    ("none", lambda core: None, km.ProgramError,
     "Program 'basic': args((0, 0)) must return (reader, writer, compute), got None (NoneType)"),
    ("dict", lambda core: {"reader": []}, km.ProgramError,
     "Program 'basic': args((0, 0)) must return (reader, writer, compute), got {'reader': []} (dict)"),
    ("word", lambda core: ([1], [-2], [3]), ValueError,
     "Program: args((0, 0))[1][0] must be an integer word (0..4294967295), got -2"),
    ("not-a-list", lambda core: ([1], [2], 3), TypeError,
     "Program: args((0, 0))[2] must be a list of integer words, got 3 (int)"),
    ("late-core", lambda core: ([], [], []) if core != (3, 1) else ([], []), km.ProgramError,
     "Program 'basic': args((3, 1)) must return (reader, writer, compute), got ([], []) (tuple)"),
]


@pytest.mark.parametrize("args,exc,text", [c[1:] for c in ARGS_ERRORS], ids=[c[0] for c in ARGS_ERRORS])
def test_args_shapes(session, lines, args, exc, text):
    assert message(exc, lambda: session.load(basic_program(args=args))) == text
    assert not any(line.startswith("launch:") for line in lines)  # refused before anything was launched
    assert session.run is None


def test_args_must_be_callable():
    assert message(TypeError, lambda: basic_program(args=[[1], [2], [3]])) == (
        "Program: args must be None or a callable args(core) -> (reader, writer, compute), got [[1], [2], [3]] (list)")


PROGRAM_ERRORS = [
    ("name", TypeError, lambda: km.Program(5, BASIC), "Program: name must be a str, got 5 (int)"),
    ("no-directory", km.ProgramError, lambda: km.Program("p", "/nonexistent/kernels"),
     "Program: kernels '/nonexistent/kernels' is not a directory (expected one with reader.cpp, compute.cpp and "
     "writer.cpp, or a dict of the three paths)"),
    ("kernels-type", TypeError, lambda: km.Program("p", 5),
     "Program: kernels must be a directory or a dict of reader, compute and writer paths, got 5 (int)"),
    ("dict-missing", km.ProgramError, lambda: km.Program("p", {"reader": BASIC / "reader.cpp"}),
     "Program: kernels must name exactly reader, compute and writer; missing: compute, writer"),
    ("dict-unknown", km.ProgramError,
     lambda: km.Program("p", {k: BASIC / f"{k}.cpp" for k in ("reader", "compute", "writer", "math")}),
     "Program: kernels must name exactly reader, compute and writer; unknown: math"),
    ("no-file", km.ProgramError, lambda: km.Program("p", BASIC.parent),
     f"Program: the reader kernel '{BASIC.parent / 'reader.cpp'}' does not exist"),
    ("buffer-type", TypeError, lambda: km.Program("p", BASIC, buffers=[(0, "uint32", 64, 1)]),
     "Program: buffers must be tessel.dispatch.Buffer values, got (0, 'uint32', 64, 1) (tuple)"),
    ("buffer-twice", km.ProgramError,
     lambda: km.Program("p", BASIC, buffers=[km.Buffer(0, "uint32", 64, 1), km.Buffer(0, "uint8", 64, 1)]),
     "Program: circular buffer indices are given twice: [0, 0]"),
    ("compile-args-key", km.ProgramError, lambda: km.Program("p", BASIC, compile_args={"math": [1]}),
     "Program: compile_args key 'math': expected reader, writer or compute"),
    ("compile-args-word", ValueError, lambda: km.Program("p", BASIC, compile_args={"reader": [1, -1]}),
     "Program: compile_args['reader'][1] must be an integer word (0..4294967295), got -1"),
    ("define-name", TypeError, lambda: km.Program("p", BASIC, defines={1: "x"}),
     "Program: a define's name must be a str, got 1 (int)"),
    ("handler-0", km.ProgramError, lambda: km.Program("p", BASIC, handlers={"a": 0}),
     "Program: handlers: handler 'a' is 0: handler numbers are 1 to 239: 0 is NOP, 240 to 251 are reserved"),
    ("handler-240", km.ProgramError, lambda: km.Program("p", BASIC, handlers={"a": 240}),
     "Program: handlers: handler 'a' is 240: handler numbers are 1 to 239: 0 is NOP, 240 to 251 are reserved"),
    ("handler-twice", km.ProgramError, lambda: km.Program("p", BASIC, handlers={"a": 7, "b": 7}),
     "Program: handlers: handlers 'a' and 'b' are both 7: each handler needs its own number"),
    ("handlers-type", TypeError, lambda: km.Program("p", BASIC, handlers=5),
     "Program: handlers must be a dict {name: number} or a header path, got 5 (int)"),
    ("handlers-no-header", km.HeaderError, lambda: km.Program("p", BASIC, handlers="/nonexistent/handlers.hpp"),
     "Program: handlers: cannot read /nonexistent/handlers.hpp: No such file or directory"),
]


@pytest.mark.parametrize("exc,fn,text", [c[1:] for c in PROGRAM_ERRORS], ids=[c[0] for c in PROGRAM_ERRORS])
def test_program_errors(exc, fn, text):
    assert message(exc, fn) == text


def test_program_errors_are_tessel_program_errors():
    with pytest.raises(tessel.ProgramError):
        basic_program(depth=0)


def test_load_lays_the_program_out_against_the_kernel_buffer(session, lines):
    program = basic_program()
    run = session.load(program)
    run.stop()
    sizes = program.sizes
    assert isinstance(sizes, km.KernelSizes)
    assert list(sizes.threads) == ["reader", "writer", "unpack", "math", "pack"]
    assert all(v > 0 for v in sizes.threads.values())
    assert sizes.buffer == 70656 and sizes.total == sum(sizes.threads.values()) <= 70656
    line = (f"kernel sizes (estimate): {', '.join(f'{k} {v}' for k, v in sizes.threads.items())}; total "
            f"{sizes.total} of 70656 bytes")
    assert sizes.line() == line and lines.count(line) == 1


# ---------------------------------------------------------------------------
# Session: the clock, the kernel buffer, L1


@pytest.mark.parametrize("mhz", [200, 800, 1000, 1750])
def test_pll_steps(small, mhz):
    lines = []
    with km.Session(device=small, pll_mhz=mhz, log=lines.append) as s:
        assert not s.closed
    assert lines[1] == f"X280 clock set to {mhz} MHz"


@pytest.mark.parametrize("mhz", [0, 100, 999, 1001, 1500, 2000, -1000, "1000", True, None])
def test_pll_other_values(small, mhz):
    assert message(ValueError, lambda: km.Session(device=small, pll_mhz=mhz)) == (
        f"Session: pll_mhz {mhz!r} is not one of the runtime's steps: expected 200, 800, 1000 or 1750")


def test_pll_as_a_float(small):
    try:
        s = km.Session(device=small, pll_mhz=1000.0)
    except ValueError as e:
        assert str(e).startswith("Session: pll_mhz 1000.0 is not one of the runtime's steps")
    else:
        s.close()


def test_l1_by_default(small):
    lines = []
    with km.Session(device=small, log=lines.append) as s:
        assert s.l1() == (70656, 1461120)
    assert lines[2] == "kernel buffer 70656 bytes, L1 left 1461120 bytes per core"


@pytest.mark.parametrize("kernel_bytes,left", [(131072, 1400704), (64, 1531712), (1531712, 64), (70656, 1461120)])
def test_kernel_bytes(kernel_bytes, left):
    lines = []
    with km.Session(kernel_bytes=kernel_bytes, log=lines.append) as s:
        assert s.l1() == (kernel_bytes, left)
        assert s.grid == (12, 10) and s.device.is_open
    assert not s.device.is_open  # the session closes the device it opened
    assert f"kernel buffer {kernel_bytes} bytes, L1 left {left} bytes per core" in lines


@pytest.mark.parametrize("kernel_bytes,exc,text", [
    (100, ValueError, "Session: kernel_bytes 100 is not a multiple of 64"),
    (131136 + 32, ValueError, "Session: kernel_bytes 131168 is not a multiple of 64"),
    (0, ValueError, "Session: kernel_bytes must be an integer (64..1531712), got 0"),
    (32, ValueError, "Session: kernel_bytes must be an integer (64..1531712), got 32"),
    (1531776, ValueError, "Session: kernel_bytes must be an integer (64..1531712), got 1531776"),
    ("65536", TypeError, "Session: kernel_bytes must be an integer (64..1531712), got '65536' (str)"),
    (65536.0, TypeError, "Session: kernel_bytes must be an integer (64..1531712), got 65536.0 (float)"),
], ids=["not-64", "not-64-large", "zero", "below", "above", "str", "float"])
def test_kernel_bytes_rules(kernel_bytes, exc, text):
    assert message(exc, lambda: km.Session(kernel_bytes=kernel_bytes)) == text


def test_kernel_bytes_only_when_the_session_opens_the_device(small):
    text = message(tessel.ValidationError, lambda: km.Session(device=small, kernel_bytes=131072))
    assert text == "Session: kernel_bytes is set only when the session opens the device (device= was given)"
    with km.Session(device=small) as s:  # the device is as it was
        assert s.l1() == (70656, 1461120)


def test_policy_only_when_the_session_opens_the_device(small):
    text = message(tessel.ValidationError, lambda: km.Session(device=small, policy="parallel:3"))
    assert text == ("Session: policy is set only when the session opens the device (device= was given: it runs "
                    "under its own policy, 'deterministic'; set the policy on that device instead)")
    with km.Session(device=small) as s:  # the device is as it was, and runs under its own policy
        assert s.device.policy == "deterministic"
    with km.Session(policy="parallel:2") as s:
        assert s.device.policy == "parallel:2"


def test_buffers_must_fit_the_l1_left(session, lines):
    big = km.Program("big", BASIC, buffers=[km.Buffer(0, "uint8", 1 << 20, 2)], handlers={"fill": 1})
    assert message(km.ProgramError, lambda: session.load(big)) == (
        "Program 'big': its circular buffers take 2097296 bytes per core, but 1461120 bytes of L1 are left beside "
        "the kernel buffer of 70656 bytes")
    assert not any(line.startswith("launch:") for line in lines)
    run = session.load(basic_program())  # nothing was left behind
    assert run.wait(run.submit(0), timeout=5.0).kind == "done"
    run.stop()


def test_kernel_bytes_take_from_the_l1_left():
    with km.Session(kernel_bytes=1531712) as s:
        assert message(km.ProgramError, lambda: s.load(basic_program())) == (
            "Program 'basic': its circular buffers take 208 bytes per core, but 64 bytes of L1 are left beside the "
            "kernel buffer of 1531712 bytes")


SESSION_ERRORS = [
    ("device", TypeError, dict(device="card"), "Session: device must be a tessel.Device or None, got 'card' (str)"),
    ("log", TypeError, dict(log=5), "Session: log must be a callable taking one line, got 5 (int)"),
    ("grid-timeout", ValueError, dict(grid_timeout=0), "Session: grid_timeout must be positive seconds, got 0 (int)"),
    ("card-negative", ValueError, dict(card=-1), "Session: card must be an integer (0..255), got -1"),
    ("card-256", ValueError, dict(card=256), "Session: card must be an integer (0..255), got 256"),
    ("card-str", TypeError, dict(card="0"), "Session: card must be an integer (0..255), got '0' (str)"),
    ("tree", TypeError, dict(tree=5), "Session: tree must be a str, got 5 (int)"),
]


@pytest.mark.parametrize("exc,kw,text", [c[1:] for c in SESSION_ERRORS], ids=[c[0] for c in SESSION_ERRORS])
def test_session_errors(exc, kw, text):
    assert message(exc, lambda: km.Session(**kw)) == text


def test_card_and_tt_visible_devices(card_lock, monkeypatch):
    monkeypatch.setenv("TT_VISIBLE_DEVICES", "1")
    assert message(tessel.ValidationError, lambda: km.Session(card=2)) == (
        "Session: card=2 but TT_VISIBLE_DEVICES already names 1")
    assert not (card_lock / "tessel-card-2.lock").exists()  # refused before the card was taken


def test_closed_device(small):
    small.close()
    assert message(tessel.ValidationError, lambda: km.Session(device=small)) == "Session: the device given is closed"


# ---------------------------------------------------------------------------
# Session: the log, the context manager, close()


def test_log_has_one_line_per_step(small):
    lines = []
    program = basic_program()
    with km.Session(device=small, log=lines.append) as s:
        run = s.load(program)
        run.wait(run.submit(0), timeout=5.0)
        run.stop()
    assert lines[:5] == [
        "opened a card of its own: blackhole, 4 x 2 Tensix cores, as a 1 x 1 mesh in slow dispatch, program cache off",
        "X280 clock set to 1000 MHz",
        "kernel buffer 70656 bytes, L1 left 1461120 bytes per core",
        program.sizes.line(),
        "launch: program 'basic' on 8 cores, depth 4, host depth 64, event depth 128",
    ]
    assert lines[5].startswith("kernel started: READY from every core (8) in ") and lines[5].endswith(" ms")
    assert lines[6:] == ["kernel finished: 1 commands, state 5, error none", "read back: 8 cores' state words",
                         "runtime closed"]


def test_with_block_stops_the_run_on_a_normal_exit(small):
    lines = []
    with km.Session(device=small, log=lines.append) as s:
        run = s.load(basic_program())
        handles = [run.submit(0), run.submit("result", group=(1, 2), args=[4])]  # never waited for
    assert s.closed and run.stopped
    assert small.is_open  # the caller's device
    result = run.result()
    assert result.clean and result.error_name == "none"
    assert (result.commands, result.events, result.abandoned) == (2, 2, [])
    assert [run.event(h).kind for h in handles] == ["done", "done"]  # the stop drained them
    assert "kernel finished: 2 commands, state 5, error none" in lines
    assert not any(line.startswith("run aborted") for line in lines)
    assert lines[-1] == "runtime closed"


def test_with_block_aborts_the_run_on_an_exception(small):
    lines = []
    with pytest.raises(RuntimeError, match="^boom$"):
        with km.Session(device=small, log=lines.append) as s:
            run = s.load(basic_program())
            handles = [run.submit(0), run.submit(0, group=(2, 3))]  # queued on the host, never stored
            raise RuntimeError("boom")
    assert s.closed and run.stopped
    result = run.result()
    assert result.abandoned == handles and not result.clean
    assert "run aborted: 2 commands abandoned" in lines
    assert not any(line.startswith("kernel finished") for line in lines)  # no EXIT, no stop
    assert lines[-1] == "runtime closed"


def test_close_of_a_loaded_run_aborts_it(small, lines):
    s = km.Session(device=small, log=lines.append)
    run = s.load(basic_program())
    run.wait(run.submit(0), timeout=5.0)
    s.close()
    assert s.closed and run.stopped
    assert run.result().abandoned == [] and not run.result().clean
    assert lines[-2:] == ["run aborted: 0 commands abandoned", "runtime closed"]
    s.close()  # once is enough
    assert lines.count("runtime closed") == 1
    assert message(km.DispatchError, lambda: s.load(basic_program())) == "Session.load: the session is closed"
    assert repr(s) == "Session(grid=(4, 2), closed=True)"
    with km.Session(device=small) as again:  # the caller's device stays open
        assert again.grid == GRID


def test_close_without_a_run(small, lines):
    s = km.Session(device=small, log=lines.append)
    assert repr(s) == "Session(grid=(4, 2), closed=False)"
    s.close()
    assert lines[-1] == "runtime closed" and s.closed


def test_abort_of_an_idle_run_is_prompt_and_says_stopped(session):
    import time

    for _ in range(3):
        run = session.load(basic_program())
        run.wait(run.submit(0), timeout=5.0)
        t0 = time.perf_counter()
        result = run.abort()
        assert time.perf_counter() - t0 < 1.0
        assert result.error_name == "stopped"
        assert "did not leave their loops" not in result.message and "kernel_main" not in result.message


def test_a_load_aborts_the_run_still_loaded(session, lines):
    first = session.load(basic_program())
    pending = first.submit(0)  # queued on the host
    second = session.load(basic_program())
    assert first.stopped and first.result().abandoned == [pending]
    assert "run aborted: 1 commands abandoned" in lines
    assert message(tessel.ValidationError, lambda: first.submit(0)) == (
        "Run.submit: the run is stopped; load the program again")
    assert second.wait(second.submit(0), timeout=5.0).kind == "done"  # handles start again at 1
    assert second.stop().clean


def test_tensors_wait_for_the_run(session):
    t = session.tensor(np.arange(16, dtype=np.uint32).reshape(2, 8), "uint32")
    run = session.load(basic_program())
    assert message(km.DispatchError, lambda: session.tensor([1, 2], "uint32")) == (
        "session.tensor: a persistent run is loaded; the cores of a loaded run return only at its stop, so this "
        "would wait forever: write before session.load(...) or after run.stop()")
    run.stop()
    np.testing.assert_array_equal(t.read(), np.arange(16, dtype=np.uint32).reshape(2, 8))


# ---------------------------------------------------------------------------
# session.nocs()


def test_nocs_small_grid(session):
    nocs = session.nocs()
    assert isinstance(nocs, km.layout.Nocs) and nocs.grid == GRID
    # tessel's Blackhole: worker (x, y) at NoC (x + 1, y + 2), no translation.
    assert nocs.noc_xy == {(x, y): (x + 1, y + 2) for x in range(GRID[0]) for y in range(GRID[1])}
    assert nocs.noc0 == nocs.noc_xy
    assert nocs.words == [0x20001, 0x20002, 0x20003, 0x20004, 0x30001, 0x30002, 0x30003, 0x30004]
    assert repr(nocs) == "Nocs(grid=(4, 2))"


def test_nocs_full_grid(device):
    with km.Session(device=device) as s:
        words = s.nocs().words
    assert len(words) == 120
    assert words[0] == 1 | 2 << 16 and words[11] == 12 | 2 << 16 and words[12] == 1 | 3 << 16
    assert words[-1] == 12 | 11 << 16
    assert words == [(i % 12 + 1) | (i // 12 + 2) << 16 for i in range(120)]


def test_nocs_panels(session):
    assert session.nocs().panels
