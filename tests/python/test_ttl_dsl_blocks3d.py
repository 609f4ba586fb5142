"""Blocks of three dimensions in compute: batched `@` (a batch of matrices of
tiles, one side possibly shared), ttl.block.broadcast along a batch
dimension (whole tiles repeated, nothing broadcast inside them) and
squeeze/unsqueeze around them, against numpy in float64."""

import numpy as np
import pytest
import tessel
import tessel.ttl as ttl
from ttl_dsl_support import bf16

F32 = tessel.DataFormat.Float32


@pytest.fixture(scope="module")
def dev():
    with tessel.Device.open(arch="wormhole_b0", grid=(1, 1)) as d:
        yield d


def _matmul_op(a_block, b_block, y_block, form):
    @ttl.operation(grid=(1, 1))
    def op(a, b, y):
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=a_block, block_count=1)
        b_dfb = ttl.make_dataflow_buffer_like(b, shape=b_block, block_count=1)
        y_dfb = ttl.make_dataflow_buffer_like(y, shape=y_block, block_count=1)

        @ttl.compute()
        def compute():
            with a_dfb.wait() as x, b_dfb.wait() as z, y_dfb.reserve() as o:
                if form == "broadcast":
                    o.store(x @ ttl.block.broadcast(ttl.block.unsqueeze(z, dims=[0]), dims=[0], shape=(2, 3, 2)))
                elif form == "tiles":
                    # z: (1, 2, 3) tiles -> (2, 2, 3): the same tiles for both batches, values untouched.
                    o.store(x + ttl.block.broadcast(z, dims=[0], shape=(2, 2, 3)))
                else:
                    o.store(x @ z)

        @ttl.datamovement()
        def read():
            with a_dfb.reserve() as blk:
                ttl.copy(a[tuple(slice(0, d) for d in a_block)], blk).wait()
            with b_dfb.reserve() as blk:
                ttl.copy(b[tuple(slice(0, d) for d in b_block)], blk).wait()

        @ttl.datamovement()
        def write():
            with y_dfb.wait() as blk:
                ttl.copy(blk, y[tuple(slice(0, d) for d in y_block)]).wait()

    return op


def _elements(tiles):
    """A tensor shape holding a block of `tiles` (the last two dimensions are tiles)."""
    return tuple(tiles[:-2]) + tuple(d * 32 for d in tiles[-2:])


CASES = [
    # (a tiles, b tiles, y tiles, expression, reference)
    ((2, 2, 3), (2, 3, 2), (2, 2, 2), "batched", lambda a, b: a @ b),
    ((2, 2, 3), (3, 2), (2, 2, 2), "shared", lambda a, b: a @ b),
    ((2, 2, 3), (3, 2), (2, 2, 2), "broadcast", lambda a, b: a @ b),
    ((1, 2, 3), (2, 3, 2), (2, 2, 2), "shared left", lambda a, b: a @ b),
]


@pytest.mark.parametrize("a_tiles, b_tiles, y_tiles, form, ref", CASES, ids=[c[3] for c in CASES])
def test_batched_matmul(dev, a_tiles, b_tiles, y_tiles, form, ref):
    rng = np.random.default_rng(len(form))
    a = rng.standard_normal(_elements(a_tiles)).astype(np.float32)
    b = rng.standard_normal(_elements(b_tiles)).astype(np.float32)
    y = ttl.Tensor.allocate(dev, _elements(y_tiles), dtype=F32)
    op = _matmul_op(a_tiles, b_tiles, y_tiles, form)
    op(ttl.Tensor.from_numpy(dev, a, dtype=F32), ttl.Tensor.from_numpy(dev, b, dtype=F32), y)
    # The FPU reads float32 operands through 19-bit source registers (10 mantissa bits).
    expect = ref(bf16(a).astype(np.float64), bf16(b).astype(np.float64))
    got = y.to_numpy()
    assert np.max(np.abs(got - expect)) < 0.02 * np.max(np.abs(expect))


def test_broadcast_along_a_batch_dimension_repeats_whole_tiles(dev):
    op = _matmul_op((2, 2, 3), (1, 2, 3), (2, 2, 3), "tiles")
    rng = np.random.default_rng(7)
    a = rng.standard_normal((2, 64, 96)).astype(np.float32)
    b = rng.standard_normal((1, 64, 96)).astype(np.float32)
    y = ttl.Tensor.allocate(dev, (2, 64, 96), dtype=F32)
    op(ttl.Tensor.from_numpy(dev, a, dtype=F32), ttl.Tensor.from_numpy(dev, b, dtype=F32), y)
    np.testing.assert_allclose(y.to_numpy(), a + b, rtol=1e-6)


def test_batch_dimensions_that_differ_are_an_error(dev):
    op = _matmul_op((2, 1, 1), (3, 1, 1), (2, 1, 1), "batched")
    with pytest.raises(ttl.CompileError, match=r"@ of blocks of shapes \(2, 1, 1\) and \(3, 1, 1\): the batch "
                                               r"dimensions differ \(they must be equal, or all 1 on one side\)"):
        op(ttl.Tensor.allocate(dev, (2, 32, 32), dtype=F32), ttl.Tensor.allocate(dev, (3, 32, 32), dtype=F32),
           ttl.Tensor.allocate(dev, (2, 32, 32), dtype=F32))
