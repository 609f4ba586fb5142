"""TT-Lang pipes compiled to kernels: a gather (the spec's example), a ring
where every node sends before it receives, and a multicast to a range of
nodes, each checked exactly (pipes copy tiles without computing on them).
"""

import numpy as np
import pytest
import tessel
import tessel.ttl as ttl

T = 32


@pytest.fixture(scope="module")
def dev():
    with tessel.Device.open(arch="wormhole_b0", grid=(4, 2)) as d:
        yield d


GATHER_COLS, GATHER_ROWS = 3, 2


@ttl.operation(grid=(GATHER_COLS, GATHER_ROWS))
def gather(inp, out):
    dfb = ttl.make_dataflow_buffer_like(inp, shape=(1, 1), block_count=2)
    net = ttl.PipeNet([ttl.Pipe(src=(x, y), dst=(0, y)) for x in range(1, GATHER_COLS) for y in range(GATHER_ROWS)])

    @ttl.datamovement()
    def dm():
        with dfb.reserve() as blk:
            def pipe_src(pipe):
                nx, ny = ttl.node(dims=2)
                ttl.copy(inp[nx:nx + 1, ny:ny + 1], blk).wait()
                xf = ttl.copy(blk, pipe)
                xf.wait()

            def pipe_dst(pipe):
                xf = ttl.copy(pipe, blk)
                xf.wait()
                nx, ny = ttl.node(dims=2)
                ttl.copy(blk, out[nx:nx + 1, ny:ny + 1]).wait()

            net.if_src(pipe_src)
            net.if_dst(pipe_dst)

    @ttl.compute()
    def noop_compute():
        pass

    @ttl.datamovement()
    def noop_dm():
        pass


def test_gather_to_the_first_column(dev):
    inp = np.zeros((GATHER_COLS * T, GATHER_ROWS * T), np.float32)
    for x in range(1, GATHER_COLS):
        for y in range(GATHER_ROWS):
            inp[x * T:(x + 1) * T, y * T:(y + 1) * T] = y + 1
    out = ttl.Tensor.from_numpy(dev, np.zeros_like(inp))
    gather(ttl.Tensor.from_numpy(dev, inp), out)
    expected = np.zeros_like(inp)
    for y in range(GATHER_ROWS):
        expected[0:T, y * T:(y + 1) * T] = y + 1
    np.testing.assert_array_equal(out.to_numpy(), expected)


N = 4


@ttl.operation(grid=(N, 1))
def ring_and_broadcast(inp, out):
    s_dfb = ttl.make_dataflow_buffer_like(inp, shape=(1, 1), block_count=2)
    r_dfb = ttl.make_dataflow_buffer_like(out, shape=(1, 1), block_count=2)
    ring = ttl.PipeNet([ttl.Pipe(src=x, dst=(x + 1) % N) for x in range(N)])
    multicast = ttl.PipeNet([ttl.Pipe(src=(0, 0), dst=(slice(1, N), 0))])

    @ttl.datamovement()
    def dm():
        x = ttl.node(dims=1)
        # Every node sends to the next before it receives from the previous.
        with s_dfb.reserve() as s_blk, r_dfb.reserve() as r_blk:
            ttl.copy(inp[0, x], s_blk).wait()

            def send(pipe):
                ttl.copy(s_blk, pipe).wait()

            def receive(pipe):
                ttl.copy(pipe, r_blk).wait()

            ring.if_src(send)
            ring.if_dst(receive)
            ttl.copy(r_blk, out[0, x]).wait()
        # Node 0 multicasts its tile to the others.
        with s_dfb.reserve() as s_blk, r_dfb.reserve() as r_blk:
            def broadcast(pipe):
                ttl.copy(inp[0, 0], s_blk).wait()
                ttl.copy(s_blk, pipe).wait()
                ttl.copy(s_blk, out[1, 0]).wait()

            def take(pipe):
                ttl.copy(pipe, r_blk).wait()
                ttl.copy(r_blk, out[1, x]).wait()

            multicast.if_src(broadcast)
            multicast.if_dst(take)

    @ttl.compute()
    def noop_compute():
        pass

    @ttl.datamovement()
    def noop_dm():
        pass


def test_a_ring_that_sends_first_and_a_multicast(dev):
    inp = np.zeros((T, N * T), np.float32)
    for x in range(N):
        inp[:, x * T:(x + 1) * T] = x + 1
    out = ttl.Tensor.from_numpy(dev, np.zeros((2 * T, N * T), np.float32))
    ring_and_broadcast(ttl.Tensor.from_numpy(dev, inp), out)
    expected = np.zeros((2 * T, N * T), np.float32)
    for x in range(N):
        expected[:T, x * T:(x + 1) * T] = (x - 1) % N + 1  # the previous node's tile
        expected[T:, x * T:(x + 1) * T] = 1  # node 0's tile
    np.testing.assert_array_equal(out.to_numpy(), expected)


def test_pipe_nets_are_checked():
    with pytest.raises(ValueError, match="unicast and multicast pipes are mixed"):
        ttl.PipeNet([ttl.Pipe(0, 1), ttl.Pipe(0, (slice(1, 3),))])
    with pytest.raises(ValueError, match="the list of pipes is empty"):
        ttl.PipeNet([])
    with pytest.raises(ValueError, match="have \\[1, 2\\] dimensions"):
        ttl.PipeNet([ttl.Pipe(0, 1), ttl.Pipe((0, 0), (1, 0))])
