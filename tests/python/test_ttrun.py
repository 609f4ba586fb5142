"""python -m tessel.ttrun: tt-run's rank-binding files read (PyYAML or the
schema's subset), checked, and turned into one mpirun app context per rank;
and a TT-Metalium multi-host program run through it."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tessel import ttrun

ROOT = Path(__file__).resolve().parents[2]

BINDINGS = """\
# two ranks of one 1x4 mesh
rank_bindings:
  - rank: 1
    mesh_id: 0
    env_overrides: {TESSEL_GRID: 2x2}
  - rank: 0
    mesh_id: 0
    mesh_host_rank: 0
    env_overrides:
      TESSEL_GRID: "2x2"   # a comment
global_env:
  TESSEL_MESH: 1x4
mesh_graph_desc_path: "t3k.textproto"
"""


def _write(tmp_path, text):
    p = tmp_path / "rank_bindings.yaml"
    p.write_text(text)
    return str(p)


def test_the_subset_reader_reads_the_schema(tmp_path):
    data = ttrun._parse_subset(BINDINGS.splitlines(), "f")
    assert data == {
        "rank_bindings": [
            {"rank": 1, "mesh_id": 0, "env_overrides": {"TESSEL_GRID": "2x2"}},
            {"rank": 0, "mesh_id": 0, "mesh_host_rank": 0, "env_overrides": {"TESSEL_GRID": "2x2"}},
        ],
        "global_env": {"TESSEL_MESH": "1x4"},
        "mesh_graph_desc_path": "t3k.textproto",
    }


def test_bindings_become_one_app_context_per_rank_in_rank_order(tmp_path):
    bindings, global_env, mgd = ttrun.load_rank_bindings(_write(tmp_path, BINDINGS))
    command = ttrun.mpirun_command(bindings, global_env, mgd, ["prog", "--x"], ["--tag-output"])
    assert command[:2] == ["mpirun", "--tag-output"] and "--oversubscribe" in command
    contexts = " ".join(command).split(" : ")
    assert len(contexts) == 2
    assert "-x TT_MESH_HOST_RANK=0" in contexts[0] and "-x TT_MESH_HOST_RANK=1" in contexts[1]
    for c in contexts:
        assert "-np 1" in c and "-x TT_MESH_ID=0" in c and "-x TESSEL_MESH=1x4" in c and c.endswith("prog --x")
        assert "-x TT_MESH_GRAPH_DESC_PATH=t3k.textproto" in c and "-x TESSEL_GRID=2x2" in c


@pytest.mark.parametrize("text, message", [
    ("rank_bindings:\n  - rank: 0\n    mesh_id: 0\n  - rank: 1\n    mesh_id: 1\n",
     r"the bindings name meshes \[0, 1\]; tessel runs one mesh split over the ranks"),
    ("rank_bindings:\n  - rank: 0\n    mesh_id: 0\n  - rank: 2\n    mesh_id: 0\n",
     r"the ranks are \[0, 2\]; expected each of 0..1 once"),
    ("rank_bindings:\n  - mesh_id: 0\n", r"rank_bindings\[0\] needs an integer 'rank' and 'mesh_id'"),
    ("global_env: {}\n", r"expected a mapping with a non-empty list 'rank_bindings'"),
])
def test_bad_binding_files_say_what_and_where(tmp_path, text, message):
    with pytest.raises(ttrun.RankBindingError, match=message):
        ttrun.load_rank_bindings(_write(tmp_path, text))


def test_a_bad_file_exits_2_with_the_message(tmp_path, capsys):
    assert ttrun.main(["--rank-binding", str(tmp_path / "missing.yaml"), "prog"]) == 2
    assert "tessel.ttrun:" in capsys.readouterr().err


def test_a_metalium_multi_host_program_runs_through_its_rank_bindings(tmp_path):
    program = ROOT / "build" / "default" / "tests" / "metalium" / "tessel_multihost_fabric_program"
    if not shutil.which("mpirun") or not program.exists():
        pytest.skip("needs mpirun (openmpi-bin) and the build tree's multi-host test program")
    env = dict(os.environ)
    env.setdefault("TESSEL_CACHE_DIR", str(tmp_path / "cache"))
    result = subprocess.run([sys.executable, "-m", "tessel.ttrun", "--rank-binding", _write(tmp_path, BINDINGS),
                             str(program)], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "multihost fabric: PASSED over 2 rank(s), 2 chips each" in result.stdout
