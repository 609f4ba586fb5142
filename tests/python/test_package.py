"""The package itself: version, pins, import from anywhere, the CLI mirror."""

import os
import re
import subprocess
import sys

import pytest

import tessel


def test_version_matches_pyproject(root):
    text = (root / "pyproject.toml").read_text()
    assert re.search(r'^version = "([^"]+)"', text, re.M).group(1) == tessel.__version__


def test_build_requirements_are_the_pinned_ones(root):
    pins = {}
    for line in (root / "python" / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            pins[name] = version
    requires = re.search(r"^requires = \[(.*)\]", (root / "pyproject.toml").read_text(), re.M).group(1)
    for item in re.findall(r'"([^"]+)"', requires):
        name, version = item.split("==")
        assert pins[name] == version, f"pyproject.toml pins {item}, python/requirements.txt {name}=={pins[name]}"
    deps = re.search(r"^dependencies = \[(.*)\]", (root / "pyproject.toml").read_text(), re.M).group(1)
    assert deps == f'"numpy=={pins["numpy"]}", "ml_dtypes=={pins["ml_dtypes"]}"'


def _python(args, cwd):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_imports_from_any_directory(tmp_path):
    r = _python(["-c", "import tessel; print(tessel.__version__)"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == tessel.__version__


def test_module_info_mirrors_the_cli(tmp_path):
    r = _python(["-m", "tessel", "info", "--arch", "wormhole_b0"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("wormhole_b0: grid 8x8 (64 cores), L1 1464 KiB per core, DRAM 12 banks x 1 GiB")


def test_module_run_runs_an_example(tmp_path):
    r = _python(["-m", "tessel", "run", "loopback", "--size", "8"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert "loopback: copied 8 pages of 2048 B DRAM -> L1 -> DRAM on core (0,0): output matches input" in r.stdout
    assert "loopback: PASSED" in r.stdout


def test_module_run_unknown_example(tmp_path):
    r = _python(["-m", "tessel", "run", "nope"], tmp_path)
    assert r.returncode == 1
    assert r.stderr.startswith("tessel: no example named 'nope'; the examples are loopback, copy_multi_core")


def test_error_hierarchy():
    for name in ["ValidationError", "ProgramError", "OutOfMemoryError", "DeadlockError", "KernelError",
                 "KernelFault", "Interrupted"]:
        assert issubclass(getattr(tessel, name), tessel.Error)
    assert issubclass(tessel.ValidationError, ValueError)


@pytest.mark.parametrize("module", ["tessel.ttnn", "tessel.ttl", "tessel.ttlang", "tessel.ttnn.staging"])
def test_each_python_package_imports_first(module):
    """Each package imports on its own in a fresh interpreter (no import cycle between them)."""
    run = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
