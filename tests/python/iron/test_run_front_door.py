"""`python -m tessel.iron.run`: IRON designs and test programs run unchanged
(subprocesses: a design record written by one, run by the other), the `aie`
module binding, and the older Runtime API."""

import os
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import tessel.iron as iron
from tessel.iron.errors import IronRuntimeError
from tessel.iron.run import aliases
from tessel.module_alias import OutOfScopeImport

from .common import FRONT_DOOR_DATA as DATA


pytestmark = pytest.mark.usefixtures("close_named_devices")


def _run(args, cwd, stdout=subprocess.PIPE):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    return subprocess.run([sys.executable, "-m", "tessel.iron.run", *map(str, args)], cwd=cwd, env=env,
                          stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=600)


def test_old_api_design_record_then_test_program(tmp_path):
    for name in ("old_api_design.py", "xrt_program.py"):
        (tmp_path / name).write_text((DATA / name).read_text())
    (tmp_path / "build").mkdir()
    with open(tmp_path / "build" / "aie.mlir", "w") as out:
        r = _run(["old_api_design.py", "-d", "npu"], tmp_path, stdout=out)
    assert r.returncode == 0, r.stderr
    record = (tmp_path / "build" / "aie.mlir").read_text()
    assert record.startswith("// tessel.iron design 'sequence' from old_api_design.py, resolved for NPU1Col1() "
                             "(a 1x6 grid)")
    assert "//   worker worker0 on core (0,0): in.cons(), out.prod()" in record
    assert '// tessel-iron-design-record {"script": ' in record and '"args": ["-d", "npu"]' in record
    r = _run(["xrt_program.py", "-x", "build/final.xclbin", "-i", "build/insts.bin", "-k", "MLIR_AIE"], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PASS!" in r.stdout


def test_new_api_design_gets_argv_file_path_and_its_exit_status(tmp_path):
    r = _run([DATA / "new_api_design.py", "3"], tmp_path)
    assert r.returncode == 3, r.stderr
    assert "PASS!" in r.stdout


def test_mlir_level_import_is_a_clear_error(tmp_path):
    r = _run([DATA / "mlir_design.py"], tmp_path)
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert r.stderr.strip() == (
        "python -m tessel.iron.run: " + str(DATA / "mlir_design.py") + " (mlir_design.py:4): aie.dialects is one "
        "of IRON's MLIR-level modules: a design importing it builds MLIR directly, which is out of scope for tessel "
        "(it runs designs written with IRON's Python API: aie.iron, aie.utils, aie.helpers.taplib)")


def test_test_program_without_a_record_says_how_to_write_one(tmp_path):
    (tmp_path / "xrt_program.py").write_text((DATA / "xrt_program.py").read_text())
    r = _run(["xrt_program.py", "-x", "build/final.xclbin", "-i", "build/insts.bin"], tmp_path)
    assert r.returncode == 1
    assert ("no tessel design record for build/final.xclbin: tessel builds no xclbin; write the record with "
            "`python -m tessel.iron.run DESIGN.py ARGS > " + str(tmp_path / "build" / "aie.mlir") + "`") in r.stderr


def test_aie_names_bind_to_tessel_modules(bound):
    import aie.helpers.taplib
    import aie.iron
    import aie.iron.controlflow
    import aie.iron.device
    import aie.iron.hostruntime
    import aie.utils.xrt
    from aie.helpers.taplib.tap import TensorAccessPattern
    from aie.iron.dataflow.objectfifo import ObjectFifo, StreamDims
    from aie.utils.compile import resolve_target_arch
    from aie.utils.compile.jit.markers import In
    from aie.utils.trace.utils import print_cycles_summary  # noqa: F401

    import tessel.iron.controlflow
    import tessel.iron.taplib
    import tessel.iron.utils.hostruntime
    import tessel.iron.utils.xrt

    assert aie.iron is iron
    assert aie.iron.controlflow is tessel.iron.controlflow
    assert aie.iron.device.NPU2 is iron.NPU2
    assert aie.iron.hostruntime is tessel.iron.utils.hostruntime
    assert aie.utils.xrt is tessel.iron.utils.xrt
    assert aie.helpers.taplib.TensorTiler2D is tessel.iron.taplib.TensorTiler2D
    assert TensorAccessPattern is iron.TensorAccessPattern
    assert ObjectFifo is iron.ObjectFifo and StreamDims is list and In is iron.In
    assert (resolve_target_arch(), resolve_target_arch(iron.NPU1Col1()), resolve_target_arch(iron.NPU2())) == \
        ("aie2", "aie2", "aie2p")


@pytest.mark.parametrize("name, refused", [
    ("aie.dialects.aie", "aie.dialects"), ("aie.extras.context", "aie.extras.context"),
    ("aie.helpers.dialects.ext.memref", "aie.helpers.dialects.ext.memref"), ("aie.ir", "aie.ir")])
def test_mlir_level_modules_are_refused_by_name(bound, name, refused):
    with pytest.raises(OutOfScopeImport) as e:
        __import__(name)
    assert str(e.value).startswith(f"{refused} is one of IRON's MLIR-level modules: a design importing it builds MLIR "
                                   "directly, which is out of scope for tessel")


def test_the_helper_dialect_names_worker_bodies_use_are_bound(bound):
    """scf's _for / if_ / else_, the @func Python kernel, arith.index_cast and
    aie.helpers.util's type helpers; their packages' other names stay refused."""
    import aie.extras.dialects.arith as arith
    from aie.helpers.dialects.ext.func import func
    from aie.helpers.dialects.ext.scf import _for
    from aie.helpers.dialects.scf import else_, if_
    from aie.helpers.util import np_dtype_to_mlir_type

    import tessel.iron.arith
    import tessel.iron.controlflow as cf
    import tessel.iron.function

    assert (_for, if_, else_) == (cf.range_, cf.if_, cf.else_)
    assert func is tessel.iron.function.func and arith.index_cast is tessel.iron.arith.index_cast
    assert np_dtype_to_mlir_type(np.int16) == np.dtype(np.int16)
    from aie.extras import types as T

    assert (T.i32, T.bf16) == (np.int32, ml_dtypes.bfloat16)
    with pytest.raises(OutOfScopeImport, match=r"^aie\.extras\.context is one of IRON's MLIR-level modules"):
        from aie.extras import context  # noqa: F401


def test_unbind_leaves_no_aie_behind():
    import tessel.iron.dataflow
    import tessel.iron.utils

    aliases.bind()
    import aie.iron.dataflow.objectfifo
    import aie.iron.hostruntime
    import aie.utils.compile.jit.markers  # noqa: F401

    real = sys.modules["tessel.iron.dataflow"]
    assert iron.dataflow is not real  # while bound, the import system set the mirror there
    aliases.unbind()
    assert not [n for n in sys.modules if n == "aie" or n.startswith("aie.")]
    assert iron.dataflow is real
    assert not hasattr(iron, "hostruntime")
    with pytest.raises(ModuleNotFoundError):
        import aie  # noqa: F401


# -- the older Runtime API ----------------------------------------------------------------------------------


def _old_design(device, groups=True):
    from .common import add_k_worker

    n = 32
    ty = np.ndarray[(n,), np.dtype[np.int32]]
    of_in, of_out, w = add_k_worker(n, 5)
    rt = iron.Runtime()
    with rt.sequence(ty, ty) as (a, c):
        rt.start(w)
        tg = rt.task_group() if groups else None
        rt.fill(of_in.prod(), a, task_group=tg, placement=iron.Tile(0, 0))
        rt.drain(of_out.cons(), c, task_group=tg, wait=True)
        if groups:
            rt.finish_task_group(tg)
    return iron.Program(device, rt).resolve_program(), n


@pytest.mark.parametrize("groups", [True, False], ids=["task_group", "default_group"])
def test_old_runtime_api_runs(device, groups):
    design, n = _old_design(device, groups)
    a = np.arange(n, dtype=np.int32)
    c = np.zeros(n, dtype=np.int32)
    design(a, c)
    assert np.array_equal(c, a + 5)
    assert design.operation.verify() is True


def test_old_runtime_api_misuse_messages(device):
    ty = np.ndarray[(8,), np.dtype[np.int32]]
    of = iron.ObjectFifo(ty, name="x")
    rt = iron.Runtime()
    with pytest.raises(IronRuntimeError, match=r"^Runtime.fill\(\) is called inside `with rt.sequence\(...\)`$"):
        rt.fill(of.prod(), None)
    with pytest.raises(IronRuntimeError, match=r"^Program: the Runtime has no sequence: give Runtime\(body, fn_args\)"):
        iron.Program(device, rt)
    with pytest.raises(TypeError, match=r"^Runtime.fill: the first argument must be an ObjectFifo producer handle"):
        with rt.sequence(ty) as a:
            rt.fill(of.cons(), a)
    rt = iron.Runtime()
    with pytest.raises(IronRuntimeError, match=r"^x.prod\(\) is pinned to Tile\(0, 2\), which is not a shim tile"):
        with rt.sequence(ty) as a:
            rt.fill(of.prod(), a, placement=iron.Tile(0, 2))
    rt = iron.Runtime()
    with pytest.raises(IronRuntimeError, match=r"test_run_front_door.py:\d+: a task group made here by "
                                               r"rt.task_group\(\) is never finished"):
        with rt.sequence(ty) as a:
            rt.task_group()


def test_jit_generator_without_parameters_takes_the_calls_tensors(device):
    from .common import add_k_worker

    n = 32
    ty = np.ndarray[(n,), np.dtype[np.int32]]

    @iron.jit(is_placed=False)
    def design():
        of_in, of_out, w = add_k_worker(n, 9)
        rt = iron.Runtime()
        with rt.sequence(ty, ty) as (a, c):
            rt.start(w)
            rt.fill(of_in.prod(), a)
            rt.drain(of_out.cons(), c, wait=True)
        return iron.Program(device, rt).resolve_program()

    a = iron.arange(n, dtype=np.int32)
    c = iron.zeros_like(a)
    design(a, c)
    assert np.array_equal(c.numpy(), a.numpy() + 9)


def test_old_runtime_api_ops_report_the_line_of_their_call(device, monkeypatch):
    import inspect

    from tessel.iron.errors import RaceWarning

    from .common import add_k_worker

    monkeypatch.delenv("TESSEL_STRICT", raising=False)
    n = 32
    ty = np.ndarray[(n,), np.dtype[np.int32]]
    of_in, of_out, w = add_k_worker(n, 5)
    rt = iron.Runtime()
    with rt.sequence(ty, ty) as (a, c):
        rt.start(w)
        line = inspect.currentframe().f_lineno + 1
        rt.fill(of_in.prod(), a)
        rt.drain(of_out.cons(), c)  # nothing awaited: the fill's race warning names its line
    with pytest.warns(RaceWarning) as record:
        iron.Program(device, rt).resolve_program()
    fills = [r for r in record if "the in fill is not awaited" in str(r.message)]
    assert [(r.filename, r.lineno) for r in fills] == [(__file__, line)]
    assert str(fills[0].message).startswith(f"{__file__}:{line}: the in fill is not awaited")


def test_kernel_flags_build_an_object_as_its_makefile_does_and_are_recorded(tmp_path):
    """A kernel the design names by its object (add_by.o) gets the flags --kernel-flags gives that object; the
    record keeps them, so the test program's replay builds the same kernel."""
    for name in ("flagged_design.py", "add_by.cc", "xrt_program.py"):
        (tmp_path / name).write_text((DATA / name).read_text())
    (tmp_path / "build").mkdir()
    r = _run(["flagged_design.py"], tmp_path)
    assert r.returncode == 1 and 'add_by.cc: build with -DADD_BY=<k>' in r.stderr, r.stderr
    with open(tmp_path / "build" / "aie.mlir", "w") as out:
        r = _run(["--kernel-flags", "add_by.o=-DADD_BY=7", "flagged_design.py"], tmp_path, stdout=out)
    assert r.returncode == 0, r.stderr
    assert '"kernel_flags": {"add_by.o": ["-DADD_BY=7"]}' in (tmp_path / "build" / "aie.mlir").read_text()
    r = _run(["xrt_program.py", "-x", "build/final.xclbin", "-i", "build/insts.bin", "-k", "MLIR_AIE"], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PASS!" in r.stdout


@pytest.mark.parametrize("flags, message", [
    ("add_by.o", "expected OBJECT=FLAGS"),
    ("add_by.o=-O3", "expected an object file name (transpose.o) and -DNAME[=VALUE] or -IDIR flags, got -O3"),
    ("dir/add_by.o=-DX", "expected an object file name"),
])
def test_bad_kernel_flags_are_refused_before_the_design_runs(tmp_path, flags, message):
    r = _run(["--kernel-flags", flags, DATA / "flagged_design.py"], tmp_path)
    assert r.returncode == 2 and message in r.stderr and r.stderr.startswith("python -m tessel.iron.run: --kernel-flags")
