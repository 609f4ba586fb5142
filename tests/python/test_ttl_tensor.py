"""ttl.Tensor's two layouts: tiled (one 32x32 tile per page) and row-major
(one row of the last dimension per page, as tt-metal lays them out), and
as_tensor, the one way operations turn an argument into a ttl.Tensor."""

import numpy as np
import pytest

import tessel.ttl as ttl
from tessel.ttl.tensor import as_tensor


@pytest.mark.parametrize("dtype, values", [
    ("Float32", np.arange(3 * 5 * 7, dtype=np.float32).reshape(3, 5, 7) / 4),
    ("Float16_b", np.linspace(-2, 2, 3 * 5 * 7, dtype=np.float32).reshape(3, 5, 7)),
    ("Int32", np.arange(-50, 55, dtype=np.int32).reshape(3, 5, 7) * 1000003),
    ("UInt16", np.arange(3 * 5 * 7, dtype=np.uint16).reshape(3, 5, 7) * 600),
    ("UInt8", np.arange(3 * 5 * 7, dtype=np.uint8).reshape(3, 5, 7)),
], ids=lambda v: v if isinstance(v, str) else "")
def test_row_major_round_trip_one_row_per_page(device, dtype, values):
    t = ttl.Tensor.from_numpy(device, values, dtype, tiled=False)
    assert t.tiled is False
    assert t.num_pages == 15
    width = {"Float32": 4, "Float16_b": 2, "Int32": 4, "UInt16": 2, "UInt8": 1}[dtype]
    assert t.page_size == 7 * width
    out = t.to_numpy()
    if dtype == "Float16_b":
        np.testing.assert_allclose(out, values, rtol=2**-8, atol=0)
    else:
        assert out.dtype == values.dtype
        np.testing.assert_array_equal(out, values)
    # Page k holds row k: the bytes of row 4 are at page 4.
    raw = t.buffer.read()
    row = raw[4 * t.page_size:5 * t.page_size]
    if dtype in ("Int32", "UInt16", "UInt8", "Float32"):
        np.testing.assert_array_equal(row.view(values.dtype.newbyteorder("<")), values.reshape(15, 7)[4])


def test_row_major_one_dimension(device):
    t = ttl.Tensor.from_numpy(device, np.arange(10, dtype=np.float32), "Float32", tiled=False)
    assert t.shape == (10,) and t.num_pages == 1 and t.page_size == 40
    np.testing.assert_array_equal(t.to_numpy(), np.arange(10, dtype=np.float32))


def test_tiled_is_the_default_and_keeps_its_pages(device):
    t = ttl.Tensor.from_numpy(device, np.ones((64, 32), np.float32))
    assert t.tiled is True and t.num_tiles == 2 and t.page_size == 2048


def test_row_major_rejects_block_float(device):
    with pytest.raises(ValueError, match=r"a row-major tensor cannot hold Bfp8_b \(it exists only in tiles\)"):
        ttl.Tensor.allocate(device, (4, 32), "Bfp8_b", tiled=False)


def test_row_major_tensor_has_no_tiles(device):
    t = ttl.Tensor.allocate(device, (4, 8), "Float32", tiled=False)
    with pytest.raises(ValueError, match=r"is row-major: it has rows \(num_pages\), not tiles"):
        t.num_tiles  # noqa: B018


def test_buffer_of_the_wrong_size_names_rows(device):
    buffer = ttl.Tensor.allocate(device, (4, 8), "Float32", tiled=False).buffer
    with pytest.raises(ValueError, match=r"a \(4, 16\) Float32 row-major tensor is 4 rows of 64 B, one per page; "
                                         r"the buffer has 4 pages of 32 B"):
        ttl.Tensor(buffer, (4, 16), "Float32", tiled=False)


def test_row_major_integer_out_of_range(device):
    t = ttl.Tensor.allocate(device, (2, 2), "UInt8", tiled=False)
    with pytest.raises(ValueError, match=r"outside UInt8's range \(0\.\.255\)"):
        t.write(np.array([[1, 2], [3, 300]], np.int32))


def test_as_tensor(device):
    t = ttl.Tensor.allocate(device, (32, 32))
    assert as_tensor(t, "op: a") is t
    with pytest.raises(TypeError, match=r"op: a must be a ttl.Tensor or a ttnn.Tensor on a device, got 3 \(int\)"):
        as_tensor(3, "op: a")


@pytest.mark.parametrize("dtype, np_type", [("Int32", np.int32), ("UInt32", np.uint32)])
def test_tiled_integers_read_back_exactly(device, dtype, np_type):
    """Integers beyond float32's 24 bits: a tiled tensor reads them back as the integers stored."""
    info = np.iinfo(np_type)
    values = np.linspace(info.min, info.max, 32 * 64).astype(np_type).reshape(32, 64)
    values[0, :3] = [info.max, info.max - 1, info.min + 1]
    t = ttl.Tensor.from_numpy(device, values, dtype)
    out = t.to_numpy()
    assert out.dtype == np_type
    np.testing.assert_array_equal(out, values)
