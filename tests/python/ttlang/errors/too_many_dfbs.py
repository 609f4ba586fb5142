# Too many dataflow buffers on a node: 70 DFBs, more than any Tensix core has
# circular buffers for (32 on Wormhole, 64 on Blackhole). The compute kernel
# passes one tile through all of them, so every DFB is in use.
# expect: error (?i)(dataflow buffer|DFB|circular buffer).*(\b32\b|\b64\b|limit|too many)
# line: 18
# tt-lang-sim: only a warning, then runs to the end: UserWarning: Kernel defines 70
#   dataflow buffers, but the hardware limit is 32. Reduce the number of
#   ttl.make_dataflow_buffer_like() calls. (no line)
import ttnn

import ttl

CHAIN = 70


@ttl.operation(grid=(1, 1))
def chain(x: ttnn.Tensor, y: ttnn.Tensor):
    dfbs = [ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=1) for _ in range(CHAIN)]  # <- error

    @ttl.compute()
    def compute():
        for i in range(CHAIN - 1):
            with dfbs[i].wait() as blk, dfbs[i + 1].reserve() as out:
                out.store(blk)

    @ttl.datamovement()
    def read():
        with dfbs[0].reserve() as blk:
            ttl.copy(x[0, 0], blk).wait()

    @ttl.datamovement()
    def write():
        with dfbs[CHAIN - 1].wait() as blk:
            ttl.copy(blk, y[0, 0]).wait()


def on_device(make, shape):
    return make(shape, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device, memory_config=ttnn.DRAM_MEMORY_CONFIG)


device = ttnn.open_device(device_id=0)
try:
    x = on_device(ttnn.rand, (32, 32))
    y = on_device(ttnn.empty, (32, 32))
    chain(x, y)
    raise SystemExit("the program ran to the end: the error above was not reported")
finally:
    ttnn.close_device(device)
