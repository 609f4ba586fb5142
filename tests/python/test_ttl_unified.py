"""Unified-body operations (TT-Lang spec 0.19): the body holds the kernel
statements itself, and tessel assigns each to the reader, compute or
writer thread (ttl/unified.py)."""

import os

import numpy as np
import pytest
import tessel
import tessel.ttl as ttl
from tessel.errors import DeadlockError
from ttl_dsl_support import bf16, line_of, tensor

HERE = os.path.abspath(__file__)


@pytest.fixture(scope="module")
def dev():
    with tessel.Device.open(arch="wormhole_b0", grid=(2, 2)) as d:
        yield d


@ttl.operation(grid=(1, 1))
def add_pair(a, b, out):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=2)
    out_dfb = ttl.make_dataflow_buffer_like(out, shape=(1, 1), block_count=2)

    a_blk = a_dfb.reserve()
    b_blk = b_dfb.reserve()
    ttl.copy(a[0:1, 0:1], a_blk).wait()
    ttl.copy(b[0:1, 0:1], b_blk).wait()
    a_blk.push()
    b_blk.push()

    out_blk = out_dfb.reserve()
    x = a_dfb.wait()
    y = b_dfb.wait()
    out_blk.store(x + y)
    x.pop()
    y.pop()

    ttl.copy(out_dfb.wait(), out[0:1, 0:1]).wait()
    out_blk.push()


def test_the_specs_unified_add(dev):
    a = bf16(np.random.default_rng(1).standard_normal((32, 32)))
    b = bf16(np.random.default_rng(2).standard_normal((32, 32)))
    out = ttl.Tensor.allocate(dev, (32, 32))
    add_pair(tensor(dev, a), tensor(dev, b), out)
    np.testing.assert_allclose(out.to_numpy(), bf16(a + b), rtol=1e-2, atol=1e-2)
    sources = add_pair.generated_kernels(tensor(dev, a), tensor(dev, b), out)
    assert len(sources) == 3
    compute = next(s for k, s in sources.items() if k is ttl.KernelKind.COMPUTE)
    assert "add_tiles" in compute and "noc_async" not in compute


@ttl.operation(grid=(2, 1))
def scaled_rows(a, y):
    """y = 2 a + 1, one row of tiles per node, in loops the threads share."""
    cols = a.shape[1] // 32
    rows_per_node = a.shape[0] // 32 // 2
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
    node_x, _ = ttl.node(dims=2)
    for r in range(rows_per_node):
        row = node_x * rows_per_node + r
        for c in range(cols):
            with a_dfb.reserve() as blk:
                ttl.copy(a[row, c], blk).wait()
            with a_dfb.wait() as x, y_dfb.reserve() as o:
                o.store(x * 2.0 + 1.0)
            with y_dfb.wait() as done:
                tx = ttl.copy(done, y[row, c])
                tx.wait()


def test_loops_and_device_values_go_to_every_thread_that_needs_them(dev):
    a = bf16(np.random.default_rng(3).standard_normal((128, 96)))
    y = ttl.Tensor.allocate(dev, (128, 96))
    scaled_rows(tensor(dev, a), y)
    np.testing.assert_allclose(y.to_numpy(), bf16(a * 2 + 1), rtol=1e-2, atol=1e-2)
    # The body ran again on a second call, with the kernels reused.
    y2 = ttl.Tensor.allocate(dev, (128, 96))
    scaled_rows(tensor(dev, a), y2)
    np.testing.assert_array_equal(y2.to_numpy(), y.to_numpy())


@ttl.operation(grid=(1, 1))
def two_threads_one_block(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    blk = a_dfb.reserve()
    ttl.copy(a[0, 0], blk).wait()  # <- copy into
    blk.store(ttl.block.fill(1.0, shape=(1, 1)))  # <- store into
    blk.push()


@ttl.operation(grid=(1, 1))
def unused_block(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    with a_dfb.reserve() as blk:  # <- unused
        blk.push()


def test_a_block_two_threads_use_is_an_error_naming_both_lines(dev):
    a, y = tensor(dev, np.ones((32, 32))), ttl.Tensor.allocate(dev, (32, 32))
    with pytest.raises(ttl.CompileError) as e:
        two_threads_one_block(a, y)
    assert str(e.value) == (
        f"{HERE}:{line_of(HERE, 'store into')}: 'blk' is used by the compute thread here and by the reader thread at "
        f"line {line_of(HERE, 'copy into')}; in a unified body each block belongs to one thread (copies into blocks "
        "run on the reader, copies out of blocks on the writer, store() and block expressions on compute)")
    with pytest.raises(ttl.CompileError) as e:
        unused_block(a, y)
    assert str(e.value) == (
        f"{HERE}:{line_of(HERE, 'unused')}: the block 'blk' is acquired but no statement copies into it, out of it, "
        "or computes with it, so no thread can be chosen for it")


@ttl.operation(grid=(1, 1))
def starved(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
    with a_dfb.reserve() as blk:
        ttl.copy(a[0, 0], blk).wait()
    for _ in range(2):
        with a_dfb.wait() as x, y_dfb.reserve() as o:  # <- starved wait
            o.store(x + x)
    with y_dfb.wait() as done:
        ttl.copy(done, y[0, 0]).wait()


def test_reports_name_the_bodys_lines(dev):
    a, y = tensor(dev, np.ones((32, 32))), ttl.Tensor.allocate(dev, (32, 32))
    with pytest.raises(DeadlockError) as e:
        starved(a, y)
    report = str(e.value)
    assert f"{HERE}:{line_of(HERE, 'starved wait')}" in report
    assert "kernel function 'compute'" in "\n".join(getattr(e.value, "__notes__", []))
    # The device runs the next program.
    out = ttl.Tensor.allocate(dev, (32, 32))
    add_pair(a, a, out)
    assert out.to_numpy()[0, 0] == 2.0


def test_an_operation_with_kernel_functions_is_not_a_unified_body():
    from tessel.ttl.unified import unified_body

    def body(a, y):
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))

        @ttl.compute()
        def compute():
            with a_dfb.wait() as x:
                pass

    assert unified_body(body) is None
