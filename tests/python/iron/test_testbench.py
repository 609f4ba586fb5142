"""IRON's C++ testbenches through `python -m tessel.iron.testbench`: a
test.cpp written against XRT and test_utils, compiled against tessel's, runs
the design its xclbin path stands for (subprocesses, as users run them)."""

import os
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest
from tessel.iron import testbench

from .common import FRONT_DOOR_DATA as DATA

TESTBENCH = DATA / "testbench.cpp"


def _env():
    return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))


def _python(module, args, cwd, stdout=subprocess.PIPE):
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], cwd=cwd, env=_env(), stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=600)


def _record(tmp_path, design, *args, build="build"):
    """build/aie.mlir: the record `python -m tessel.iron.run DESIGN ARGS` prints."""
    (tmp_path / design).write_text((DATA / design).read_text())
    (tmp_path / build).mkdir()
    with open(tmp_path / build / "aie.mlir", "w") as out:
        r = _python("tessel.iron.run", [design, *args], tmp_path, stdout=out)
    assert r.returncode == 0, r.stderr


def _testbench(tmp_path, *args):
    return _python("tessel.iron.testbench", [TESTBENCH, "--", *args], tmp_path)


@pytest.fixture
def added(tmp_path):
    _record(tmp_path, "old_api_design.py", "-d", "npu", "-n", "128")
    return tmp_path


def test_testbench_runs_the_recorded_design_and_checks_it(added):
    r = _testbench(added, "-x", "build/final.xclbin", "-i", "build/insts.bin", "-k", "MLIR_AIE", "--iters", "3")
    assert r.returncode == 0, r.stderr
    assert "PASS!" in r.stdout and r.stderr == ""


def test_testbench_check_that_fails_is_its_exit_status(added):
    r = _testbench(added, "-x", "build/final.xclbin", "--offset", "8")
    assert r.returncode == 1
    assert "Error count: 128" in r.stdout and "Error in output -43 != -50 + offset" in r.stdout


def test_testbench_without_a_record_says_how_to_write_one(tmp_path):
    (tmp_path / "build").mkdir()
    r = _testbench(tmp_path, "-x", "build/final.xclbin")
    assert r.returncode == 1
    assert r.stderr.startswith("xrt::kernel MLIR_AIE: tessel: no tessel design record for build/final.xclbin: "
                               "tessel builds no xclbin; write the record with `python -m tessel.iron.run DESIGN.py "
                               "ARGS > ")
    assert "terminate called" not in r.stderr


def test_buffer_smaller_than_the_designs_fails_the_run(tmp_path):
    _record(tmp_path, "old_api_design.py", "-d", "npu", "-n", "256")
    r = _testbench(tmp_path, "-x", "build/final.xclbin")
    assert r.returncode == 1
    assert "Kernel did not complete. Returned status: 5" in r.stdout  # ERT_CMD_STATE_ERROR
    assert ("tessel: running the design build/final.xclbin stands for: TypeError: design 'sequence': host buffer 0 "
            "must hold 256 x int32 (1024 bytes), got 512 x uint8 (512 bytes)") in r.stderr


def test_kernel_error_names_the_line_and_fails_a_careless_testbench(tmp_path):
    _record(tmp_path, "dividing_design.py")
    r = _testbench(tmp_path, "-x", "build/final.xclbin", "--no-check")
    assert r.returncode == 1  # it returned 0: a failed run decides the status
    assert "KernelError" in r.stderr and "dividing_design.py:19" in r.stderr and "division by zero" in r.stderr
    assert r.stderr.rstrip().endswith("tessel: a kernel run failed (reported above); exiting with status 1")
    assert "PASS!" in r.stdout


def test_build_is_cached_and_flags_name_tessel_headers():
    first = testbench.build([TESTBENCH])
    assert testbench.build([TESTBENCH]) == first and os.access(first, os.X_OK)
    flags = testbench.compile_flags(["inc"], ["DIM_M=64"])
    assert f"-I{testbench.INCLUDE_DIR}" in flags and flags[-2:] == [f"-I{os.path.abspath('inc')}", "-DDIM_M=64"]
    assert f"-DTESSEL_XRT_PYTHON=\"{sys.executable}\"" in flags
    assert not any(f.startswith("-DTESSEL_XRT") for f in testbench.compile_flags(standalone=False))


def test_standalone_executable_runs_without_the_front_door(added):
    exe = testbench.build([TESTBENCH], output=added / "test.exe")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TESSEL_PYTHON")}
    r = subprocess.run([exe, "-x", "build/final.xclbin"], cwd=added, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=600)
    assert r.returncode == 0 and "PASS!" in r.stdout, r.stderr


def test_testbench_that_does_not_compile_shows_the_compiler(tmp_path):
    bad = tmp_path / "test.cpp"
    bad.write_text('#include "xrt/xrt_kernel.h"\nint main() { xrt::kernel k; return k.no_such_call(); }\n')
    r = _python("tessel.iron.testbench", [bad, "--", "-x", "x"], tmp_path)
    assert r.returncode == 1
    assert "the testbench does not compile" in r.stderr and "no_such_call" in r.stderr


def test_cxx23_library_parts_testbenches_use_compile_and_round_as_cxx23_does(tmp_path):
    """std::bfloat16_t and views::zip/enumerate, from the compiler's library or tessel's include directory:
    the bf16 bits are ml_dtypes' (round to nearest even) for the same values."""
    bf16 = lambda x: f"{np.array(x, dtype=ml_dtypes.bfloat16).view(np.uint16):04x}"  # noqa: E731
    r = _python("tessel.iron.testbench", [DATA / "cxx23_library.cpp", "--"], tmp_path)
    assert r.returncode == 0, r.stderr
    third, e2 = bf16(np.float32(1) / np.float32(3)), bf16(np.exp(np.float32(2)))
    assert r.stdout.splitlines() == [
        f"round 3f80 3f82 3f81 {bf16(-2.5e38)}",
        f"math {third} {e2} 4040 1 1",
        "limits 0.0078125 3.38953e+38",
        "cast 3.14062",
        "ranges 344 3 3 2 6",
    ]


def test_elf_flow_testbench_passes_every_buffer_to_the_design(added):
    """xrt::elf / xrt::module / xrt::ext::kernel(opcode, 0, 0, bo_in, bo_out) / xrt::ext::bo: no instruction buffer,
    so both buffers are the design's (the ELF the -i path names is not read)."""
    r = _python("tessel.iron.testbench", [DATA / "testbench_elf.cpp", "--", "-x", "build/final.xclbin", "-i",
                                          "build/insts.elf", "-k", "MLIR_AIE"], added)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PASS!" in r.stdout
