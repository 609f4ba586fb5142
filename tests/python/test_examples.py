"""Every C++ example runs from Python and passes its own check; the Python
host programs under examples/ pass the same checks as their C++ versions."""

import importlib.util

import pytest

import tessel
from tessel import _tessel

EXAMPLES = [name for name, _ in _tessel.examples.names()]


def test_every_example_is_listed():
    assert {"loopback", "eltwise_binary", "matmul_multicore_reuse_mcast", "operation_collective"} <= set(EXAMPLES)


@pytest.mark.parametrize("name", EXAMPLES)
def test_cpp_example_from_python(name):
    size = {"loopback": 8, "copy_multi_core": 0, "eltwise_binary": 32, "dispatch_measure": 2000,
            "dispatch_broadcast": 3}.get(name, 0)
    small_matmul = name.startswith("matmul")
    passed, summary, seconds, compile_seconds = _tessel.examples.run(
        name, "blackhole", 4, 4, "deterministic", 128 if small_matmul else size, "", "")
    assert passed, summary
    assert seconds >= 0 and compile_seconds >= 0


def _load(root, name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", root / "examples" / name / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_loopback_in_python(root):
    with tessel.Device.open() as d:
        assert _load(root, "loopback").run(d, 20)


@pytest.mark.parametrize("fmt", ["Float16_b", "Float32", "Bfp8_b"])
def test_eltwise_binary_in_python(root, fmt):
    with tessel.Device.open(grid=(3, 2)) as d:
        results = _load(root, "eltwise_binary").run(d, 20, tessel.DataFormat[fmt])
    for op, (outside, worst) in results.items():
        assert outside == 0, f"{op}: {outside} values outside the bound"
        assert 0 <= worst <= 1


@pytest.mark.parametrize("fmt", ["Float16_b", "Float32", "Bfp8_b"])
def test_matmul_multicore_reuse_mcast_in_python(root, fmt):
    with tessel.Device.open(grid=(4, 4)) as d:
        pcc, outside, worst = _load(root, "matmul_multicore_reuse_mcast").run(d, 128, tessel.DataFormat[fmt])
    assert pcc >= 0.999
    assert outside == 0, f"{outside} values outside their bound"
    assert worst <= 1


@pytest.mark.parametrize("policy", ["parallel:2", "parallel:3"])
def test_python_host_programs_under_the_parallel_policy(root, policy):
    """The same programs on cores spread over host threads: byte-identical
    results, so the same error figures as under the deterministic policy."""
    def both(p):
        with tessel.Device.open(grid=(4, 4), policy=p) as d:
            assert d.policy == p
            matmul = _load(root, "matmul_multicore_reuse_mcast").run(d, 128, tessel.DataFormat.Float16_b)
            eltwise = _load(root, "eltwise_binary").run(d, 20, tessel.DataFormat.Float16_b)
        return matmul, eltwise

    assert both(policy) == both("deterministic")


def test_a_malformed_parallel_policy_is_a_validation_error():
    with pytest.raises(tessel.ValidationError, match=r"'parallel:0': the thread count must be a whole number from 1 to 64"):
        tessel.Device.open(policy="parallel:0")
