"""One element of a block at a time, in data-movement kernels:
ttl.raw_element_read, ttl.raw_element_write and ttl.read_index (TT-Lang spec
0.18, "Scalar element access functions"), with the tile's face layout, the
block states and bounds checked, each error naming the Python line."""

import os

import numpy as np
import pytest
import tessel
import tessel.ttl as ttl
from tessel.errors import KernelError
from ttl_dsl_support import line_of

HERE = os.path.abspath(__file__)
F32 = tessel.DataFormat.Float32
BF16 = tessel.DataFormat.Float16_b


@pytest.fixture(scope="module")
def dev():
    with tessel.Device.open(arch="wormhole_b0", grid=(2, 1)) as d:
        yield d


def _op(writer_factory, shape=(1, 2)):
    """y = x as the writer leaves its block; idx's block gives it an index."""
    @ttl.operation(grid=(1, 1))
    def op(idx, x, y):
        i_dfb = ttl.make_dataflow_buffer_like(idx, shape=(1, 1), block_count=1)
        x_dfb = ttl.make_dataflow_buffer_like(x, shape=shape, block_count=1)

        @ttl.compute()
        def compute():
            pass

        @ttl.datamovement()
        def read():
            with i_dfb.reserve() as blk:
                ttl.copy(idx[0, 0], blk).wait()
            with x_dfb.reserve() as blk:
                ttl.copy(x[0:shape[0], 0:shape[1]], blk).wait()

        ttl.datamovement()(writer_factory(i_dfb, x_dfb, y, shape))

    return op


def _row_swap(i_dfb, x_dfb, y, shape):
    def write():
        with i_dfb.wait() as i_blk, x_dfb.wait() as x_blk:
            r = ttl.read_index(i_blk, 0, 3)
            for c in range(64):
                v = ttl.raw_element_read(x_blk, r, c)
                ttl.raw_element_write(x_blk, r, c, ttl.raw_element_read(x_blk, 0, c))
                ttl.raw_element_write(x_blk, 0, c, v * 2.0)
            ttl.copy(x_blk, y[0:1, 0:2]).wait()
    return write


@pytest.mark.parametrize("fmt", [F32, BF16])
def test_elements_move_by_their_coordinates(dev, fmt):
    x = np.arange(32 * 64, dtype=np.float32).reshape(32, 64) / 8
    idx = np.zeros((32, 32), np.float32)
    idx[0, 3] = 17  # element (0, 3): row 0 of face 0
    y = ttl.Tensor.allocate(dev, (32, 64), dtype=fmt)
    _op(_row_swap)(ttl.Tensor.from_numpy(dev, idx, dtype=fmt), ttl.Tensor.from_numpy(dev, x, dtype=fmt), y)
    xs = ttl.Tensor.from_numpy(dev, x, dtype=fmt).to_numpy()
    expect = xs.copy()
    expect[17], expect[0] = xs[0], xs[17] * 2
    np.testing.assert_array_equal(y.to_numpy(), expect)


def _outside(i_dfb, x_dfb, y, shape):
    def write():
        with i_dfb.wait() as i_blk, x_dfb.wait() as x_blk:
            ttl.raw_element_write(x_blk, 32, 0, 1.0)  # <- outside
            ttl.copy(x_blk, y[0:1, 0:2]).wait()
    return write


def _not_an_index(i_dfb, x_dfb, y, shape):
    def write():
        with i_dfb.wait() as i_blk, x_dfb.wait() as x_blk:
            r = ttl.read_index(i_blk, 0, 0)  # <- not an index
            ttl.copy(x_blk, y[0:1, r:r + 2]).wait()
    return write


def _during_copy(i_dfb, x_dfb, y, shape):
    def write():
        with i_dfb.wait() as i_blk, x_dfb.wait() as x_blk:
            tx = ttl.copy(x_blk, y[0:1, 0:2])  # <- copy out
            ttl.raw_element_write(x_blk, 0, 0, 1.0)  # <- write during copy
            tx.wait()
    return write


@pytest.mark.parametrize("writer, index_value, message, marker", [
    (_outside, 0.0, "ttl.raw_element_write: element (32, 0) is outside block 'x_blk' of 32x64 elements", "outside"),
    (_not_an_index, 2.5, "ttl.read_index: element (0, 0) of block 'i_blk' is not a non-negative integer, so it "
                         "cannot index a tensor", "not an index"),
    (_during_copy, 0.0, "ttl.raw_element_write: block 'x_blk' while a copy from it (requested at line {copy out}) "
                        "is in flight: wait() for the copy first", "write during copy"),
])
def test_element_misuses_name_the_line(dev, writer, index_value, message, marker):
    x = ttl.Tensor.from_numpy(dev, np.ones((32, 64), np.float32), dtype=F32)
    idx = ttl.Tensor.from_numpy(dev, np.full((32, 32), index_value, np.float32), dtype=F32)
    y = ttl.Tensor.allocate(dev, (32, 64), dtype=F32)
    with pytest.raises(KernelError) as e:
        _op(writer)(idx, x, y)
    message = message.replace("{copy out}", str(line_of(HERE, "copy out")))
    assert str(e.value) == f"{HERE}:{line_of(HERE, marker)}: core (0,0) BRISC: {message}"


def _in_compute(a_dfb, y_dfb):
    def compute():
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            ttl.raw_element_write(x, 0, 0, 1.0)  # <- compute
            o.store(x)
    return compute


def test_element_access_is_for_data_movement_kernels(dev):
    from ttl_dsl_support import one_tile_op, tensor

    with pytest.raises(ttl.CompileError) as e:
        one_tile_op(_in_compute)(tensor(dev, np.ones((32, 32))), ttl.Tensor.allocate(dev, (32, 32)))
    assert str(e.value) == (f"{HERE}:{line_of(HERE, 'compute')}: ttl.raw_element_write runs in a data-movement kernel "
                            "(blocks are read and written element by element there) (kernel function 'compute' of "
                            "operation 'op')")
