# Unified-body ttl.operation (spec 0.19, 'Thread assignment'): the body holds the
# copies, waits and stores directly, with no kernel functions; the compiler puts
# copies on data-movement threads, block expressions and store on the compute
# thread, and each wait/reserve on the thread of its block's users
# (examples/spec/operation_function/operation_function.py).
# expect: pass
# needs: torch
# sim: no (tt-lang-sim 1.1.6 has no unified bodies)
import torch
import ttnn

import ttl


@ttl.operation(grid=(1, 1))
def op(a: ttnn.Tensor, y: ttnn.Tensor):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    a_dst = a_dfb.reserve()  # <- feature
    b_dst = b_dfb.reserve()
    ttl.copy(a[0:1, 0:1], a_dst).wait()
    ttl.copy(a[0:1, 1:2], b_dst).wait()
    a_dst.push()
    b_dst.push()

    y_blk = y_dfb.reserve()
    a_blk = a_dfb.wait()
    b_blk = b_dfb.wait()
    y_blk.store(a_blk + b_blk)
    a_blk.pop()
    b_blk.pop()
    y_blk.push()

    out_blk = y_dfb.wait()
    ttl.copy(out_blk, y[0:1, 0:1]).wait()
    out_blk.pop()


def to_device(t):
    return ttnn.from_torch(t, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device,
                           memory_config=ttnn.DRAM_MEMORY_CONFIG)


torch.manual_seed(11)
device = ttnn.open_device(device_id=0)
try:
    a = torch.rand((32, 64), dtype=torch.bfloat16)
    y = to_device(torch.zeros((32, 32), dtype=torch.bfloat16))
    op(to_device(a), y)
    assert torch.allclose(ttnn.to_torch(y).float(), a[:, 0:32].float() + a[:, 32:64].float(), rtol=1e-2, atol=1e-2), "operation_unified_body: result does not match"
finally:
    ttnn.close_device(device)
