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


F32 = tessel.DataFormat.Float32


@ttl.operation(grid=(1, 1))
def reused_names(a, y):
    """y = a + 1 with the reader's and the writer's block both named blk, and both copy handles tx."""
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
    for c in range(2):
        with a_dfb.reserve() as blk:
            tx = ttl.copy(a[0, c], blk)
            tx.wait()
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            o.store(x + 1.0)
        with y_dfb.wait() as blk:
            tx = ttl.copy(blk, y[0, c])
            tx.wait()


@ttl.operation(grid=(1, 1))
def reused_handle(a, y):
    """y = a + 1 with the reader's and the writer's copy handles both named tx."""
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
    with a_dfb.reserve() as ab:
        tx = ttl.copy(a[0, 0], ab)
        tx.wait()
    with a_dfb.wait() as x, y_dfb.reserve() as o:
        o.store(x + 1.0)
    with y_dfb.wait() as done:
        tx = ttl.copy(done, y[0, 0])
        tx.wait()


@pytest.mark.parametrize("op,cols", [(reused_names, 2), (reused_handle, 1)], ids=["blocks", "handles"])
def test_a_name_reused_for_blocks_and_copies_of_other_threads_is_each_its_own(dev, op, cols):
    a = bf16(np.random.default_rng(4).standard_normal((32, 32 * cols)))
    y = ttl.Tensor.allocate(dev, (32, 32 * cols))
    op(tensor(dev, a), y)
    np.testing.assert_allclose(y.to_numpy(), bf16(a + 1), rtol=1e-2, atol=1e-2)


@ttl.operation(grid=(2, 1))
def in_body_order(a, y):
    """y = 2a, each node a half of the row tiles from a scalar derived from ttl.node() before the loop using it."""
    per = a.shape[0] // 32 // 2
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
    x, _ = ttl.node(dims=2)
    first = x * per
    for i in range(per):
        t = first + i
        with a_dfb.reserve() as blk:
            ttl.copy(a[t, 0], blk).wait()
        with a_dfb.wait() as v, y_dfb.reserve() as o:
            o.store(v * 2.0)
        with y_dfb.wait() as done:
            ttl.copy(done, y[t, 0]).wait()


def test_kernel_statements_keep_the_bodys_order(dev):
    a = bf16(np.random.default_rng(5).standard_normal((128, 32)))
    y = ttl.Tensor.allocate(dev, (128, 32))
    in_body_order(tensor(dev, a), y)
    np.testing.assert_allclose(y.to_numpy(), bf16(a * 2), rtol=1e-2, atol=1e-2)


def _scoped_names(kind):
    @ttl.operation(grid=(1, 1))
    def op(a, y):
        """y = 2a, with operation-scope Python whose comprehension or lambda variable is named as the kernel loop's."""
        if kind == "comprehension":
            cols = len([c for c in range(a.shape[1] // 32)])
        else:
            cols = (lambda c: c // 32)(a.shape[1])
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
        y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
        for c in range(cols):
            with a_dfb.reserve() as blk:
                ttl.copy(a[0, c], blk).wait()
            with a_dfb.wait() as v, y_dfb.reserve() as o:
                o.store(v * 2.0)
            with y_dfb.wait() as done:
                ttl.copy(done, y[0, c]).wait()

    return op


@pytest.mark.parametrize("kind", ["comprehension", "lambda"])
def test_comprehension_and_lambda_variables_are_their_own(dev, kind):
    a = bf16(np.random.default_rng(12).standard_normal((32, 64)))
    y = ttl.Tensor.allocate(dev, (32, 64))
    _scoped_names(kind)(tensor(dev, a), y)
    np.testing.assert_allclose(y.to_numpy(), bf16(a * 2), rtol=1e-2, atol=1e-2)


@ttl.operation(grid=(1, 1))
def tuple_acquire(a, b, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
    ab, bb = a_dfb.reserve(), b_dfb.reserve()
    ttl.copy(a[0, 0], ab).wait()
    ttl.copy(b[0, 0], bb).wait()
    ab.push()
    bb.push()
    x, z, o = a_dfb.wait(), b_dfb.wait(), y_dfb.reserve()
    o.store(x - z)
    x.pop()
    z.pop()
    o.push()
    done, k = y_dfb.wait(), 0
    ttl.copy(done, y[0, k]).wait()
    done.pop()


def test_blocks_acquired_in_one_tuple_assignment_go_to_their_threads(dev):
    a = bf16(np.random.default_rng(6).standard_normal((32, 32)))
    b = bf16(np.random.default_rng(7).standard_normal((32, 32)))
    y = ttl.Tensor.allocate(dev, (32, 32))
    tuple_acquire(tensor(dev, a), tensor(dev, b), y)
    np.testing.assert_allclose(y.to_numpy(), bf16(a - b), rtol=2e-2, atol=2e-2)


@ttl.operation(grid=(1, 1))
def scatter_masked(idx, a, y):
    """Row tile r of a, times the identity mask, goes to row tile idx[0, r] of y: the mask block is
    filled only by raw_element_write (the reader), the index read by read_index where the writer needs it."""
    i_dfb = ttl.make_dataflow_buffer_like(idx, shape=(1, 1), block_count=1)
    m_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=1)
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
    with i_dfb.reserve() as ib:
        ttl.copy(idx[0, 0], ib).wait()
    with m_dfb.reserve() as mb:
        for r in range(32):
            for c in range(32):
                ttl.raw_element_write(mb, r, c, 1.0 if r == c else 0.0)
    m = m_dfb.wait()
    ib2 = i_dfb.wait()
    for r in range(3):
        with a_dfb.reserve() as blk:
            ttl.copy(a[r, 0], blk).wait()
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            o.store(x * m)
        with y_dfb.wait() as done:
            dst = ttl.read_index(ib2, 0, r)
            ttl.copy(done, y[dst, 0]).wait()
    m.pop()
    ib2.pop()


@ttl.operation(grid=(1, 1))
def scatter(idx, a, y):
    """Row tile r of a goes to row tile idx[0, r] of y, the index read where the writer needs it."""
    i_dfb = ttl.make_dataflow_buffer_like(idx, shape=(1, 1), block_count=1)
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    with i_dfb.reserve() as ib:
        ttl.copy(idx[0, 0], ib).wait()
    ib2 = i_dfb.wait()
    for r in range(3):
        with a_dfb.reserve() as blk:
            ttl.copy(a[r, 0], blk).wait()
        with a_dfb.wait() as done:
            dst = ttl.read_index(ib2, 0, r)
            ttl.copy(done, y[dst, 0]).wait()
    ib2.pop()


def test_an_index_read_runs_on_the_thread_that_uses_it(dev):
    a = np.random.default_rng(15).standard_normal((96, 32)).astype(np.float32)
    idx = np.zeros((32, 32), np.float32)
    idx[0, :3] = [1, 2, 0]
    y = ttl.Tensor.allocate(dev, (96, 32), dtype=F32)
    scatter(ttl.Tensor.from_numpy(dev, idx, dtype=F32), ttl.Tensor.from_numpy(dev, a, dtype=F32), y)
    got = y.to_numpy()
    for r, d in enumerate([1, 2, 0]):
        np.testing.assert_array_equal(got[32 * d:32 * d + 32], a[32 * r:32 * r + 32])


def test_element_functions_run_on_the_data_movement_thread_of_their_block(dev):
    a = np.random.default_rng(8).standard_normal((96, 32)).astype(np.float32)
    idx = np.zeros((32, 32), np.float32)
    perm = [2, 0, 1]
    idx[0, :3] = perm
    y = ttl.Tensor.allocate(dev, (96, 32), dtype=F32)
    scatter_masked(ttl.Tensor.from_numpy(dev, idx, dtype=F32), ttl.Tensor.from_numpy(dev, a, dtype=F32), y)
    got = y.to_numpy()
    for r, d in enumerate(perm):
        np.testing.assert_allclose(got[32 * d:32 * d + 32], np.diag(np.diag(a[32 * r:32 * r + 32])), atol=1e-2)


@ttl.operation(grid=(1, 1))
def while_counter(a, y):
    n = a.shape[1] // 32
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
    c = 1
    while c < n:
        with a_dfb.reserve() as blk:
            ttl.copy(a[0, c], blk).wait()
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            o.store(x + 1.0)
        with y_dfb.wait() as done:
            ttl.copy(done, y[0, c]).wait()
        c += 1


def test_a_scope_scalar_the_threads_rebind_starts_as_the_scope_left_it(dev):
    a = bf16(np.random.default_rng(9).standard_normal((32, 96)))
    y = tensor(dev, np.zeros((32, 96)))
    while_counter(tensor(dev, a), y)
    want = bf16(a + 1)
    want[:, :32] = 0
    np.testing.assert_allclose(y.to_numpy(), want, rtol=1e-2, atol=1e-2)


@ttl.operation(grid=(1, 1))
def scope_pop(a, y):
    dims = list(a.shape)
    cols = dims.pop() // 32  # list.pop(): operation-scope Python
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
    for c in range(cols):
        with a_dfb.reserve() as blk:
            ttl.copy(a[0, c], blk).wait()
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            o.store(x + 1.0)
        with y_dfb.wait() as done:
            ttl.copy(done, y[0, c]).wait()


def test_methods_named_as_kernel_methods_on_python_values_are_operation_scope(dev):
    a = bf16(np.random.default_rng(13).standard_normal((32, 96)))
    y = ttl.Tensor.allocate(dev, (32, 96))
    scope_pop(tensor(dev, a), y)
    np.testing.assert_allclose(y.to_numpy(), bf16(a + 1), rtol=1e-2, atol=1e-2)


@ttl.operation(grid=(1, 2))
def exchange(x, y):
    """y = (this node's tile) - (the other node's tile), sent on pipes from lambdas and defs."""
    mine_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=1)
    other_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=1)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=1)
    net = ttl.PipeNet([ttl.Pipe((0, 0), (0, 1)), ttl.Pipe((0, 1), (0, 0))])
    _, n = ttl.node(dims=2)
    with mine_dfb.reserve() as mine:
        ttl.copy(x[n, 0], mine).wait()
        net.if_src(lambda pipe: ttl.copy(mine, pipe).wait())
    with other_dfb.reserve() as other:

        def receive(pipe):
            ttl.copy(pipe, other).wait()

        net.if_dst(receive)
    with mine_dfb.wait() as m, other_dfb.wait() as o, y_dfb.reserve() as yb:
        yb.store(m - o)
    with y_dfb.wait() as done:
        ttl.copy(done, y[n, 0]).wait()


def test_pipe_callbacks_run_on_the_thread_of_their_blocks(dev):
    x = bf16(np.random.default_rng(10).standard_normal((64, 32)))
    y = ttl.Tensor.allocate(dev, (64, 32))
    exchange(tensor(dev, x), y)
    np.testing.assert_allclose(y.to_numpy(), bf16(np.concatenate([x[:32] - x[32:], x[32:] - x[:32]])),
                               rtol=2e-2, atol=2e-2)


@ttl.operation(grid=(1, 1))
def with_helper(a, y):
    def tiles(t):
        return t.shape[1] // 32

    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
    for c in range(tiles(a)):
        with a_dfb.reserve() as blk:
            ttl.copy(a[0, c], blk).wait()
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            o.store(x * 3.0)
        with y_dfb.wait() as done:
            ttl.copy(done, y[0, c]).wait()


@ttl.operation(grid=(1, 1))
def mixed(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
    with a_dfb.reserve() as blk:  # <- mixed statement
        ttl.copy(a[0, 0], blk).wait()

    @ttl.compute()  # <- mixed kernel
    def compute():
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            o.store(x + 1.0)


def test_a_helper_def_is_operation_scope_python(dev):
    a = bf16(np.random.default_rng(11).standard_normal((32, 64)))
    y = ttl.Tensor.allocate(dev, (32, 64))
    with_helper(tensor(dev, a), y)
    np.testing.assert_allclose(y.to_numpy(), bf16(a * 3), rtol=1e-2, atol=1e-2)


def test_a_body_mixing_kernel_statements_and_kernel_functions_is_an_error(dev):
    a, y = tensor(dev, np.ones((32, 32))), ttl.Tensor.allocate(dev, (32, 32))
    with pytest.raises(ttl.CompileError) as e:
        mixed(a, y)
    assert str(e.value) == (
        f"{HERE}:{line_of(HERE, 'mixed statement')}: this statement runs in a kernel, but the operation also declares "
        f"the kernel function 'compute' (line {line_of(HERE, 'mixed kernel') + 1}); an operation body either holds its "
        "kernel statements itself (a unified body) or declares kernel functions (@ttl.compute() / "
        "@ttl.datamovement()) that hold them all, not both")


@ttl.operation(grid=(1, 1))
def dfbs_from_a_helper(a, y):
    """y = a + 2 through DFBs a helper makes: their reserve() and wait() are kernel calls."""
    def buffer(t):
        return ttl.make_dataflow_buffer_like(t, shape=(1, 1), block_count=2)

    a_dfb, y_dfb = buffer(a), buffer(y)
    blk = a_dfb.reserve()
    ttl.copy(a[0, 0], blk).wait()
    blk.push()
    x = a_dfb.wait()
    o = y_dfb.reserve()
    o.store(x + 2.0)
    x.pop()
    o.push()
    done = y_dfb.wait()
    ttl.copy(done, y[0, 0]).wait()
    done.pop()


def test_a_receiver_that_may_be_a_dfb_is_a_kernel_receiver(dev):
    a = bf16(np.random.default_rng(14).standard_normal((32, 32)))
    y = ttl.Tensor.allocate(dev, (32, 32))
    dfbs_from_a_helper(tensor(dev, a), y)
    np.testing.assert_allclose(y.to_numpy(), bf16(a + 2), rtol=1e-2, atol=1e-2)


@ttl.operation(grid=(1, 1))
def element_of_a_compute_block(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
    with a_dfb.reserve() as blk:
        ttl.copy(a[0, 0], blk).wait()
    with a_dfb.wait() as x, y_dfb.reserve() as o:
        o.store(x + 1.0)  # <- compute use
        ttl.raw_element_write(o, 0, 0, 2.0)  # <- element use
    with y_dfb.wait() as done:
        ttl.copy(done, y[0, 0]).wait()


def test_an_element_function_on_a_compute_block_is_an_error_naming_both_lines(dev):
    a, y = tensor(dev, np.ones((32, 32))), ttl.Tensor.allocate(dev, (32, 32))
    with pytest.raises(ttl.CompileError) as e:
        element_of_a_compute_block(a, y)
    assert str(e.value) == (
        f"{HERE}:{line_of(HERE, 'compute use')}: 'o' is used by the compute thread here and by the data-movement "
        f"thread at line {line_of(HERE, 'element use')}; in a unified body each block belongs to one thread (copies "
        "into blocks run on the reader, copies out of blocks on the writer, store() and block expressions on compute)")
