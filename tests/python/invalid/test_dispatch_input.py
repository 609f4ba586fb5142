"""Bad Python input to tessel.dispatch's tensors, formats and ABI reader: the
exact TypeError / ValueError, naming the call, the argument and what was
expected, raised before anything is allocated or written."""

import numpy as np
import pytest

from tessel.dispatch import abi, formats, tensor

DTYPES = "bfloat16, float32, int32, uint32, uint16, uint8, bfloat8_b, bfloat4_b"


def message(exc_type, fn):
    with pytest.raises(exc_type) as e:
        fn()
    assert isinstance(e.value, exc_type)
    return str(e.value)


@pytest.fixture(scope="module")
def tensors(device):
    return {"row": tensor.create(device, (4, 8), "uint32"), "tile": tensor.create(device, (40, 40), "bfloat16", "tile"),
            "l1": tensor.create(device, (2, 4), "uint32", shard_grid=(2, 1))}


CREATE = [
    ("device", TypeError, dict(device="dev", shape=(4,), dtype="uint32"),
     "session.empty: device must be a tessel.Device, got 'dev' (str)"),
    ("dtype-type", TypeError, dict(shape=(4,), dtype=3),
     f"session.empty: dtype must be a data type name ({DTYPES}), got 3 (int)"),
    ("dtype-name", ValueError, dict(shape=(4,), dtype="float64"),
     f"session.empty: dtype must be one of {DTYPES}, got 'float64'"),
    ("layout-name", ValueError, dict(shape=(4,), dtype="uint32", layout="col"),
     "session.empty: layout must be 'row' or 'tile', got 'col'"),
    ("layout-type", TypeError, dict(shape=(4,), dtype="uint32", layout=1),
     "session.empty: layout must be 'row' or 'tile', got 1 (int)"),
    ("grid-zero", ValueError, dict(shape=(4,), dtype="uint32", shard_grid=(0, 1)),
     "session.empty: shard_grid[0] must be a positive core count (1..65535), got 0"),
    ("grid-too-big", ValueError, dict(shape=(5, 4), dtype="uint32", shard_grid=(5, 1)),
     "session.empty: shard_grid (5, 1) does not fit the device's 4 x 4 grid"),  # conftest's 4 x 4 device
    ("grid-str", TypeError, dict(shape=(4,), dtype="uint32", shard_grid="2x2"),
     "session.empty: shard_grid must be None or an (x, y) tuple of core counts, got '2x2' (str)"),
    ("grid-three", TypeError, dict(shape=(4,), dtype="uint32", shard_grid=(1, 2, 3)),
     "session.empty: shard_grid must be None or an (x, y) tuple of core counts, got (1, 2, 3) (tuple)"),
    ("grid-float", TypeError, dict(shape=(4,), dtype="uint32", shard_grid=(1, 2.0)),
     "session.empty: shard_grid[1] must be a positive core count (1..65535), got 2.0 (float)"),
    ("busy", TypeError, dict(shape=(4,), dtype="uint32", busy=5),
     "session.empty: busy must be None or a callable returning None or a reason, got 5 (int)"),
    ("no-shape", TypeError, dict(shape=None, dtype="uint32"), "session.empty: shape is required when there is no data"),
    ("shape-zero", ValueError, dict(shape=(0, 4), dtype="uint32"),
     "session.empty: shape[0] must be a positive integer (1..4294967295), got 0"),
    ("shape-str", TypeError, dict(shape="ab", dtype="uint32"),
     "session.empty: shape must be a tuple of dimensions, got 'ab' (str)"),
    ("shape-empty", ValueError, dict(shape=(), dtype="uint32"),
     "session.empty: shape must have at least one dimension, got ()"),
    ("shape-bool", TypeError, dict(shape=(True, 4), dtype="uint32"),
     "session.empty: shape[0] must be a positive integer (1..4294967295), got True (bool)"),
    ("data-shape", ValueError, dict(shape=(4, 4), dtype="uint32", data=np.zeros((4, 5))),
     "session.tensor: data has shape (4, 5), but shape is (4, 4)"),
    ("data-scalar", ValueError, dict(shape=None, dtype="uint32", data=5),
     "session.tensor: data must have at least one dimension and no empty one, got shape ()"),
    ("data-empty", ValueError, dict(shape=None, dtype="uint32", data=np.zeros((0, 3))),
     "session.tensor: data must have at least one dimension and no empty one, got shape (0, 3)"),
    ("block-row", ValueError, dict(shape=(32, 32), dtype="bfloat8_b"),
     "session.empty: bfloat8_b is a block format (a shared exponent per 16 values of a tile): it needs "
     "layout='tile'"),
    ("tile-1d", ValueError, dict(shape=(64,), dtype="bfloat16", layout="tile"),
     "session.empty: a tile tensor needs at least two dimensions (rows x cols), got shape (64,)"),
    ("shard-tile", ValueError, dict(shape=(2, 32), dtype="bfloat16", layout="tile", shard_grid=(2, 1)),
     "session.empty: a tensor on a shard_grid is [cores, words], one row per core: it needs layout='row', got "
     "'tile'"),
    ("shard-rows", ValueError, dict(shape=(3, 8), dtype="uint32", shard_grid=(2, 1)),
     "session.empty: a tensor on shard_grid (2, 1) is [cores, words], one row in each of its 2 cores: expected "
     "shape (2, words), got (3, 8)"),
    ("shard-3d", ValueError, dict(shape=(2, 8, 1), dtype="uint32", shard_grid=(2, 1)),
     "session.empty: a tensor on shard_grid (2, 1) is [cores, words], one row in each of its 2 cores: expected "
     "shape (2, words), got (2, 8, 1)"),
    ("uint8-range", ValueError, dict(shape=None, dtype="uint8", data=[1, 256]),
     "session.tensor: uint8 data must fit 0..255, got 256"),
    ("int32-range", ValueError, dict(shape=None, dtype="int32", data=[-2**31 - 1]),
     "session.tensor: int32 data must fit -2147483648..2147483647, got -2147483649"),
    ("uint32-negative", ValueError, dict(shape=None, dtype="uint32", data=[-1, 2]),
     "session.tensor: uint32 data must fit 0..4294967295, got -1"),
    ("uint8-float-range", ValueError, dict(shape=None, dtype="uint8", data=[300.0]),
     "session.tensor: uint8 data must fit 0..255, got 300.0"),
    ("int-not-whole", ValueError, dict(shape=None, dtype="int32", data=[1.5]),
     "session.tensor: int32 data must be whole numbers, got 1.5"),
    ("int-nan", ValueError, dict(shape=None, dtype="uint16", data=[np.nan]),
     "session.tensor: uint16 data must be whole numbers, got nan"),
    ("strings", TypeError, dict(shape=None, dtype="float32", data=["a"]),
     "session.tensor: data must hold real numbers, got an array of <U1"),
    ("complex", TypeError, dict(shape=None, dtype="float32", data=[1j]),
     "session.tensor: data must hold real numbers, got an array of complex128"),
]


@pytest.mark.parametrize("exc,kwargs,text", [c[1:] for c in CREATE], ids=[c[0] for c in CREATE])
def test_create(device, exc, kwargs, text):
    kwargs = {"device": device, **kwargs}
    before = device.memory_statistics("dram").allocated_bytes, device.memory_statistics("l1").allocated_bytes
    assert message(exc, lambda: tensor.create(**kwargs)) == text
    after = device.memory_statistics("dram").allocated_bytes, device.memory_statistics("l1").allocated_bytes
    assert after == before  # nothing allocated


def test_ragged_data(device):
    text = message(ValueError, lambda: tensor.create(device, None, "float32", data=[[1], [1, 2]]))
    assert text.startswith("session.tensor: data must be an array of numbers: numpy cannot make one (")


def test_tensor_methods(tensors):
    row, tile = tensors["row"], tensors["tile"]
    assert message(TypeError, lambda: tensor.Tensor()) == \
        "use session.tensor(...) or session.empty(...) (tessel.dispatch.tensor.create) to make a Tensor"
    assert message(ValueError, lambda: row.write(np.zeros((4, 9)))) == \
        "Tensor.write: data has shape (4, 9), the tensor's is (4, 8)"
    assert message(ValueError, lambda: tile.write(np.zeros((40, 70)))) == (
        "Tensor.write: data has shape (40, 70); this tile tensor takes its shape (64, 64) or one that pads to it "
        "(the last two dimensions rounded up to multiples of 32)")
    assert message(ValueError, lambda: row.write(np.full((4, 8), 2**32))) == \
        "Tensor.write: uint32 data must fit 0..4294967295, got 4294967296"
    assert message(TypeError, lambda: row.write("text")) == \
        "Tensor.write: data must hold real numbers, got an array of <U4"


def test_session_reads(tensors):
    row, tile, l1 = tensors["row"], tensors["tile"], tensors["l1"]
    assert message(TypeError, lambda: tensor.read_pages()) == "session.read: give at least one tensor"
    assert message(TypeError, lambda: tensor.read_pages(row, "x")) == \
        "session.read: tensors[1] must be a Tensor, got 'x' (str)"
    assert message(ValueError, lambda: tensor.read_pages(l1)) == (
        "session.read: tensor is an L1 tensor (shard_grid (2, 1)); these reads take interleaved DRAM tensors: read "
        "an L1 tensor with Tensor.read() after run.stop()")
    assert message(ValueError, lambda: tensor.read_bf16(row)) == \
        "session.read_bf16: tensor is a uint32 row tensor; session.read_bf16 reads bfloat16 tile tensors"
    assert message(ValueError, lambda: tensor.read_bf16(tile, row)) == \
        "session.read_bf16: tensors[1] is a uint32 row tensor; session.read_bf16 reads bfloat16 tile tensors"
    assert message(TypeError, lambda: tensor.read_range(None)) == \
        "session.read: tensor must be a Tensor, got None (NoneType)"
    assert message(TypeError, lambda: tensor.read_range(row, 1.0)) == \
        "session.read: first must be an integer, got 1.0 (float)"
    assert message(TypeError, lambda: tensor.read_range(row, 0, "3")) == \
        "session.read: pages must be an integer, got '3' (str)"
    assert message(TypeError, lambda: tensor.read_range(row, True)) == \
        "session.read: first must be an integer, got True (bool)"
    assert message(ValueError, lambda: tensor.read_range(row, 0, -1)) == \
        "session.read: pages must be a page count (0 or more) or None, got -1"
    assert message(TypeError, lambda: tensor.read_chunks(row, 2.5)) == \
        "session.read_chunks: chunk_bytes must be an integer, got 2.5 (float)"
    assert message(ValueError, lambda: tensor.read_chunks(row, 16)) == \
        "session.read_chunks: chunk_bytes 16 is less than one page (32 B): a chunk holds whole pages"
    assert message(ValueError, lambda: tensor.read_tiles_bf16(row, 0, 1)) == \
        "session.read_tiles_bf16: tensor is a uint32 row tensor; session.read_tiles_bf16 reads bfloat16 tile tensors"


def test_formats():
    assert message(ValueError, lambda: formats.dtype_info("float64")) == \
        f"formats.dtype_info: name must be one of {DTYPES}, got 'float64'"
    assert message(TypeError, lambda: formats.dtype_info(np.float32)) == \
        f"formats.dtype_info: name must be a data type name ({DTYPES}), got <class 'numpy.float32'> (type)"
    assert message(ValueError, lambda: formats.tilize(np.zeros(5))) == \
        "formats.tilize: x must have at least two dimensions (rows x cols), got shape (5,)"
    assert message(TypeError, lambda: formats.tilize([["a"]])) == \
        "formats.tilize: x must hold real numbers, got an array of <U1"
    assert message(ValueError, lambda: formats.untilize(np.zeros(100), (32, 32))) == \
        "formats.untilize: shape (32, 32) takes 1024 tile-order values (padded to (32, 32)), got 100"
    assert message(ValueError, lambda: formats.untilize(np.zeros(1024), (32,))) == \
        "formats.untilize: shape must have at least two dimensions (rows x cols), got (32,)"
    assert message(ValueError, lambda: formats.untilize(np.zeros(1024), (-1, 32))) == \
        "formats.untilize: shape[0] must be a non-negative integer (0..18446744073709551615), got -1"
    assert message(ValueError, lambda: formats.to_bytes(np.zeros(1000), "bfloat8_b")) == (
        "formats.to_bytes: bfloat8_b values must be whole 32 x 32 tiles in tile order (a multiple of 1024 values; "
        "tilize first), got 1000")
    assert message(ValueError, lambda: formats.to_bytes([1], "int8")) == \
        f"formats.to_bytes: dtype must be one of {DTYPES}, got 'int8'"
    assert message(ValueError, lambda: formats.to_bytes([70000], "uint16")) == \
        "formats.to_bytes: uint16 data must fit 0..65535, got 70000"
    assert message(ValueError, lambda: formats.from_bytes(np.zeros(7, np.uint8), "uint32")) == \
        "formats.from_bytes: 7 bytes are not whole uint32 values (4 B each)"
    assert message(ValueError, lambda: formats.from_bytes(np.zeros(1000, np.uint8), "bfloat4_b")) == \
        "formats.from_bytes: 1000 bytes are not whole bfloat4_b tiles (576 B each)"
    assert message(TypeError, lambda: formats.from_bytes(np.zeros(8, np.int32), "uint32")) == \
        "formats.from_bytes: data must be uint8 bytes, got an array of int32"
    assert message(TypeError, lambda: formats.from_bytes([1, 2], "uint8")) == \
        "formats.from_bytes: data must be a uint8 numpy array or bytes, got [1, 2] (list)"
    assert message(ValueError, lambda: formats.bf16_values([70000])) == \
        "formats.bf16_values: bits must be uint16 bit patterns (0..65535), got 70000"
    assert message(TypeError, lambda: formats.bf16_values([1.5])) == \
        "formats.bf16_values: bits must be uint16 bit patterns, got an array of float64"
    assert message(TypeError, lambda: formats.bf16_bits("x")) == \
        "formats.bf16_bits: values must hold real numbers, got an array of <U1"


def test_abi():
    assert message(TypeError, lambda: abi.constants(3)) == \
        "abi.constants: path must be a str or os.PathLike, got 3 (int)"
    assert message(TypeError, lambda: abi.constants("x.h", known=[1])) == \
        "abi.constants: known must be a dict of name -> int (or None), got [1] (list)"
    assert message(TypeError, lambda: abi.constants("x.h", known={"a": "b"})) == \
        "abi.constants: known['a'] must be an integer, got 'b' (str)"
    assert message(TypeError, lambda: abi.constants("x.h", known={"a": True})) == \
        "abi.constants: known['a'] must be an integer, got True (bool)"
    assert message(TypeError, lambda: abi.constants("x.h", known={1: 2})) == \
        "abi.constants: known's keys must be str names, got 1 (int)"
    assert message(TypeError, lambda: abi.handlers(3)) == \
        "Program.handlers must be a dict {name: number} or a header path, got 3 (int)"
    assert message(TypeError, lambda: abi.handlers([("a", 1)])) == \
        "Program.handlers must be a dict {name: number} or a header path, got [('a', 1)] (list)"
