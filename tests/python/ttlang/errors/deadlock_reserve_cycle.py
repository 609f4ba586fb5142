# Deadlock through a full ring: the reader reserves two a blocks (block_count=1)
# before it pushes either; the second reserve can never succeed.
# expect: error (?i)deadlock
# line: 29
# tt-lang-sim: no deadlock: its second reserve() first pushes the pending first block,
#   which fails: RuntimeError: Cannot perform push(): not a valid next dataflow step for
#   this block ... expected one of [COPY_DST], attempted PUSH (line 29). Under the
#   compiler's rule (a run of acquires keeps both) the second reserve waits forever.
import ttnn

import ttl


@ttl.operation(grid=(1, 1))
def program(a: ttnn.Tensor, b: ttnn.Tensor, y: ttnn.Tensor):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=1)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        for _ in range(2):
            with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk, y_dfb.reserve() as y_blk:
                y_blk.store(a_blk + b_blk)

    @ttl.datamovement()
    def read():
        first = a_dfb.reserve()
        second = a_dfb.reserve()  # <- error
        ttl.copy(a[0, 0], first).wait()
        ttl.copy(a[1, 0], second).wait()
        first.push()
        second.push()
        for t in range(2):
            with b_dfb.reserve() as b_blk:
                ttl.copy(b[t, 0], b_blk).wait()

    @ttl.datamovement()
    def write():
        for t in range(2):
            with y_dfb.wait() as y_blk:
                ttl.copy(y_blk, y[t, 0]).wait()


def on_device(make, shape):
    return make(shape, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device, memory_config=ttnn.DRAM_MEMORY_CONFIG)


device = ttnn.open_device(device_id=0)
try:
    a = on_device(ttnn.rand, (64, 64))
    b = on_device(ttnn.rand, (64, 64))
    y = on_device(ttnn.empty, (64, 64))
    program(a, b, y)
    raise SystemExit("the program ran to the end: the error above was not reported")
finally:
    ttnn.close_device(device)
