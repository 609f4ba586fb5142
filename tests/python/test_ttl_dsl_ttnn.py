"""TT-Lang operations called with ttnn tensors the way programs written for
TT-Lang's simulator call them: host tensors (ttnn.rand without a device)
run on device copies and get the results back, the body sees the tensors'
logical shapes, and kernels build tensor slices with slice().
"""

import numpy as np
import tessel.ttl as ttl
import tessel.ttnn as ttnn
from tessel.ttnn.staging import close_default_device


@ttl.operation(grid=(1, 1))
def scaled(a, y):
    assert a.shape == (64, 64)  # the ttnn tensor's own shape
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(2, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(2, 1), block_count=2)

    @ttl.datamovement()
    def read():
        for c in range(2):
            rows = slice(0, 2)
            cols = slice(c, c + 1)
            with a_dfb.reserve() as blk:
                ttl.copy(a[rows, cols], blk).wait()

    @ttl.compute()
    def compute():
        for _ in range(2):
            with a_dfb.wait() as x, y_dfb.reserve() as o:
                o.store(x * 2.0)

    @ttl.datamovement()
    def write():
        for c in range(2):
            with y_dfb.wait() as blk:
                ttl.copy(blk, y[0:2, slice(c, c + 1)]).wait()


def test_host_tensors_run_on_a_device_and_get_the_results():
    a = ttnn.rand((64, 64), dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT)
    y = ttnn.empty((64, 64), dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT)
    assert a.storage_type() == y.storage_type()  # both on the host
    try:
        scaled(a, y)  # no device was opened: the operation opens device 0 for them
    finally:
        close_default_device()
    np.testing.assert_allclose(np.asarray(ttnn.to_torch(y)), 2 * np.asarray(ttnn.to_torch(a)), rtol=1e-6)


def test_host_tensors_beside_device_tensors_run_on_that_device():
    device = ttnn.open_device(device_id=0)
    try:
        values = np.arange(64 * 64, dtype=np.float32).reshape(64, 64) / 1024
        a = ttnn.from_torch(values, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device)
        y = ttnn.empty((64, 64), dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT)  # on the host
        scaled(a, y)
        np.testing.assert_allclose(np.asarray(ttnn.to_torch(y)), 2 * values, rtol=1e-6)
    finally:
        ttnn.close_device(device)


@ttl.operation(grid=(1, 1))
def add_one(out, inp):
    o_dfb = ttl.make_dataflow_buffer_like(out, shape=(1, 1), block_count=2)
    i_dfb = ttl.make_dataflow_buffer_like(inp, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def read():
        with i_dfb.reserve() as blk:
            ttl.copy(inp[0, 0], blk).wait()

    @ttl.compute()
    def compute():
        with i_dfb.wait() as x, o_dfb.reserve() as o:
            o.store(x + 1.0)

    @ttl.datamovement()
    def write():
        with o_dfb.wait() as blk:
            ttl.copy(blk, out[0, 0]).wait()


def test_one_host_tensor_in_two_parameters_and_read_only_inputs():
    x = ttnn.rand((32, 32), dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT)
    before = np.asarray(ttnn.to_torch(x)).copy()
    try:
        add_one(x, x)  # one device copy: the result is x + 1
        np.testing.assert_allclose(np.asarray(ttnn.to_torch(x)), before + 1, rtol=1e-6)
        # A bfloat8_b input the operation only reads keeps its host values.
        src = ttnn.rand((32, 32), dtype=ttnn.bfloat8_b, layout=ttnn.TILE_LAYOUT)
        kept = np.asarray(ttnn.to_torch(src)).copy()
        out = ttnn.empty((32, 32), dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT)
        add_one(out, src)
        np.testing.assert_array_equal(np.asarray(ttnn.to_torch(src)), kept)
    finally:
        close_default_device()
