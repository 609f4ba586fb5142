"""ttnn's element-wise operations and matmul, run as tessel programs on the
simulated device where their tensors live (kernels.py).

    y = ttnn.multiply(ttnn.add(ttnn.multiply(a, b), c), d)
    y = ttnn.relu(ttnn.add(ttnn.matmul(a, b), c))

Element-wise ops take TILE_LAYOUT tensors of one shape on one device (or a
number for the second operand of a binary op, made into a tensor of the
first's shape on its device; host tensors run on device copies, and a
result of host inputs is a host tensor); the result has the first input's dtype and
memory config unless dtype= / memory_config= say otherwise. On mesh
tensors an op runs once per device, shard by shard, and returns a mesh
tensor. The compute kernels are tessel.ops' op table's rows (HiFi4, a
32-bit DST when a tensor is float32): add, subtract and multiply run on the
FPU, or on the SFPU (exact float32) when a tensor is float32; matmul runs
on the FPU, whose source registers keep 19 bits of a float32 operand.
"""

import numpy as np

from .. import _check
from ..op_table import BY_NAME
from ..ops import _param_word
from . import kernels
from .memory import memory_config as _memory_config
from .tensor import Tensor, host_values
from .types import DataType, Layout, data_type

__all__ = ["abs", "add", "ceil", "cos", "divide", "exp", "exp2", "floor", "gelu", "leaky_relu", "log", "matmul",
           "maximum", "minimum", "multiply", "neg", "pow", "reciprocal", "relu", "relu_max", "relu_min", "rsqrt",
           "sigmoid", "sign", "silu", "sin", "sqrt", "square", "subtract", "sub", "mul", "tanh", "typecast"]


def _device_tensor(value, what):
    if not isinstance(value, Tensor):
        raise TypeError(f"{what} must be a ttnn.Tensor, got {_check.describe(value)}")
    if value._host is not None:
        raise ValueError(f"{what} is on the host: ttnn operations run on a device (ttnn.to_device(tensor, device))")
    return value


def _tiled(value, what):
    if value.layout != Layout.TILE:
        raise ValueError(f"{what} is ROW_MAJOR_LAYOUT: element-wise ops and matmul take TILE_LAYOUT tensors "
                         "(ttnn.to_layout(tensor, ttnn.TILE_LAYOUT))")
    return value


def _per_shard(what, tensors, run):
    """Run `run(*device_tensors)` on each device of the inputs' mesh, or once.
    Host tensors (programs written for TT-Lang's simulator make them) run on
    device copies (staging.py); when every input is on the host, so is the
    result."""
    hosts = sum(isinstance(t, Tensor) and t._host is not None for t in tensors)
    if hosts:
        from .staging import stage

        staged, _ = stage(tuple(tensors), what)
        out = _per_shard(what, staged, run)
        if hosts == sum(isinstance(t, Tensor) for t in tensors):
            return Tensor._on_host(out._values(), out.dtype, out.layout)
        return out
    meshes = {id(t._mesh): t._mesh for t in tensors if isinstance(t, Tensor) and t._mesh is not None}
    if not meshes:
        return run(*tensors)
    if len(meshes) > 1 or any(isinstance(t, Tensor) and t._mesh is None for t in tensors):
        raise ValueError(f"{what}: the tensors must all be on one mesh device (or all on one device)")
    mesh = next(iter(meshes.values()))
    count = len(mesh.devices)
    shards = [run(*(t._shards[i] if isinstance(t, Tensor) else t for t in tensors)) for i in range(count)]
    return Tensor._on_mesh(mesh, shards)


def _output(what, like, dtype, memory_config, output_tensor):
    dtype = like.dtype if dtype is None else data_type(dtype, f"{what}: dtype")
    config = like.memory_config() if memory_config is None else _memory_config(memory_config,
                                                                               f"{what}: memory_config")
    if output_tensor is not None:
        out = _device_tensor(output_tensor, f"{what}: output_tensor")
        if out.shape != like.shape or out.layout != Layout.TILE or out._device is not like._device:
            raise ValueError(f"{what}: output_tensor must be a TILE_LAYOUT {tuple(like.shape)} tensor on the "
                             f"inputs' device, got {out!r}")
        return out
    return Tensor._allocate(like._device, like.shape, dtype, Layout.TILE, config, what)


def _scalar_tensor(value, like, what):
    """A tensor of like's shape, dtype and placement filled with the number `value`."""
    v = _check.real(value, what)
    values = host_values(np.full(tuple(like.shape), v, np.float32), like.dtype)
    return Tensor._on_device(like._device, values, like.dtype, Layout.TILE, like.memory_config(), what)


# The FPU reads its operands through 19-bit source registers; a float32
# tensor takes the SFPU's exact float32 op instead, as ttnn does.
_FP32_FORM = {"add": "add_binary", "sub": "sub_binary", "mul": "mul_binary"}


def _eltwise(name, op_name, inputs, params, dtype, memory_config, output_tensor):
    what = f"ttnn.{name}"

    def run(*operands):
        first = _tiled(_device_tensor(operands[0], f"{what}: input_tensor_a" if len(operands) > 1
                                      else f"{what}: input_tensor"), f"{what}: input_tensor")
        first._device._check_open(what)
        tensors = [first]
        if len(operands) > 1:
            second = operands[1]
            if isinstance(second, Tensor):
                second = _tiled(_device_tensor(second, f"{what}: input_tensor_b"), f"{what}: input_tensor_b")
                if second._device is not first._device:
                    raise ValueError(f"{what}: input_tensor_a and input_tensor_b are on different devices "
                                     f"({first._device.id()} and {second._device.id()})")
                if second.shape != first.shape:
                    raise ValueError(f"{what}: input_tensor_a and input_tensor_b must have the same shape (tessel's "
                                     f"ttnn does not broadcast), got {tuple(first.shape)} and {tuple(second.shape)}")
            else:
                second = _scalar_tensor(second, first, f"{what}: input_tensor_b")
            tensors.append(second)
        out = _output(what, first, dtype, memory_config, output_tensor)
        fp32 = any(t.dtype == DataType.FLOAT32 for t in (*tensors, out))
        op = BY_NAME[_FP32_FORM.get(op_name, op_name) if fp32 else op_name]
        words = [_param_word(p, params[p.name], f"{what}: {p.name}") for p in op.params if p.kind != "output_format"]
        compile_params = tuple((p.name, params[p.name]) for p in op.params if p.kind == "output_format")
        kernels.run_eltwise(first._device, op, [t._ttl for t in tensors], out._ttl, words, compile_params, what)
        return out

    return _per_shard(what, inputs, run)


def _binary(name, op_name):
    def fn(input_tensor_a, input_tensor_b, *, dtype=None, memory_config=None, output_tensor=None, activations=None,
           input_tensor_a_activations=None, input_tensor_b_activations=None, use_legacy=None, queue_id=None,
           sub_core_grids=None):
        for given, what in ((activations, "activations"), (input_tensor_a_activations, "input_tensor_a_activations"),
                            (input_tensor_b_activations, "input_tensor_b_activations")):
            if given:
                raise ValueError(f"ttnn.{name}: {what} (fused activations) are not supported by tessel's ttnn: "
                                 "call the activation after the op")
        return _eltwise(name, op_name, (input_tensor_a, input_tensor_b), {}, dtype, memory_config, output_tensor)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"ttnn.{name}(a, b): element-wise {BY_NAME[op_name].doc} on the device ({BY_NAME[op_name].call}); "
                  "b may be a number.")
    return fn


def _unary(name, op_name, param=None):
    if param is None:
        def fn(input_tensor, *, memory_config=None, output_tensor=None, fast_and_approximate_mode=False,
               queue_id=None):
            return _eltwise(name, op_name, (input_tensor,), {}, None, memory_config, output_tensor)
    else:
        def fn(input_tensor, value, *, memory_config=None, output_tensor=None):
            return _eltwise(name, op_name, (input_tensor,), {param: value}, None, memory_config, output_tensor)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"ttnn.{name}: element-wise {BY_NAME[op_name].doc} on the device ({BY_NAME[op_name].call})."
    return fn


add = _binary("add", "add")
subtract = _binary("subtract", "sub")
multiply = _binary("multiply", "mul")
divide = _binary("divide", "div_binary")
maximum = _binary("maximum", "binary_max")
minimum = _binary("minimum", "binary_min")
sub = subtract
mul = multiply

relu = _unary("relu", "relu")
exp = _unary("exp", "exp")
exp2 = _unary("exp2", "exp2")
log = _unary("log", "log")
sqrt = _unary("sqrt", "sqrt")
rsqrt = _unary("rsqrt", "rsqrt")
reciprocal = _unary("reciprocal", "recip")
sigmoid = _unary("sigmoid", "sigmoid")
tanh = _unary("tanh", "tanh")
gelu = _unary("gelu", "gelu")
silu = _unary("silu", "silu")
abs = _unary("abs", "abs")  # noqa: A001  (ttnn's name)
neg = _unary("neg", "negative")
sign = _unary("sign", "sign")
square = _unary("square", "square")
sin = _unary("sin", "sin")
cos = _unary("cos", "cos")
floor = _unary("floor", "floor")
ceil = _unary("ceil", "ceil")
relu_max = _unary("relu_max", "relu_max", "upper_limit")
relu_min = _unary("relu_min", "relu_min", "lower_limit")
pow = _unary("pow", "power", "exponent")  # noqa: A001  (ttnn's name)


def leaky_relu(input_tensor, negative_slope=0.01, *, memory_config=None, output_tensor=None):
    """ttnn.leaky_relu: a where a >= 0, else a * negative_slope, on the device."""
    return _eltwise("leaky_relu", "leaky_relu", (input_tensor,), {"slope": negative_slope}, None, memory_config,
                    output_tensor)


def typecast(input_tensor, dtype, *, memory_config=None, output_tensor=None):
    """ttnn.typecast: the tensor converted to dtype on the device (typecast_tile)."""
    to = data_type(dtype, "ttnn.typecast: dtype")
    return _eltwise("typecast", "typecast", (input_tensor,), {"to": to.format}, to, memory_config, output_tensor)


def matmul(input_tensor_a, input_tensor_b, *, transpose_a=False, transpose_b=False, memory_config=None, dtype=None,
           program_config=None, compute_kernel_config=None, core_grid=None, output_tile=None,
           optional_output_tensor=None, activation=None, global_cb=None, sub_device_id=None):
    """ttnn.matmul: a @ b over the last two dimensions, on the device (one
    output tile per step, DST accumulating over K). a is (..., M, K), b is
    (K, N) or has a's leading dimensions; K must be whole tiles. The
    program config, compute kernel config and core grid are accepted and
    ignored: the output tiles are split over the whole grid at HiFi4."""
    what = "ttnn.matmul"
    if activation is not None:
        raise ValueError(f"{what}: activation (a fused activation) is not supported by tessel's ttnn: call the "
                         "activation after the matmul")
    if _check.flag(transpose_a, f"{what}: transpose_a") or _check.flag(transpose_b, f"{what}: transpose_b"):
        raise ValueError(f"{what}: transpose_a / transpose_b are not supported by tessel's ttnn")

    def run(a, b):
        a = _tiled(_device_tensor(a, f"{what}: input_tensor_a"), f"{what}: input_tensor_a")
        b = _tiled(_device_tensor(b, f"{what}: input_tensor_b"), f"{what}: input_tensor_b")
        a._device._check_open(what)
        if a._device is not b._device:
            raise ValueError(f"{what}: input_tensor_a and input_tensor_b are on different devices")
        sa, sb = tuple(a.shape), tuple(b.shape)
        if len(sa) < 2 or len(sb) < 2 or sa[-1] != sb[-2]:
            raise ValueError(f"{what}: a (..., M, K) @ b (..., K, N) needs a's last dimension to equal b's "
                             f"second-to-last, got {sa} and {sb}")
        if sa[-1] % 32:
            raise ValueError(f"{what}: K = {sa[-1]} must be whole tiles (a multiple of 32): tessel multiplies "
                             "the padded tiles, and padding along K would add to the result")
        batched = len(sb) > 2 and any(d != 1 for d in sb[:-2])
        if batched and sb[:-2] != sa[:-2]:
            raise ValueError(f"{what}: b's leading dimensions {sb[:-2]} must be a's {sa[:-2]} (or all 1)")
        out_shape = sa[:-1] + (sb[-1],)
        out_dtype = a.dtype if dtype is None else data_type(dtype, f"{what}: dtype")
        config = a.memory_config() if memory_config is None else _memory_config(memory_config,
                                                                                 f"{what}: memory_config")
        if optional_output_tensor is not None:
            out = _device_tensor(optional_output_tensor, f"{what}: optional_output_tensor")
            if out.shape != out_shape or out.layout != Layout.TILE or out._device is not a._device:
                raise ValueError(f"{what}: optional_output_tensor must be a TILE_LAYOUT {out_shape} tensor on the "
                                 f"inputs' device, got {out!r}")
        else:
            out = Tensor._allocate(a._device, out_shape, out_dtype, Layout.TILE, config, what)
        pa, pb = a._ttl.shape, b._ttl.shape
        dims = (pa[-2] // 32, pa[-1] // 32, pb[-1] // 32, batched)
        kernels.run_matmul(a._device, a._ttl, b._ttl, out._ttl, dims, what)
        return out

    return _per_shard(what, (input_tensor_a, input_tensor_b), run)


