"""aie.utils over tessel in one process: test-program runs through design
records (the xrt and hostruntime paths), run_design_cli's modes, and the jit
and Runtime spellings IRON's designs use."""

import argparse
import json

import numpy as np
import pytest
import tessel.iron as iron
from tessel.iron import design_record
from tessel.iron import device as device_mod
from tessel.iron.utils import xrt
from tessel.iron.utils.hostruntime import DEFAULT_IRON_RUNTIME
from tessel.iron.utils.hostruntime.cli import run_design_cli

from .common import ADD, add_k_worker, add_kernel, fill_drain, per_object
from .common import FRONT_DOOR_DATA as DATA

pytestmark = pytest.mark.usefixtures("close_named_devices")


@pytest.fixture
def record(tmp_path, monkeypatch):
    """build/aie.mlir: the record of the old-API design run with -d npu -n 128."""
    script = tmp_path / "old_api_design.py"
    script.write_text((DATA / "old_api_design.py").read_text())
    monkeypatch.setattr(design_record, "_run", (str(script), ["-d", "npu", "-n", "128"], str(tmp_path), {}))
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "aie.mlir").write_text("// a design\n" + design_record.record_line() + "\n")
    monkeypatch.setattr(design_record, "_run", None)
    return tmp_path / "build"


def _opts(build, **kw):
    return argparse.Namespace(xclbin=str(build / "final.xclbin"), instr=str(build / "insts.bin"), verify=True,
                              trace_size=0, verbosity=0, **kw)


def test_setup_and_run_aie_tensor_forms(bound, record, capsys):
    a = iron.arange(128, dtype=np.int32)
    out = iron.zeros(128, dtype=np.int32)
    assert xrt.setup_and_run_aie(a, None, out, a.numpy() + 7, _opts(record)) == 0
    assert np.array_equal(out.numpy(), a.numpy() + 7)
    out.fill_(0)
    assert xrt.setup_and_run_aie([a, out], a.numpy() + 8, _opts(record)) == 1  # io_args form; a wrong reference
    assert capsys.readouterr().out.count("PASS!") == 1


def test_npu_kernel_runs_the_recorded_design(bound, record):
    from tessel.iron.utils import NPUKernel

    kernel = NPUKernel(str(record / "final.xclbin"), str(record / "insts.bin"))
    a, out = iron.arange(128, dtype=np.int32), iron.zeros(128, dtype=np.int32)
    kernel(a, out)
    assert np.array_equal(out.numpy(), a.numpy() + 7)


def test_host_runtime_views_byte_sized_buffers(bound, record):
    handle = DEFAULT_IRON_RUNTIME.load(record / "final.xclbin", record / "insts.bin")
    a = np.arange(128, dtype=np.int32).view(np.uint8)  # test programs size buffers in bytes
    out = np.zeros(512, dtype=np.uint8)
    result = DEFAULT_IRON_RUNTIME.run(handle, [a, out])
    assert result.npu_time > 0
    assert np.array_equal(out.view(np.int32), np.arange(128, dtype=np.int32) + 7)
    with pytest.raises(TypeError, match=r"^design 'sequence': host buffer 1 must hold 128 x int32 \(512 bytes\), "
                                         r"got 3 x int16 \(6 bytes\)$"):
        DEFAULT_IRON_RUNTIME.run(handle, [a, np.zeros(3, np.int16)])


def test_trace_file_holds_a_note(bound, record, tmp_path):
    a = np.arange(128, dtype=np.int32)
    out = np.zeros(128, dtype=np.int32)
    trace = tmp_path / "trace.txt"
    opts = _opts(record, trace_file=str(trace))
    opts.trace_size = 64
    assert xrt.setup_and_run_aie(a, None, out, a + 7, opts) == 0
    assert trace.read_text().startswith("# tessel: no hardware trace (simulated device); set TESSEL_TRACE=FILE")


def test_runtime_sequence_given_body_and_fn_args(device):
    n = 32
    ty = np.ndarray[(n,), np.dtype[np.int32]]
    of_in, of_out, w = add_k_worker(n, 3)
    rt = iron.Runtime()
    rt.sequence(fill_drain, [ty, ty, of_in.prod(), of_out.cons()])
    design = iron.Program(device, rt, workers=[w]).resolve_program()
    a, c = np.arange(n, dtype=np.int32), np.zeros(n, dtype=np.int32)
    design(a, c)
    assert np.array_equal(c, a + 3)


def test_jit_star_args_generator_gets_the_call_arguments(device, monkeypatch, tmp_path):
    monkeypatch.setenv("TESSEL_CACHE_DIR", str(tmp_path))  # the build is this test's, not an earlier run's
    n = 32
    ty = np.ndarray[(n,), np.dtype[np.int32]]
    seen = []

    def gen(kernel, a, c, *params):
        seen.append(params)
        of_in, of_out = iron.ObjectFifo(ty, name="in"), iron.ObjectFifo(ty, name="out")
        w = iron.Worker(per_object(params[0], n), fn_args=[of_in.cons(), of_out.prod(), kernel])
        rt = iron.Runtime(fill_drain, [ty, ty, of_in.prod(), of_out.cons()])
        return iron.Program(device, rt, workers=[w]).resolve_program()

    kernel = add_kernel(n)
    a, c = iron.arange(n, dtype=np.int32), iron.zeros(n, dtype=np.int32)
    design = iron.jit(is_placed=False)(gen)
    design(kernel, a, c, 4)
    design(kernel, a, c, 4)
    assert seen == [(4,)]  # built once: the arguments are the key
    assert np.array_equal(c.numpy(), a.numpy() + 4)


def _cli_design(device):
    @iron.jit
    def design(a: iron.In, c: iron.Out, *, n: iron.CompileTime[int] = 16):
        ty = np.ndarray[(n,), np.dtype[np.int32]]
        of_in, of_out = iron.ObjectFifo(ty, name="in"), iron.ObjectFifo(ty, name="out")
        k = iron.ExternalFunction("add_k", source_string=ADD, arg_types=[ty, ty, np.int32, np.int32])
        w = iron.Worker(per_object(1, n), fn_args=[of_in.cons(), of_out.prod(), k])

        def seq(x, y, i, o):
            i.fill(x)
            o.drain(y, wait=True)

        rt = iron.Runtime(seq, [ty, ty, of_in.prod(), of_out.cons()])
        return iron.Program(device, rt, workers=[w]).resolve_program()

    return design


def test_run_design_cli_modes(device, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(device_mod, "_current", device_mod._current)  # the modes set the current device
    design = _cli_design(device)
    opts = argparse.Namespace(dev="npu", emit_mlir=True, xclbin_path=None, insts_path=None)
    run_design_cli(design, opts, compile_kwargs={"n": 16})
    assert capsys.readouterr().out.startswith("// tessel.iron design 'seq' from test_iron_utils.py")
    opts = argparse.Namespace(dev="npu", emit_mlir=False, xclbin_path=None, insts_path=None)
    with pytest.raises(ValueError, match=r"^run_design_cli: neither --emit-mlir nor --xclbin-path is set, and no "
                                         r"run_and_verify callback was given$"):
        run_design_cli(design, opts, compile_kwargs={})
    monkeypatch.setattr(design_record, "_run", (__file__, ["--xclbin-path"], str(tmp_path), {}))
    opts = argparse.Namespace(dev="npu2", emit_mlir=False, xclbin_path=str(tmp_path / "final.xclbin"),
                              insts_path=str(tmp_path / "insts.bin"))
    run_design_cli(design, opts, compile_kwargs={"n": 16})
    assert json.loads((tmp_path / "final.xclbin").read_text().splitlines()[1][len(design_record.MARKER):])["args"] \
        == ["--xclbin-path"]
    assert type(iron.get_current_device()) is iron.NPU2


def test_is_placed_marks_the_older_jit(device):
    n = 32
    ty = np.ndarray[(n,), np.dtype[np.int32]]

    @iron.jit(is_placed=False)
    def gen(a, c, k):  # k is a number, not a tensor: the older jit passed it through
        of_in, of_out, w = add_k_worker(n, k)

        def seq(x, y, i, o):
            i.fill(x)
            o.drain(y, wait=True)

        rt = iron.Runtime(seq, [ty, ty, of_in.prod(), of_out.cons()])
        return iron.Program(device, rt, workers=[w]).resolve_program()

    a, c = iron.arange(n, dtype=np.int32), iron.zeros(n, dtype=np.int32)
    gen(a, c, 6)
    assert np.array_equal(c.numpy(), a.numpy() + 6)


def test_runtime_given_buffer_types_then_fn_args_handles(device):
    n = 32
    ty = np.ndarray[(n,), np.dtype[np.int32]]
    of_in, of_out, w = add_k_worker(n, 2)

    def seq(a, _, c, i, o):
        i.fill(a)
        o.drain(c, wait=True)

    rt = iron.Runtime(seq, [ty, ty, ty], fn_args=[of_in.prod(tile=iron.AnyShimTile), of_out.cons()])
    design = iron.Program(device, rt, workers=[w]).resolve_program()
    a, unused, c = np.arange(n, dtype=np.int32), np.zeros(n, dtype=np.int32), np.zeros(n, dtype=np.int32)
    design(a, unused, c)
    assert np.array_equal(c, a + 2)
    with pytest.raises(TypeError, match=r"^Runtime: takes the sequence body and its fn_args, got 3 positional"):
        iron.Runtime(seq, [ty], [of_in.prod()])


def test_default_argparser_yields_flags_a_test_program_adds_itself():
    from tessel.iron.utils.test import create_default_argparser

    p = create_default_argparser()
    p.add_argument("-s", "--size", type=int, required=True, help="the program's own")
    opts = p.parse_args(["-x", "final.xclbin", "-s", "4096", "-i1s", "4096"])
    assert opts.size == 4096 and opts.in1_size == "4096" and opts.kernel == "MLIR_AIE"


def test_trailing_buffers_the_sequence_never_moves_may_be_left_out(device):
    """A test program passes XRT the buffers the sequence uses; the others it may leave out."""
    from tessel.iron.utils.hostruntime import bind_buffers

    n = 32
    ty = np.ndarray[(n,), np.dtype[np.int32]]

    def build(moves_last):
        of_in, of_out, w = add_k_worker(n, 3)

        def seq(a, b, c, i, o):
            i.fill(a)
            o.drain(c if moves_last else b, wait=True)

        rt = iron.Runtime(seq, [ty, ty, ty], fn_args=[of_in.prod(), of_out.cons()])
        return iron.Program(device, rt, workers=[w]).resolve_program()

    design = build(moves_last=False)
    assert design.moved_buffers == {0, 1}
    a, b = np.arange(n, dtype=np.int32), np.zeros(n, dtype=np.int32)
    arrays = bind_buffers(design, [a, b])
    assert len(arrays) == 3 and arrays[1] is b and not arrays[2].any()
    design.run(arrays)
    assert np.array_equal(b, a + 3)
    with pytest.raises(TypeError, match=r"^design 'seq' takes 3 host buffers \(32 x int32, 32 x int32, 32 x int32\) "
                                         r"and moves buffer 2; got 2$"):
        bind_buffers(build(moves_last=True), [a, b])
    one_byte = np.zeros(1, dtype=np.uint8)  # a testbench's placeholder for a buffer the sequence never moves
    arrays = bind_buffers(design, [a, b, one_byte])
    assert arrays[2].shape == (n,) and arrays[2] is not one_byte
