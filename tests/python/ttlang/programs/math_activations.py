# ttl.math.relu, sigmoid, tanh, silu and gelu on float32 tiles.
# One input tile block (2x2 tiles) on a single node; the compute kernel applies
# 5 functions to the same waited block and stores each into its own output.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl

TILE_SIZE = 32


@ttl.operation(grid=(1, 1))
def unary(x: ttnn.Tensor, y_relu: ttnn.Tensor, y_sigmoid: ttnn.Tensor, y_tanh: ttnn.Tensor, y_silu: ttnn.Tensor, y_gelu: ttnn.Tensor):
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(2, 2), block_count=2)
    y_relu_dfb = ttl.make_dataflow_buffer_like(y_relu, shape=(2, 2), block_count=2)
    y_sigmoid_dfb = ttl.make_dataflow_buffer_like(y_sigmoid, shape=(2, 2), block_count=2)
    y_tanh_dfb = ttl.make_dataflow_buffer_like(y_tanh, shape=(2, 2), block_count=2)
    y_silu_dfb = ttl.make_dataflow_buffer_like(y_silu, shape=(2, 2), block_count=2)
    y_gelu_dfb = ttl.make_dataflow_buffer_like(y_gelu, shape=(2, 2), block_count=2)

    @ttl.compute()
    def compute():
        with x_dfb.wait() as x_blk:
            with y_relu_dfb.reserve() as y_relu_blk:
                y_relu_blk.store(ttl.math.relu(x_blk))
            with y_sigmoid_dfb.reserve() as y_sigmoid_blk:
                y_sigmoid_blk.store(ttl.math.sigmoid(x_blk))
            with y_tanh_dfb.reserve() as y_tanh_blk:
                y_tanh_blk.store(ttl.math.tanh(x_blk))
            with y_silu_dfb.reserve() as y_silu_blk:
                y_silu_blk.store(ttl.math.silu(x_blk))
            with y_gelu_dfb.reserve() as y_gelu_blk:
                y_gelu_blk.store(ttl.math.gelu(x_blk))

    @ttl.datamovement()
    def read():
        with x_dfb.reserve() as x_blk:
            tx = ttl.copy(x[0:2, 0:2], x_blk)
            tx.wait()

    @ttl.datamovement()
    def write():
        with y_relu_dfb.wait() as y_relu_blk:
            tx = ttl.copy(y_relu_blk, y_relu[0:2, 0:2])
            tx.wait()
        with y_sigmoid_dfb.wait() as y_sigmoid_blk:
            tx = ttl.copy(y_sigmoid_blk, y_sigmoid[0:2, 0:2])
            tx.wait()
        with y_tanh_dfb.wait() as y_tanh_blk:
            tx = ttl.copy(y_tanh_blk, y_tanh[0:2, 0:2])
            tx.wait()
        with y_silu_dfb.wait() as y_silu_blk:
            tx = ttl.copy(y_silu_blk, y_silu[0:2, 0:2])
            tx.wait()
        with y_gelu_dfb.wait() as y_gelu_blk:
            tx = ttl.copy(y_gelu_blk, y_gelu[0:2, 0:2])
            tx.wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(11)
device = ttnn.open_device(device_id=0)
try:
    shape = (2 * TILE_SIZE, 2 * TILE_SIZE)
    x = torch.randn(shape) * 2.0
    outputs = [to_device(torch.zeros(shape, dtype=torch.float32)) for _ in range(5)]
    unary(to_device(x), *outputs)
    goldens = {
        "relu": torch.relu(x),
        "sigmoid": torch.sigmoid(x),
        "tanh": torch.tanh(x),
        "silu": torch.nn.functional.silu(x),
        "gelu": torch.nn.functional.gelu(x),
    }
    for (name, golden), out in zip(goldens.items(), outputs):
        result = ttnn.to_torch(out).float()
        assert torch.allclose(result, golden, rtol=1e-2, atol=1e-2), f"ttl.math.{name} does not match"
finally:
    ttnn.close_device(device)
