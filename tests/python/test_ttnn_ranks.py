"""tessel.ttnn under mpirun: a script's mesh splits over the ranks (each
process opens its devices), and its all_reduce and gathers give every rank
the same result as one process, bit for bit (ranks/mesh_all_reduce.py)."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent / "ranks" / "mesh_all_reduce.py"


def _run(ranks, tmp_path):
    env = dict(os.environ, TESSEL_MESH="1x4")
    env.setdefault("TESSEL_CACHE_DIR", str(tmp_path / "cache"))
    command = [sys.executable, str(SCRIPT)]
    if ranks > 1:
        root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
        passed = [arg for name in ("PYTHONPATH", "TESSEL_MESH", "TESSEL_CACHE_DIR", "TESSEL_KERNEL_INCLUDE_DIR")
                  if name in env for arg in ("-x", name)]
        command = ["mpirun", *root, "--oversubscribe", "-np", str(ranks), *passed, *command]
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return sorted(re.findall(r"rank (\d+) of (\d+): (\d+) of 4 devices, (\w+), digest (\w+)", result.stdout))


def test_a_mesh_split_over_ranks_reduces_as_one_process_does(tmp_path):
    if not shutil.which("mpirun"):
        pytest.skip("needs mpirun (openmpi-bin)")
    (one,) = _run(1, tmp_path)
    assert one[1:4] == ("1", "4", "PASSED")
    for ranks in (2, 4):
        lines = _run(ranks, tmp_path)
        assert [line[0] for line in lines] == [str(r) for r in range(ranks)]
        for _, size, devices, verdict, digest in lines:
            assert (size, devices, verdict, digest) == (str(ranks), str(4 // ranks), "PASSED", one[4])
