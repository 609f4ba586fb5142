"""python -m tessel.ttlang: runs a TT-Lang program unchanged with `ttl` and
`ttnn` bound to tessel's, its argv and directory set, the options in
tessel.ttl.settings, and the program's own exit status."""

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TIMEOUT_S = 90


def _environment():
    path = os.pathsep.join([str(ROOT / "python"), str(ROOT / "build" / "default" / "python")])
    return {**os.environ, "PYTHONPATH": path}


def _run(tmp_path, source, *args, options=(), env=None, name="program.py"):
    script = tmp_path / name
    script.write_text(textwrap.dedent(source))
    environment = {**_environment(), **(env or {})}
    return subprocess.run([sys.executable, "-m", "tessel.ttlang", *options, str(script), *args], cwd=tmp_path,
                          env=environment, capture_output=True, text=True, timeout=TIMEOUT_S)


def test_runs_a_ttnn_program_with_tessels_modules(tmp_path):
    r = _run(tmp_path, """
        import sys
        import numpy as np
        import ttnn
        import ttl
        import tessel.ttl, tessel.ttnn
        from ttnn import device as ttnn_device
        assert ttnn is tessel.ttnn and ttl is tessel.ttl
        assert sys.modules["ttnn.device"] is ttnn_device is tessel.ttnn.device
        assert __name__ == "__main__"
        device = ttnn.open_device(device_id=0)
        a = ttnn.from_torch(np.full((32, 32), 2.0, np.float32), dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT,
                            device=device, memory_config=ttnn.DRAM_MEMORY_CONFIG)
        y = ttnn.to_torch(ttnn.multiply(ttnn.add(a, a), a))
        assert (y == 8.0).all(), y
        ttnn.close_device(device)
        print("argv", sys.argv)
    """, "one", "--two")
    assert r.returncode == 0, r.stderr
    assert f"argv ['{tmp_path / 'program.py'}', 'one', '--two']" in r.stdout


def test_later_submodule_imports_are_tessels(tmp_path):
    r = _run(tmp_path, """
        import ttl.settings
        from ttnn.mesh import MeshShape
        import tessel.ttl.settings, tessel.ttnn.mesh
        assert ttl.settings is tessel.ttl.settings and MeshShape is tessel.ttnn.mesh.MeshShape
        try:
            import ttnn.no_such_module
        except ModuleNotFoundError as e:
            print("missing", e.name)
    """)
    assert r.returncode == 0, r.stderr
    assert "missing ttnn.no_such_module" in r.stdout


def test_script_directory_comes_first_on_sys_path(tmp_path):
    (tmp_path / "helper_module.py").write_text("VALUE = 42\n")
    r = _run(tmp_path, """
        import sys, os
        import helper_module
        assert sys.path[0] == os.path.dirname(os.path.abspath(__file__))
        print(helper_module.VALUE)
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "42"


def test_options_reach_settings_and_devices(tmp_path):
    trace = tmp_path / "out.json"
    r = _run(tmp_path, """
        import json
        import ttnn
        from ttl.settings import settings
        device = ttnn.open_device(device_id=0)
        grid = device.compute_with_storage_grid_size()
        print(json.dumps({"arch": settings.arch, "grid": list(settings.grid), "policy": settings.policy,
                          "trace": settings.trace, "timing": settings.timing, "keep": settings.keep_kernels,
                          "device_grid": [grid.x, grid.y], "device_arch": device.arch().value,
                          "device_policy": device.tessel_device.policy, "devices": ttnn.get_num_devices(),
                          "num_devices": settings.num_devices}))
        a = ttnn.ones((32, 32), layout=ttnn.TILE_LAYOUT, device=device)
        ttnn.relu(a)
        ttnn.close_device(device)
    """, options=("--arch", "wormhole_b0", "--grid", "3x2", "--policy", "random:7", "--trace", str(trace),
                  "--timing", "--keep-kernels", "kept", "--num-devices", "4"))
    assert r.returncode == 0, r.stderr
    seen = json.loads(r.stdout.strip().splitlines()[-1])
    assert seen == {"arch": "wormhole_b0", "grid": [3, 2], "policy": "random:7", "trace": str(trace),
                    "timing": True, "keep": str(tmp_path / "kept"), "device_grid": [3, 2],
                    "device_arch": "wormhole_b0", "device_policy": "random:7", "devices": 4, "num_devices": 4}
    assert trace.exists() and json.loads(trace.read_text())
    kept = sorted(p.name for p in (tmp_path / "kept").iterdir())
    assert kept == ["ttnn_reader_1.cpp", "ttnn_relu.cpp", "ttnn_writer.cpp"]
    assert "relu_tile(0);" in (tmp_path / "kept" / "ttnn_relu.cpp").read_text()
    assert "[tessel] ttnn.relu on device 0: " in r.stderr and " cycles (" in r.stderr


@pytest.mark.parametrize("ending, status, message", [
    ("raise SystemExit(3)", 3, None),
    ("import sys; sys.exit(None)", 0, None),
    ("import sys; sys.exit('gave up')", 1, "gave up"),
    ("assert 1 == 2, 'values differ'", 1, "AssertionError: values differ"),
], ids=["code", "none", "text", "exception"])
def test_exit_status_is_the_scripts(tmp_path, ending, status, message):
    r = _run(tmp_path, f"print('ran')\n{ending}\n")
    assert r.returncode == status
    assert r.stdout == "ran\n"
    if message:
        assert message in r.stderr
    if "assert" in ending:
        assert 'program.py", line 2' in r.stderr and "runpy" not in r.stderr


def test_help_documents_the_options(tmp_path):
    r = subprocess.run([sys.executable, "-m", "tessel.ttlang", "--help"], capture_output=True, text=True,
                       timeout=TIMEOUT_S, env=_environment())
    assert r.returncode == 0
    for option in ("--arch", "--grid XxY", "--policy P", "--trace FILE", "--timing", "--keep-kernels DIR",
                   "--num-devices N", "SCRIPT", "ARGS"):
        assert option in r.stdout


def test_bad_options_and_missing_script(tmp_path):
    r = _run(tmp_path, "pass\n", options=("--grid", "8by8"))
    assert r.returncode == 2 and "argument --grid: '8by8' is not of the form XxY (e.g. 8x8)" in r.stderr
    r = subprocess.run([sys.executable, "-m", "tessel.ttlang", "nowhere.py"], capture_output=True, text=True,
                       timeout=TIMEOUT_S, cwd=tmp_path, env=_environment())
    assert r.returncode == 2 and "python -m tessel.ttlang: nowhere.py: no such file" in r.stderr


def test_in_process_binding_is_undone():
    from tessel.ttlang import bind_modules, unbind_modules

    import tessel.ttnn

    bind_modules()
    try:
        assert sys.modules["ttnn"] is tessel.ttnn
    finally:
        unbind_modules()
    assert "ttnn" not in sys.modules and "ttl" not in sys.modules
