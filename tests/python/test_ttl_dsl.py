"""TT-Lang DSL operations compiled to kernels: elementwise and matmul
programs written as TT-Lang's tutorials write them, checked against float64
references; block math (ttl.math, broadcast, reduce, transpose); the
compiler's semantics (runs of acquires, the body run on every call, #line);
print(); runtime resource factories and extern kernels beside kernel
functions. The misuses are in test_ttl_dsl_checks.py.
"""

import os

import numpy as np
import pytest
import tessel
import tessel.ttl as ttl
from ttl_dsl_support import bf16, line_of, one_tile_op, tensor

HERE = os.path.abspath(__file__)


@pytest.fixture(scope="module")
def dev():
    with tessel.Device.open(arch="wormhole_b0", grid=(3, 2)) as d:
        yield d


def here(marker):
    return line_of(HERE, marker)


# ---------------------------------------------------------------------------
# Elementwise, as the elementwise tutorial's multi-node step writes it.

BLOCK = 2


@ttl.operation(grid="full")
def fused(a, b, c, y):
    rows = a.shape[0] // ttl.TILE_SHAPE[0] // BLOCK
    cols = a.shape[1] // ttl.TILE_SHAPE[1] // BLOCK
    grid_cols, grid_rows = ttl.grid_size(dims=2)
    rows_per_node = -(-rows // grid_rows)
    cols_per_node = -(-cols // grid_cols)
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(BLOCK, BLOCK), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(BLOCK, BLOCK), block_count=2)
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(BLOCK, BLOCK), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(BLOCK, BLOCK), block_count=2)

    @ttl.compute()
    def compute():
        node_col, node_row = ttl.node(dims=2)
        for local_row in range(rows_per_node):
            row = node_row * rows_per_node + local_row
            if row < rows:
                for local_col in range(cols_per_node):
                    col = node_col * cols_per_node + local_col
                    if col < cols:
                        with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk, c_dfb.wait() as c_blk, \
                                y_dfb.reserve() as y_blk:
                            y_blk.store(ttl.math.relu(a_blk * b_blk + c_blk) - 0.5)

    @ttl.datamovement()
    def read():
        node_col, node_row = ttl.node(dims=2)
        for local_row in range(rows_per_node):
            row = node_row * rows_per_node + local_row
            if row < rows:
                for local_col in range(cols_per_node):
                    col = node_col * cols_per_node + local_col
                    if col < cols:
                        r0, c0 = row * BLOCK, col * BLOCK
                        with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk, c_dfb.reserve() as c_blk:
                            tx_a = ttl.copy(a[r0:r0 + BLOCK, c0:c0 + BLOCK], a_blk)
                            tx_b = ttl.copy(b[r0:r0 + BLOCK, c0:c0 + BLOCK], b_blk)
                            tx_c = ttl.copy(c[r0:r0 + BLOCK, c0:c0 + BLOCK], c_blk)
                            tx_a.wait()
                            tx_b.wait()
                            tx_c.wait()

    @ttl.datamovement()
    def write():
        node_col, node_row = ttl.node(dims=2)
        for local_row in range(rows_per_node):
            row = node_row * rows_per_node + local_row
            if row < rows:
                for local_col in range(cols_per_node):
                    col = node_col * cols_per_node + local_col
                    if col < cols:
                        with y_dfb.wait() as y_blk:
                            ttl.copy(y_blk, y[row * BLOCK:(row + 1) * BLOCK, col * BLOCK:(col + 1) * BLOCK]).wait()


def test_elementwise_on_the_full_grid_with_uneven_blocks(dev):
    rng = np.random.default_rng(0)
    # 5x7 blocks over a 3x2 grid: the last row and column of nodes have fewer blocks.
    a, b, c = (bf16(rng.standard_normal((5 * 64, 7 * 64))) for _ in range(3))
    y = ttl.Tensor.allocate(dev, a.shape)
    fused(tensor(dev, a), tensor(dev, b), tensor(dev, c), y)
    ref = np.maximum(a.astype(np.float64) * b + c, 0) - 0.5
    got = y.to_numpy()
    # bf16 DST between the operations: a relative error of a few bf16 ulps.
    assert np.all(np.abs(got - ref) <= 0.02 * np.abs(ref) + 0.02)
    assert fused.grid == (3, 2)


# ---------------------------------------------------------------------------
# Matmul, as the matmul tutorial writes it: K accumulated through a DFB the
# compute kernel both reserves and waits.

MT = NT = KT = 2


@ttl.operation(grid=(2, 2))
def matmul_bias_relu(a, b, c, y):
    m_blocks = a.shape[0] // 32 // MT
    n_blocks = b.shape[1] // 32 // NT
    k_blocks = a.shape[1] // 32 // KT
    grid_n, grid_m = ttl.grid_size(dims=2)
    m_per_node = -(-m_blocks // grid_m)
    n_per_node = -(-n_blocks // grid_n)
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(MT, KT), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(KT, NT), block_count=2)
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(MT, NT), block_count=2)
    acc_dfb = ttl.make_dataflow_buffer_like(y, shape=(MT, NT), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(MT, NT), block_count=2)

    @ttl.datamovement()
    def read():
        node_n, node_m = ttl.node(dims=2)
        for local_m in range(m_per_node):
            m = node_m * m_per_node + local_m
            if m < m_blocks:
                for local_n in range(n_per_node):
                    n = node_n * n_per_node + local_n
                    if n < n_blocks:
                        with c_dfb.reserve() as c_blk:
                            ttl.copy(c[m * MT:(m + 1) * MT, n * NT:(n + 1) * NT], c_blk).wait()
                        for k in range(k_blocks):
                            with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
                                tx_a = ttl.copy(a[m * MT:(m + 1) * MT, k * KT:(k + 1) * KT], a_blk)
                                tx_b = ttl.copy(b[k * KT:(k + 1) * KT, n * NT:(n + 1) * NT], b_blk)
                                tx_a.wait()
                                tx_b.wait()

    @ttl.compute()
    def compute():
        node_n, node_m = ttl.node(dims=2)
        for local_m in range(m_per_node):
            m = node_m * m_per_node + local_m
            if m < m_blocks:
                for local_n in range(n_per_node):
                    n = node_n * n_per_node + local_n
                    if n < n_blocks:
                        with acc_dfb.reserve() as acc_blk:
                            acc_blk.store(ttl.block.fill(0, shape=acc_blk.shape))
                        for _ in range(k_blocks):
                            with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk, acc_dfb.wait() as pre_acc:
                                with acc_dfb.reserve() as acc_blk:
                                    acc_blk.store(pre_acc + a_blk @ b_blk)
                        with c_dfb.wait() as c_blk, acc_dfb.wait() as acc_blk:
                            with y_dfb.reserve() as y_blk:
                                y_blk.store(ttl.math.relu(c_blk + acc_blk))

    @ttl.datamovement()
    def write():
        node_n, node_m = ttl.node(dims=2)
        for local_m in range(m_per_node):
            m = node_m * m_per_node + local_m
            if m < m_blocks:
                for local_n in range(n_per_node):
                    n = node_n * n_per_node + local_n
                    if n < n_blocks:
                        with y_dfb.wait() as y_blk:
                            ttl.copy(y_blk, y[m * MT:(m + 1) * MT, n * NT:(n + 1) * NT]).wait()


def test_matmul_accumulates_through_a_dataflow_buffer(dev):
    rng = np.random.default_rng(1)
    a = bf16(rng.standard_normal((192, 256)))
    b = bf16(rng.standard_normal((256, 128)))
    c = bf16(rng.standard_normal((192, 128)))
    y = ttl.Tensor.allocate(dev, (192, 128))
    matmul_bias_relu(tensor(dev, a), tensor(dev, b), tensor(dev, c), y)
    ref = np.maximum(a.astype(np.float64) @ b + c, 0)
    got = y.to_numpy()
    # Partial sums are rounded to bf16 once per K block (4 blocks): a few ulps of the running sum.
    assert np.max(np.abs(got - ref)) < 0.05 * np.max(np.abs(ref))
    assert np.corrcoef(got.ravel(), ref.ravel())[0, 1] > 0.999


@pytest.mark.parametrize("fn, ref, lo, hi", [
    ("exp", np.exp, -3, 3), ("sqrt", np.sqrt, 0.1, 9), ("sigmoid", lambda x: 1 / (1 + np.exp(-x)), -5, 5),
    ("neg", np.negative, -4, 4)])
def test_math_functions(dev, fn, ref, lo, hi):
    f = getattr(ttl.math, fn)

    def compute(a_dfb, y_dfb):
        def compute():
            with a_dfb.wait() as x, y_dfb.reserve() as o:
                o.store(f(x))
        return compute

    op = one_tile_op(compute)
    a = bf16(np.linspace(lo, hi, 1024).reshape(32, 32))
    y = ttl.Tensor.allocate(dev, (32, 32))
    op(tensor(dev, a), y)
    expect = ref(a.astype(np.float64))
    assert np.all(np.abs(y.to_numpy() - expect) <= 0.02 * np.abs(expect) + 1e-2)


def test_threshold_is_a_comparison_and_where_tile(dev):
    """ttl.math.threshold lowers to gtz_tile on x - threshold and where_tile
    (the compute API's comparison and ternary select)."""
    def compute(a_dfb, y_dfb):
        def compute():
            with a_dfb.wait() as x, y_dfb.reserve() as o:
                o.store(ttl.math.threshold(x, 0.5, -7.0))
        return compute

    op = one_tile_op(compute)
    a = bf16(np.linspace(-2, 2, 1024).reshape(32, 32))
    y = ttl.Tensor.allocate(dev, (32, 32))
    op(tensor(dev, a), y)
    np.testing.assert_array_equal(y.to_numpy(), np.where(a > 0.5, -7.0, a).astype(np.float32))


def test_scalars_and_transpose(dev):
    def compute(a_dfb, y_dfb):
        def compute():
            with a_dfb.wait() as x, y_dfb.reserve() as o:
                o.store(ttl.transpose(x) * 2.0 + 1.0)
        return compute

    op = one_tile_op(compute)
    a = bf16(np.arange(1024, dtype=np.float32).reshape(32, 32) / 64)
    y = ttl.Tensor.allocate(dev, (32, 32))
    op(tensor(dev, a), y)
    np.testing.assert_allclose(y.to_numpy(), bf16(a.T * 2 + 1), rtol=1e-2)


def test_a_run_of_acquires_keeps_both_blocks(dev):
    """t1 = dfb.wait(); t2 = dfb.wait() holds two consecutive blocks (the
    compiler's semantics), each released after its last use."""
    @ttl.operation(grid=(1, 1))
    def pairs(a, y):
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
        y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

        @ttl.compute()
        def compute():
            first = a_dfb.wait()
            second = a_dfb.wait()
            out = y_dfb.reserve()
            out.store(first - second)

        @ttl.datamovement()
        def read():
            for t in range(2):
                blk = a_dfb.reserve()
                ttl.copy(a[0, t], blk).wait()
                blk.push()

        @ttl.datamovement()
        def write():
            blk = y_dfb.wait()
            ttl.copy(blk, y[0, 0]).wait()

    a = bf16(np.random.default_rng(2).standard_normal((32, 64)))
    y = ttl.Tensor.allocate(dev, (32, 32))
    pairs(tensor(dev, a), y)
    np.testing.assert_allclose(y.to_numpy(), bf16(a[:, :32] - a[:, 32:]), rtol=1e-2, atol=1e-2)


LOOPS = 1


def test_the_body_runs_on_every_call(dev):
    """Operation-scope Python is evaluated on each call: a module global the
    body reads changes the kernels; the same values reuse the compiled plan."""
    global LOOPS

    @ttl.operation(grid=(1, 1))
    def scale(a, y):
        times = LOOPS
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
        y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

        @ttl.compute()
        def compute():
            with a_dfb.wait() as x, y_dfb.reserve() as o:
                o.store(x * float(times))

        @ttl.datamovement()
        def read():
            with a_dfb.reserve() as blk:
                ttl.copy(a[0, 0], blk).wait()

        @ttl.datamovement()
        def write():
            with y_dfb.wait() as blk:
                ttl.copy(blk, y[0, 0]).wait()

    a = tensor(dev, np.ones((32, 32)))
    y = ttl.Tensor.allocate(dev, (32, 32))
    scale(a, y)
    first = next(iter(scale._plans.values()))
    assert y.to_numpy()[0, 0] == 1.0
    scale(a, y)
    assert next(iter(scale._plans.values())) is first
    LOOPS = 3
    try:
        scale(a, y)
    finally:
        LOOPS = 1
    assert y.to_numpy()[0, 0] == 3.0


def test_generated_kernels_carry_the_python_lines(dev, tmp_path):
    a = tensor(dev, np.ones((32, 32)))
    y = ttl.Tensor.allocate(dev, (32, 32))
    from tessel.ttl.settings import settings
    settings.keep_kernels = str(tmp_path)
    try:
        op = one_tile_op(lambda a_dfb, y_dfb: _copy_compute(a_dfb, y_dfb))
        op(a, y)
    finally:
        settings.keep_kernels = None
    kept = sorted(os.listdir(tmp_path))
    assert kept == ["op.compute.cpp", "op.read.cpp", "op.write.cpp"]
    text = (tmp_path / "op.compute.cpp").read_text()
    assert f'#line {here("store")} "{HERE}"' in text
    assert "cb_wait_front(0, 1);" in text and "pack_tile<true>" in text


def _copy_compute(a_dfb, y_dfb):
    def compute():
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            o.store(x)  # <- store
    return compute


# ---------------------------------------------------------------------------
# Broadcast and reduce, with the DSL's placement rules.


def _tiles(a, rows, cols):
    """[rows, cols, 32, 32] tiles of a (rows*32, cols*32) array."""
    return a.reshape(rows, 32, cols, 32).transpose(0, 2, 1, 3).astype(np.float64)


def _untile(t):
    r, c = t.shape[:2]
    return t.transpose(0, 2, 1, 3).reshape(r * 32, c * 32)


@ttl.operation(grid=(1, 1))
def bcast_fma(a, b, c, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(2, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 3), block_count=2)
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(2, 3), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(2, 3), block_count=2)

    @ttl.compute()
    def compute():
        with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk, c_dfb.wait() as c_blk, y_dfb.reserve() as y_blk:
            a_col = ttl.block.broadcast(a_blk, dims=[-1], shape=y_blk.shape)
            b_row = ttl.block.broadcast(b_blk, dims=[0], shape=y_blk.shape)
            y_blk.store(a_col * b_row + (c_blk - b_row))

    @ttl.datamovement()
    def read():
        with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk, c_dfb.reserve() as c_blk:
            tx = ttl.GroupTransfer()
            tx.add(ttl.copy(a[0:2, 0], a_blk))
            tx.add(ttl.copy(b[0, 0:3], b_blk))
            tx.add(ttl.copy(c[0:2, 0:3], c_blk))
            tx.wait_all()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as y_blk:
            ttl.copy(y_blk, y[0:2, 0:3]).wait()


def test_broadcast_rows_and_columns_of_tiles(dev):
    rng = np.random.default_rng(3)
    a, b, c = bf16(rng.standard_normal((64, 32))), bf16(rng.standard_normal((32, 96))), \
        bf16(rng.standard_normal((64, 96)))
    y = ttl.Tensor.allocate(dev, (64, 96))
    bcast_fma(tensor(dev, a), tensor(dev, b), tensor(dev, c), y)
    a_col = np.repeat(a[:, :1].astype(np.float64), 96, axis=1)  # column 0 of each tile, across the columns
    b_row = np.tile(np.repeat(b[:1, :].astype(np.float64), 32, axis=0), (2, 1))  # row 0 of each tile, down the rows
    ref = a_col * b_row + (c - b_row)
    assert np.max(np.abs(y.to_numpy() - ref)) < 0.03 * np.max(np.abs(ref))


@pytest.mark.parametrize("fn, dims, out", [("reduce_sum", [-1], (2, 1)), ("reduce_sum", [0], (1, 3)),
                                           ("reduce_max", [0, 1], (1, 1))])
def test_reduce_places_results_as_the_dsl_does(dev, fn, dims, out):
    reduce = getattr(ttl.math, fn)

    @ttl.operation(grid=(1, 1))
    def op(c, y):
        c_dfb = ttl.make_dataflow_buffer_like(c, shape=(2, 3), block_count=1)
        y_dfb = ttl.make_dataflow_buffer_like(y, shape=out, block_count=1)

        @ttl.compute()
        def compute():
            with c_dfb.wait() as c_blk, y_dfb.reserve() as y_blk:
                y_blk.store(reduce(c_blk, dims=dims, shape=y_blk.shape))

        @ttl.datamovement()
        def read():
            with c_dfb.reserve() as c_blk:
                ttl.copy(c[0:2, 0:3], c_blk).wait()

        @ttl.datamovement()
        def write():
            with y_dfb.wait() as y_blk:
                ttl.copy(y_blk, y[0:out[0], 0:out[1]]).wait()

    c = bf16(np.random.default_rng(4).standard_normal((64, 96)))
    y = ttl.Tensor.allocate(dev, (out[0] * 32, out[1] * 32))
    op(tensor(dev, c), y)
    t = _tiles(c, 2, 3)
    red = np.sum if fn == "reduce_sum" else np.max
    ref = np.zeros(out + (32, 32))
    if dims == [-1]:
        ref[:, 0, :, 0] = red(red(t, axis=1), axis=2)  # tiles along the row, then each row into column 0
    elif dims == [0]:
        ref[0, :, 0, :] = red(red(t, axis=0), axis=1)  # tiles down the column, then each column into row 0
    else:
        ref[0, 0, 0, 0] = red(t)
    ref = _untile(ref)
    assert np.max(np.abs(y.to_numpy() - ref)) <= 0.01 * np.max(np.abs(ref)) + 1e-3


@ttl.operation(grid=(2, 1))
def printing(a):
    count = 3

    @ttl.datamovement()
    def read():
        x, y = ttl.node(dims=2)
        print("reader", x, f"count={count} twice={x * 2}")

    @ttl.compute()
    def compute():
        print("compute", ttl.node(dims=1), 1.5)

    @ttl.datamovement()
    def write():
        pass


def test_print_in_kernels_is_dprint_once_per_node(monkeypatch, capfd):
    monkeypatch.setenv("TESSEL_DPRINT_CORES", "all")
    with tessel.Device.open(arch="wormhole_b0", grid=(2, 1)) as d:
        printing(tensor(d, np.ones((32, 32))))
    lines = sorted(line for line in capfd.readouterr().out.splitlines() if ":(x=" in line)
    assert lines == ["0:(x=0,y=0):NC: reader 0 count=3 twice=0", "0:(x=0,y=0):TR1: compute 0 1.5",
                     "0:(x=1,y=0):NC: reader 1 count=3 twice=2", "0:(x=1,y=0):TR1: compute 1 1.5"]


# ---------------------------------------------------------------------------
# DSL kernels with a runtime resource factory: the records select the DSL
# kernels (a captured ttl.Kernel, or a kind for the canonical kernel).

READER = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT, name="dsl_reader")


def _factory(*, tensors, core_ranges, first_free_semaphore_id):
    return ttl.ProgramRuntimeResources(kernel_resources=(
        ttl.KernelRuntimeResources(kernel=READER, runtime_args=(
            ttl.CoreRuntimeArgs(ttl_core(0, 0), (first_free_semaphore_id, 7)),)),
        ttl.KernelRuntimeResources(kernel=ttl.KernelKind.COMPUTE, defines=(ttl.KernelDefine("UNUSED", "1"),)),
    ))


def ttl_core(x, y):
    import tessel.ttnn as ttnn
    return ttnn.CoreCoord(x, y)


@ttl.operation(grid=(1, 1), runtime_resource_factory=_factory)
def doubled(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.datamovement(kernel=READER)
    def read():
        with a_dfb.reserve() as blk:
            ttl.copy(a[0, 0], blk).wait()

    @ttl.compute()
    def compute():
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            o.store(x + x)

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as blk:
            ttl.copy(blk, y[0, 0]).wait()


def test_a_runtime_resource_factory_selects_dsl_kernels(dev):
    y = ttl.Tensor.allocate(dev, (32, 32))
    doubled(tensor(dev, np.full((32, 32), 1.5)), y)
    assert y.to_numpy()[0, 0] == 3.0
    assert READER.operation == "doubled"
    y2 = ttl.Tensor.allocate(dev, (32, 32))
    doubled(tensor(dev, np.full((32, 32), 2.5)), y2)  # the cached structure's fast path
    assert y2.to_numpy()[0, 0] == 5.0


@ttl.operation(grid=(1, 1))
def extern_reader_dsl_rest(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
    # The reader is a C++ function (call_extern_func); the compute and writer are kernel functions.
    ttl.call_extern_func(os.path.join(os.path.dirname(HERE), "data", "dsl_reader.hpp"), "read_first_tile_into_cb0",
                         func_args=[a])

    @ttl.compute()
    def compute():
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            o.store(x * 3.0)

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as blk:
            ttl.copy(blk, y[0, 0]).wait()


def test_an_extern_kernel_and_kernel_functions_in_one_operation(dev):
    y = ttl.Tensor.allocate(dev, (32, 32))
    extern_reader_dsl_rest(tensor(dev, np.full((32, 32), 2.0)), y)
    assert y.to_numpy()[0, 0] == 6.0


@pytest.mark.parametrize("fn, args, ref, lo, hi", [
    ("tan", (), np.tan, -1.2, 1.2),
    ("softplus", (), lambda x: np.log1p(np.exp(x)), -3, 3),
    ("selu", (), lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)), -3, 3),
    ("clamp", (-0.5, 2.0), lambda x: np.clip(x, -0.5, 2.0), -3, 3),
    ("frac", (), lambda x: x - np.trunc(x), -3, 3),
    ("pow", (3,), lambda x: x ** 3, -3, 3)])
def test_math_functions_composed_from_the_engines_ops(dev, fn, args, ref, lo, hi):
    """Float32 end to end (a 32-bit DST): the compositions are as accurate as the ops they use."""
    f = getattr(ttl.math, fn)

    def compute(a_dfb, y_dfb):
        def compute():
            with a_dfb.wait() as x, y_dfb.reserve() as o:
                o.store(f(x, *args))
        return compute

    op = one_tile_op(compute)
    a = np.linspace(lo, hi, 1024, dtype=np.float32).reshape(32, 32)
    y = ttl.Tensor.allocate(dev, (32, 32), "float32")
    op(ttl.Tensor.from_numpy(dev, a, "float32"), y)
    expect = ref(a.astype(np.float64))
    assert np.all(np.abs(y.to_numpy() - expect) <= 1e-4 * np.abs(expect) + 1e-5)


@ttl.operation(grid=(1, 1))
def batched_add(a, b, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(2, 2, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(2, 2, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(2, 2, 1), block_count=2)

    @ttl.datamovement()
    def read():
        for c in range(2):
            with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
                tx = ttl.copy(a[0:2, 0:2, c:c + 1], a_blk)
                ttl.copy(b[0:2, 0:2, c:c + 1], b_blk).wait()
                tx.wait()

    @ttl.compute()
    def compute():
        for _ in range(2):
            with a_dfb.wait() as x, b_dfb.wait() as z, y_dfb.reserve() as o:
                o.store(x + z * 2.0)

    @ttl.datamovement()
    def write():
        for c in range(2):
            with y_dfb.wait() as blk:
                ttl.copy(blk, y[0:2, 0:2, c:c + 1]).wait()


def test_blocks_of_three_dimensions(dev):
    """A (batch, rows, cols) block of tiles: the leading dimension is a range of the slice's batch."""
    rng = np.random.default_rng(6)
    a, b = bf16(rng.standard_normal((2, 64, 64))), bf16(rng.standard_normal((2, 64, 64)))
    y = ttl.Tensor.allocate(dev, (2, 64, 64))
    batched_add(tensor(dev, a), tensor(dev, b), y)
    ref = a.astype(np.float64) + 2 * b
    assert np.max(np.abs(y.to_numpy() - ref)) < 0.05


@ttl.operation(grid=lambda a, y: (y.shape[1] // 32, 1))
def node_numbers(a, y):
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=1)

    @ttl.compute()
    def compute():
        with y_dfb.reserve() as o:
            o.store(ttl.block.fill(ttl.node(dims=1) + 10 * ttl.grid_size(dims=1), shape=(1, 1)))

    @ttl.datamovement()
    def read():
        pass

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as blk:
            ttl.copy(blk, y[0, ttl.node(dims=1)]).wait()


def test_a_grid_from_a_callable_of_the_tensors(dev):
    """grid= a callable: called with the operation's tensors, it gives (x, y)."""
    a = tensor(dev, np.zeros((32, 32)))
    y = ttl.Tensor.allocate(dev, (32, 96))
    node_numbers(a, y)
    assert node_numbers.grid == (3, 1)
    np.testing.assert_array_equal(y.to_numpy()[0, ::32], [30.0, 31.0, 32.0])
