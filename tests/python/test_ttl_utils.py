"""ttl.utils (correctness checks, split_work_to_cores) and ttl.dtype_utils:
the helper modules TT-Lang programs import beside the DSL."""

import numpy as np
import pytest

import tessel.ttnn as ttnn
from tessel.ttl import dtype_utils, utils
from tessel.ttl.utils import correctness


def test_assert_allclose_passes_and_reports_the_worst_error():
    a = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    utils.assert_allclose(a, a + 1e-9)
    with pytest.raises(AssertionError) as e:
        utils.assert_allclose(a, a + np.array([[0, 0], [0.5, 0]]), rtol=1e-3, atol=1e-3)
    text = str(e.value)
    assert "max 5.000000e-01 at (1, 0) (actual=3.000000, expected=3.500000)" in text
    assert "mismatched elements: 1 / 4" in text
    with pytest.raises(AssertionError, match=r"Shape mismatch: actual \(2, 2\) vs expected \(4,\)"):
        utils.assert_allclose(a, a.ravel())
    with pytest.raises(AssertionError, match=r"Tensors not close: max_abs_error=5.000000e-01"):
        utils.assert_allclose(a, a + 0.5, atol=0.1, verbose=False)


def test_assert_pcc():
    x = np.linspace(0, 1, 100)
    utils.assert_pcc(x, 2 * x + 1)
    with pytest.raises(AssertionError, match=r"Expected pcc -1.0000000000000002 >= 0.99|Expected pcc -1.0 >= 0.99"):
        utils.assert_pcc(x, -x)


def test_ulp_checks_count_units_of_the_results_type():
    assert correctness.ulp(np.array([1.0]), "float32")[0] == 2.0**-23
    assert correctness.ulp(np.array([1.0]), "bfloat16")[0] == 2.0**-7
    golden = np.array([1.0, 2.0, 4.0])
    passed, message = utils.assert_with_ulp(golden, (golden * (1 + 3 * 2.0**-23)).astype(np.float32),
                                            ulp_threshold=3)
    assert passed and message == "Max ULP Delta: 3.0"
    with pytest.raises(AssertionError, match=r"Max ULP Delta: 3.0"):
        utils.assert_with_ulp(golden, (golden * (1 + 3 * 2.0**-23)).astype(np.float32), ulp_threshold=2)
    with pytest.raises(AssertionError, match=r"Calculated tensor contains non-finite values"):
        utils.assert_with_ulp(golden, np.array([1.0, np.inf, 4.0], np.float32))


def test_checks_read_ttnn_tensors():
    device = ttnn.open_device(device_id=0)
    try:
        a = np.arange(32 * 32, dtype=np.float32).reshape(32, 32) / 64
        t = ttnn.from_torch(a, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device)
        utils.assert_allclose(t, a, rtol=0, atol=0)
        utils.assert_pcc(a, t, threshold=0.9999)
    finally:
        ttnn.close_device(device)


def test_split_work_to_cores_tuple_form():
    assert utils.split_work_to_cores((8, 8), 10) == (10, ((0, 0), (1, 1)), (), 1, 0)
    assert utils.split_work_to_cores((8, 8), 100) == (64, ((0, 0), (4, 3)), ((4, 4), (7, 7)), 2, 1)
    assert utils.split_work_to_cores((8, 8), 128) == (64, ((0, 0), (7, 7)), (), 2, 0)
    assert utils.split_work_to_cores((2, 4), 11, row_wise=False) == (8, ((0, 0), (0, 1)), ((1, 1), (1, 3)), 2, 1)
    assert utils.split_work_to_cores((4,), 10) == (4, ((0,), (1,)), ((2,), (3,)), 3, 2)
    assert utils.split_work_to_cores((8, 8), 0) == (0, (), (), 0, 0)
    with pytest.raises(ValueError, match=r"only one device's grid"):
        utils.split_work_to_cores((2, 8, 8), 10)


def test_dtype_utils():
    assert dtype_utils.torch_dtype_to_ttnn_datatype("torch.bfloat16") == ttnn.bfloat16
    assert dtype_utils.format_name_to_ttnn_dtype("bfp_bf8") == ttnn.bfloat8_b
    assert dtype_utils.tile_bytes_from_dtype(ttnn.bfloat16) == 2048
    assert dtype_utils.tile_bytes_from_dtype(ttnn.float32) == 4096
    assert dtype_utils.tile_bytes_from_dtype(ttnn.bfloat8_b) == 1088
    assert dtype_utils.is_ttnn_tensor(ttnn.zeros((2, 2))) and not dtype_utils.is_ttnn_tensor(np.zeros(2))
    with pytest.raises(ValueError, match=r"Unsupported torch dtype for ttnn.DataType: torch.complex64"):
        dtype_utils.torch_dtype_to_ttnn_datatype("torch.complex64")
    with pytest.raises(ValueError, match=r"tessel's tiles are 32x32, got 16x32"):
        dtype_utils.tile_bytes_from_dtype(ttnn.bfloat16, tile=(16, 32))
