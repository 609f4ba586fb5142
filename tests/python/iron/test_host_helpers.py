"""IRON's host helpers in tessel.iron (tensors, dtype names, devices), the
aie.utils functions, design records and the jit's explicit outputs."""

import argparse
import os

import ml_dtypes
import numpy as np
import pytest

import tessel.iron as iron
from tessel.iron import design_record, device as device_mod
from tessel.iron.errors import IronRuntimeError
from tessel.iron.utils import benchmark, config, verify


pytestmark = pytest.mark.usefixtures("close_named_devices")


def test_tensor_factories_match_numpy():
    a = iron.arange(12, dtype=np.int16, shape=(3, 4))
    assert a.shape == (3, 4) and np.array_equal(a.numpy(), np.arange(12, dtype=np.int16).reshape(3, 4))
    z = iron.zeros_like(a)
    assert z.dtype == np.int16 and z.shape == (3, 4) and not z.numpy().any()
    f = iron.full((2, 2), 7, dtype=np.int32)
    assert np.array_equal(f.numpy(), np.full((2, 2), 7, dtype=np.int32))
    t = iron.tensor((5,), dtype=np.int16, device="npu")
    assert t.shape == (5,) and t.dtype == np.int16 and not t.numpy().any()
    assert np.array_equal(iron.tensor([3], dtype=np.int32).numpy(), np.array([3], dtype=np.int32))
    r = iron.rand(100, dtype=np.float32)
    assert r.shape == (100,) and (r.numpy() >= 0).all() and (r.numpy() < 1).all()
    b = iron.ones(4, dtype="bf16")
    assert b.dtype == ml_dtypes.bfloat16 and np.array_equal(b.numpy().astype(np.float32), np.ones(4, np.float32))


def test_tensor_factory_errors():
    with pytest.raises(ValueError, match=r"^tessel.iron.arange: shape=\(5,\) holds 5 elements, but the range has 6$"):
        iron.arange(6, shape=(5,))
    with pytest.raises(TypeError, match=r"^tessel.iron.tensor: the array is int16 but dtype= is int32; cast"):
        iron.tensor(np.zeros(3, np.int16), dtype=np.int32)


def test_dtype_names():
    assert iron.str_to_dtype("bf16") is ml_dtypes.bfloat16
    assert iron.str_to_dtype("i32") is np.int32
    assert iron.dtype_to_str(ml_dtypes.bfloat16) == "bf16"
    assert iron.dtype_to_str(np.uint8) == "u8"
    with pytest.raises(ValueError, match=r"^str_to_dtype: unknown dtype name 'q7'; known: "):
        iron.str_to_dtype("q7")


@pytest.mark.parametrize("name, n_cols, cls, grid", [
    ("npu", 1, iron.NPU1Col1, (1, 6)), ("npu", None, iron.NPU1, (4, 6)),
    ("npu2", None, iron.NPU2, (8, 6)), ("npu2", 4, iron.NPU2Col4, (4, 6))])
def test_device_names_map_to_grids(name, n_cols, cls, grid):
    d = device_mod.from_name(name, n_cols=n_cols)
    assert type(d) is cls and d.grid == grid
    assert device_mod.resolve(d).grid == grid
    opts = argparse.Namespace(dev=name)
    assert type(device_mod.device_from_args(opts, n_cols=n_cols)) is cls


def test_device_name_errors():
    with pytest.raises(ValueError, match=r"^unknown device name 'npu9': tessel.iron knows npu, npu1, npu2, xcvc1902$"):
        device_mod.from_name("npu9")
    with pytest.raises(ValueError, match=r"^device 'npu' has no 5-column form \(columns: 1, 2, 3, 4\)$"):
        device_mod.from_name("npu", n_cols=5)


def test_verify_helpers():
    a = np.array([1.0, 2.0, 3.0], dtype=ml_dtypes.bfloat16)
    assert verify.nearly_equal(a, np.array([1.0, 2.1, 3.0])).tolist() == [True, True, True]
    assert verify.count_mismatches(np.array([1.0, 5.0]), np.array([1.0, 2.0])) == (1, 2)
    verify.assert_pass(np.arange(3), np.arange(3), print_pass=False)
    with pytest.raises(SystemExit) as e:
        verify.assert_pass(np.arange(3), np.arange(3) + 1, fail_msg="off by one")
    assert e.value.code == "FAIL! off by one"


def test_benchmark_counts_iterations():
    calls = []
    result = benchmark.run_iters(lambda x: calls.append(x), 1, warmup=2, iters=3)
    assert len(calls) == 5 and result.e2e.n == 3 and result.npu is None


def test_cxx_header_path_holds_the_aie_api():
    path = config.cxx_header_path()
    assert os.path.isdir(path) and os.path.isfile(os.path.join(path, "tessel", "iron.h"))


def _record(path, script, args):
    path.write_text(design_record.MARKER + '{"script": "%s", "args": %s, "cwd": "/", "sha256": ""}\n'
                    % (script, args))


def test_records_are_located_by_name(tmp_path):
    _record(tmp_path / "aie_a.mlir", "/a.py", '["1"]')
    _record(tmp_path / "aie_b.mlir", "/b.py", '["2"]')
    path, record = design_record.locate(str(tmp_path / "final_b.xclbin"), str(tmp_path / "insts_b.bin"))
    assert path.endswith("aie_b.mlir") and record["args"] == ["2"]
    with pytest.raises(IronRuntimeError, match=r"^2 tessel design records next to .*final\.xclbin \(aie_a\.mlir, "
                                               r"aie_b\.mlir\) and none named like it"):
        design_record.locate(str(tmp_path / "final.xclbin"))


def test_jit_compile_writes_records_and_the_dispatch_library(tmp_path, monkeypatch):
    @iron.jit(is_placed=False)
    def gen(a, b):
        raise AssertionError("compile builds nothing")

    assert gen.options == {"is_placed": False}
    with pytest.raises(RuntimeError, match=r"get_dispatch_lib_path\(\) needs compile\(xclbin_path=...\) first"):
        gen.compilable.get_dispatch_lib_path()
    monkeypatch.setattr(design_record, "_run", (__file__, ["x"], str(tmp_path), {}))
    paths = gen.specialize(aiecc_flags=["-O2"]).compile(xclbin_path=str(tmp_path / "b" / "final.xclbin"),
                                                        inst_path=str(tmp_path / "b" / "insts.bin"))
    assert paths == (str(tmp_path / "b" / "final.xclbin"), str(tmp_path / "b" / "insts.bin"))
    for name in ("final.xclbin", "insts.bin"):
        assert design_record._read(str(tmp_path / "b" / name))["args"] == ["x"]
    lib = tmp_path / "b" / "final.prj" / "libtessel_dispatch.so"
    assert lib.is_symlink() and lib.resolve().is_file()
    monkeypatch.setenv("TESSEL_CACHE_DIR", str(tmp_path / "cache"))
    xclbin, insts = gen.compile()  # no paths: in the jit cache
    assert xclbin.startswith(str(tmp_path / "cache")) and xclbin.endswith("final.xclbin")
    assert design_record._read(insts)["args"] == ["x"]
