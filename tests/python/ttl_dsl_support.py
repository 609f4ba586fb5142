"""Helpers of the TT-Lang DSL tests (test_ttl_dsl*.py): tensors, bf16
rounding, one-tile operations whose compute and reader kernels a test
supplies, and the lines of `# <- marker` comments."""

import numpy as np
import tessel.ttl as ttl


def line_of(path, marker):
    """The line of `path` that ends with the comment `# <- marker`."""
    with open(path) as f:
        for i, text in enumerate(f, 1):
            if text.rstrip().endswith("# <- " + marker):
                return i
    raise AssertionError(marker)


def tensor(dev, array):
    return ttl.Tensor.from_numpy(dev, np.ascontiguousarray(array, dtype=np.float32))


def bf16(a):
    """Round to bfloat16 (nearest even), as the device stores inputs."""
    bits = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32)


def one_tile_op(compute_body, reader_body=None, grid=(1, 1)):
    """An operation y = f(a) over one tile with the given compute kernel body."""
    @ttl.operation(grid=grid)
    def op(a, y):
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
        y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
        ttl.compute()(compute_body(a_dfb, y_dfb))
        ttl.datamovement()((reader_body or read_one)(a, a_dfb))

        @ttl.datamovement()
        def write():
            with y_dfb.wait() as blk:
                ttl.copy(blk, y[0, 0]).wait()

    return op


def read_one(a, a_dfb):
    def read():
        with a_dfb.reserve() as blk:
            ttl.copy(a[0, 0], blk).wait()
    return read
