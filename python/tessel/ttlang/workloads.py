"""The workloads of TT-Lang's tutorials, written once against any `ttl` and
`ttnn` (tessel's, or TT-Lang's simulator's), for the benchmark (bench.py):

- eltwise(ttl, ttnn, block, grid): y = a * b + c over 2-D tensors in blocks
  of block x block tiles, on `grid` (a tuple or "full");
- matmul(ttl, ttnn, block, grid): y = a @ b in blocks of block x block x
  block tiles, K accumulated through a dataflow buffer (the matmul
  tutorial's pattern), on `grid`.

Each returns the operation; call it with ttnn tensors (a, b, c, y) or
(a, b, y).
"""

TILE = 32


def eltwise(ttl, ttnn, block, grid):
    @ttl.operation(grid=grid)
    def eltwise_fma(a, b, c, y):
        rows = a.shape[0] // TILE // block
        cols = a.shape[1] // TILE // block
        grid_cols, grid_rows = ttl.grid_size(dims=2)
        rows_per_node = -(-rows // grid_rows)
        cols_per_node = -(-cols // grid_cols)
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=(block, block), block_count=2)
        b_dfb = ttl.make_dataflow_buffer_like(b, shape=(block, block), block_count=2)
        c_dfb = ttl.make_dataflow_buffer_like(c, shape=(block, block), block_count=2)
        y_dfb = ttl.make_dataflow_buffer_like(y, shape=(block, block), block_count=2)

        @ttl.compute()
        def compute():
            node_col, node_row = ttl.node(dims=2)
            for local_row in range(rows_per_node):
                row = node_row * rows_per_node + local_row
                if row < rows:
                    for local_col in range(cols_per_node):
                        col = node_col * cols_per_node + local_col
                        if col < cols:
                            with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk, c_dfb.wait() as c_blk:
                                with y_dfb.reserve() as y_blk:
                                    y_blk.store(a_blk * b_blk + c_blk)

        @ttl.datamovement()
        def read():
            node_col, node_row = ttl.node(dims=2)
            for local_row in range(rows_per_node):
                row = node_row * rows_per_node + local_row
                if row < rows:
                    for local_col in range(cols_per_node):
                        col = node_col * cols_per_node + local_col
                        if col < cols:
                            r0, c0 = row * block, col * block
                            with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk, c_dfb.reserve() as c_blk:
                                tx_a = ttl.copy(a[r0:r0 + block, c0:c0 + block], a_blk)
                                tx_b = ttl.copy(b[r0:r0 + block, c0:c0 + block], b_blk)
                                tx_c = ttl.copy(c[r0:r0 + block, c0:c0 + block], c_blk)
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
                            r0, c0 = row * block, col * block
                            with y_dfb.wait() as y_blk:
                                tx = ttl.copy(y_blk, y[r0:r0 + block, c0:c0 + block])
                                tx.wait()

    return eltwise_fma


def matmul(ttl, ttnn, block, grid):
    @ttl.operation(grid=grid)
    def matmul_blocked(a, b, y):
        m_blocks = a.shape[0] // TILE // block
        n_blocks = b.shape[1] // TILE // block
        k_blocks = a.shape[1] // TILE // block
        grid_n, grid_m = ttl.grid_size(dims=2)
        m_per_node = -(-m_blocks // grid_m)
        n_per_node = -(-n_blocks // grid_n)
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=(block, block), block_count=2)
        b_dfb = ttl.make_dataflow_buffer_like(b, shape=(block, block), block_count=2)
        acc_dfb = ttl.make_dataflow_buffer_like(y, shape=(block, block), block_count=2)
        y_dfb = ttl.make_dataflow_buffer_like(y, shape=(block, block), block_count=2)

        @ttl.datamovement()
        def read():
            node_n, node_m = ttl.node(dims=2)
            for local_m in range(m_per_node):
                m = node_m * m_per_node + local_m
                if m < m_blocks:
                    for local_n in range(n_per_node):
                        n = node_n * n_per_node + local_n
                        if n < n_blocks:
                            for k in range(k_blocks):
                                with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
                                    tx_a = ttl.copy(a[m * block:(m + 1) * block, k * block:(k + 1) * block], a_blk)
                                    tx_b = ttl.copy(b[k * block:(k + 1) * block, n * block:(n + 1) * block], b_blk)
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
                            with acc_dfb.wait() as acc_blk, y_dfb.reserve() as y_blk:
                                y_blk.store(acc_blk)

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
                                tx = ttl.copy(y_blk, y[m * block:(m + 1) * block, n * block:(n + 1) * block])
                                tx.wait()

    return matmul_blocked
