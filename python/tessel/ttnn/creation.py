"""Making ttnn tensors and moving them: from_torch / to_torch, to_device /
from_device, empty, rand, zeros, ones, full, to_layout, to_memory_config.

Conversions run on the host (numpy): values are rounded to the tensor's
dtype and tiled there, then written to the device's buffer in one transfer
(tessel.ttl.Tensor.write); reading back is the reverse. to_memory_config
between placements of one layout and dtype runs on the device (a page copy,
kernels.run_copy).

torch is optional: from_torch takes torch tensors and numpy arrays;
to_torch returns a torch tensor when torch can be imported, else a numpy
array (float32 for the float types, the integer type for integer types).
"""

import importlib
import sys

import numpy as np

from .. import _check
from . import kernels
from .device import Device
from .memory import DRAM_MEMORY_CONFIG, memory_config as _memory_config
from .tensor import Tensor, host_values
from .types import DataType, Layout, bfloat16, data_type, layout as _layout

__all__ = ["deallocate", "empty", "empty_like", "from_device", "from_torch", "full", "full_like", "ones",
           "ones_like", "rand", "to_device", "to_layout", "to_memory_config", "to_torch", "zeros", "zeros_like"]

_TORCH_TYPES = {"bfloat16": DataType.BFLOAT16, "float32": DataType.FLOAT32, "float16": DataType.FLOAT32,
                "float64": DataType.FLOAT32, "int32": DataType.INT32, "int64": DataType.INT32,
                "uint8": DataType.UINT8, "int16": DataType.UINT16, "uint16": DataType.UINT16,
                "uint32": DataType.UINT32}
_NUMPY_TYPES = {"f": DataType.FLOAT32, "i": DataType.INT32}


def _torch():
    """torch, if it can be imported (None otherwise)."""
    if "torch" in sys.modules:
        return sys.modules["torch"]
    try:
        return importlib.import_module("torch")
    except ImportError:
        return None


def _is_torch(value):
    return type(value).__module__.split(".")[0] == "torch" and hasattr(value, "detach")


def _host_array(value, what):
    """(numpy array, the DataType its type maps to) of a torch tensor or a numpy array."""
    if isinstance(value, np.ndarray):
        kind = value.dtype.kind
        inferred = {np.dtype(np.uint8): DataType.UINT8, np.dtype(np.uint16): DataType.UINT16,
                    np.dtype(np.uint32): DataType.UINT32}.get(value.dtype, _NUMPY_TYPES.get(kind))
        if inferred is None:
            raise TypeError(f"{what}: a numpy array of {value.dtype} has no ttnn type: expected floats or integers")
        return value, inferred
    if _is_torch(value):
        name = str(value.dtype).removeprefix("torch.")
        if name not in _TORCH_TYPES:
            raise TypeError(f"{what}: a torch tensor of {value.dtype} has no ttnn type; expected one of "
                            + ", ".join(f"torch.{n}" for n in _TORCH_TYPES))
        t = value.detach().cpu()
        if name in ("bfloat16", "float16"):
            t = t.float()
        return t.contiguous().numpy(), _TORCH_TYPES[name]
    raise TypeError(f"{what}: tensor must be a torch.Tensor or a numpy array, got {_check.describe(value)}")


def _where(device, what):
    """None (host), a ttnn.Device, or a ttnn.MeshDevice."""
    from .mesh import MeshDevice

    if device is None or isinstance(device, (Device, MeshDevice)):
        return device
    raise TypeError(f"{what}: device must be a ttnn.Device, a ttnn.MeshDevice or None, got {_check.describe(device)}")


def _place(values, dtype, layout, device, memory_config, what, mesh_mapper=None, pad_value=0.0):
    """A tensor of host `values` on the host, a device or (through mesh_mapper) a mesh."""
    from .mesh import MeshDevice, mesh_place

    device = _where(device, what)
    config = _memory_config(memory_config, f"{what}: memory_config")
    if dtype.is_block_float and layout != Layout.TILE:
        raise ValueError(f"{what}: {dtype!r} is a block-float type and exists only in tiles: use "
                         "layout=ttnn.TILE_LAYOUT")
    values = host_values(values, dtype)
    if isinstance(device, MeshDevice) or mesh_mapper is not None:
        return mesh_place(values, dtype, layout, device, config, mesh_mapper, what)
    if device is None:
        return Tensor._on_host(values, dtype, layout)
    return Tensor._on_device(device, values, dtype, layout, config, what, pad_value)


def from_torch(tensor, dtype=None, *, spec=None, tile=None, layout=Layout.ROW_MAJOR, device=None, memory_config=None,
               mesh_mapper=None, cq_id=None, pad_value=None):
    """A ttnn tensor holding a torch tensor's (or numpy array's) values in
    dtype (None: the type the input's maps to), laid out as `layout`; on
    `device` in memory_config (DRAM_MEMORY_CONFIG), or on the host without a
    device. mesh_mapper (with a mesh device) places one shard per device."""
    what = "ttnn.from_torch"
    values, inferred = _host_array(tensor, what)
    dtype = inferred if dtype is None else data_type(dtype, f"{what}: dtype")
    layout = _layout(layout if layout is not None else Layout.ROW_MAJOR, f"{what}: layout")
    if tile is not None and tuple(getattr(tile, "tile_shape", tile)) != (32, 32):
        raise ValueError(f"{what}: tessel's tiles are 32x32, got tile={tile!r}")
    pad = 0.0 if pad_value is None else _check.real(pad_value, f"{what}: pad_value")
    return _place(values, dtype, layout, device, memory_config, what, mesh_mapper, pad)



def _torch_result(torch, values, dtype, target):
    if target is not None:
        return torch.from_numpy(np.ascontiguousarray(values)).to(target)
    if dtype in (DataType.BFLOAT16,):
        return torch.from_numpy(np.ascontiguousarray(values, dtype=np.float32)).to(torch.bfloat16)
    if dtype == DataType.UINT16:
        return torch.from_numpy(values.astype(np.int32))
    if dtype == DataType.UINT32:
        return torch.from_numpy(values.astype(np.int64))
    return torch.from_numpy(np.ascontiguousarray(values))


def to_torch(tensor, dtype=None, *, torch_rank=None, mesh_composer=None, device=None, cq_id=None):
    """The tensor's values (read from its device, or its mesh's devices
    joined by mesh_composer) as a torch tensor, or a numpy array when torch
    cannot be imported. dtype: a torch dtype to convert to."""
    what = "ttnn.to_torch"
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{what}: tensor must be a ttnn.Tensor, got {_check.describe(tensor)}")
    if tensor._shards is not None:
        from .mesh import compose

        values = compose(tensor, mesh_composer, what)
    else:
        if mesh_composer is not None:
            values = mesh_composer.compose([tensor._values()])
        else:
            values = tensor._values()
    if torch_rank is not None:
        rank = _check.integer(torch_rank, f"{what}: torch_rank", 1, 8, "a rank")
        while values.ndim > rank and values.shape[0] == 1:
            values = values[0]
        if values.ndim != rank:
            raise ValueError(f"{what}: cannot squeeze a {values.shape} tensor to rank {rank}")
    torch = _torch()
    if torch is None:
        if dtype is not None:
            raise ValueError(f"{what}: dtype={dtype!r} needs torch, which is not installed")
        return values
    return _torch_result(torch, values, tensor.dtype, dtype)


def to_device(tensor, device, memory_config=None, cq_id=None):
    """A host tensor put on `device` (a tensor already there is returned as is)."""
    what = "ttnn.to_device"
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{what}: tensor must be a ttnn.Tensor, got {_check.describe(tensor)}")
    if tensor._host is None:
        if tensor.device() is device:
            return tensor
        raise ValueError(f"{what}: the tensor is already on another device ({tensor.device()!r}); "
                         "ttnn.from_device it first")
    return _place(tensor._host, tensor.dtype, tensor.layout, device, memory_config, what)


def from_device(tensor, blocking=True, cq_id=None):
    """The tensor read back to the host."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"ttnn.from_device: tensor must be a ttnn.Tensor, got {_check.describe(tensor)}")
    if tensor._host is not None:
        return tensor
    return Tensor._on_host(tensor._values(), tensor.dtype, tensor.layout)


def _shape(shape, what):
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"{what}: shape must be a tuple or list of dimensions (or a ttnn.Shape), got "
                        f"{_check.describe(shape)}")
    return tuple(_check.integer(d, f"{what}: shape[{i}]", 1, _check.WORD_MAX, "a positive dimension")
                 for i, d in enumerate(shape))


def _filled(name, shape, value, dtype, layout, device, memory_config):
    what = f"ttnn.{name}"
    dims = _shape(shape, what)
    dtype = bfloat16 if dtype is None else data_type(dtype, f"{what}: dtype")
    layout = _default_layout(layout, device, what)
    v = _check.real(value, f"{what}: fill_value")
    return _place(np.full(dims, v, np.float32), dtype, layout, device, memory_config, what)


def _default_layout(layout, device, what):
    """`layout`, or when it is None: row-major on a device, as ttnn's; tiles
    on the host, as TT-Lang's simulator makes them (a tensor without a
    device exists only for programs written for it)."""
    if layout is not None:
        return _layout(layout, f"{what}: layout")
    return Layout.ROW_MAJOR if device is not None else Layout.TILE


def zeros(shape, dtype=None, layout=None, device=None, memory_config=None):
    """A tensor of zeros (dtype None: bfloat16; layout None: see _default_layout)."""
    return _filled("zeros", shape, 0.0, dtype, layout, device, memory_config)


def ones(shape, dtype=None, layout=None, device=None, memory_config=None):
    return _filled("ones", shape, 1.0, dtype, layout, device, memory_config)


def full(shape, fill_value, dtype=None, layout=None, device=None, memory_config=None):
    return _filled("full", shape, fill_value, dtype, layout, device, memory_config)


def empty(shape, dtype=bfloat16, layout=None, device=None, memory_config=DRAM_MEMORY_CONFIG):
    """A device tensor whose contents are not set (whatever its buffer
    holds); on the host (device None), zeros. layout None: see
    _default_layout."""
    what = "ttnn.empty"
    dims = _shape(shape, what)
    dtype = data_type(dtype, f"{what}: dtype")
    layout = _default_layout(layout, device, what)
    device = _where(device, what)
    from .mesh import MeshDevice

    if device is None or isinstance(device, MeshDevice):
        return _place(np.zeros(dims, np.float32), dtype, layout, device, memory_config, what)
    config = _memory_config(memory_config, f"{what}: memory_config")
    return Tensor._allocate(device, dims, dtype, layout, config, what)


def rand(shape, device=None, *, dtype=bfloat16, layout=Layout.TILE, memory_config=DRAM_MEMORY_CONFIG, low=0.0,
         high=1.0, seed=0):
    """Values uniform in [low, high), drawn on the host (numpy, from `seed`)
    and rounded to dtype."""
    what = "ttnn.rand"
    dims = _shape(shape, what)
    lo, hi = _check.real(low, f"{what}: low"), _check.real(high, f"{what}: high")
    if not lo < hi:
        raise ValueError(f"{what}: low must be below high, got low={lo} and high={hi}")
    seed = _check.integer(seed, f"{what}: seed", 0, _check.WORD_MAX, "a seed")
    values = np.random.default_rng(seed).uniform(lo, hi, dims).astype(np.float32)
    return _place(values, data_type(dtype, f"{what}: dtype"), _layout(layout, f"{what}: layout"), device,
                  memory_config, what)


def _like(name, tensor, value, dtype, layout, device, memory_config):
    what = f"ttnn.{name}"
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{what}: tensor must be a ttnn.Tensor, got {_check.describe(tensor)}")
    return _filled(name, tuple(tensor.shape), value, tensor.dtype if dtype is None else dtype,
                   tensor.layout if layout is None else layout, tensor.device() if device is None else device,
                   tensor.memory_config() if memory_config is None else memory_config)


def zeros_like(tensor, dtype=None, layout=None, device=None, memory_config=None):
    return _like("zeros_like", tensor, 0.0, dtype, layout, device, memory_config)


def ones_like(tensor, dtype=None, layout=None, device=None, memory_config=None):
    return _like("ones_like", tensor, 1.0, dtype, layout, device, memory_config)


def full_like(tensor, fill_value, dtype=None, layout=None, device=None, memory_config=None):
    return _like("full_like", tensor, fill_value, dtype, layout, device, memory_config)


def empty_like(tensor, dtype=None, layout=None, device=None, memory_config=None):
    return _like("empty_like", tensor, 0.0, dtype, layout, device, memory_config)


def _reshaped(name, tensor, dtype, layout, memory_config):
    """The tensor again in another layout / dtype / placement, through the host."""
    what = f"ttnn.{name}"
    if tensor._shards is not None:
        from .mesh import per_device

        return per_device(tensor, lambda t: _reshaped(name, t, dtype, layout, memory_config))
    dtype = tensor.dtype if dtype is None else data_type(dtype, f"{what}: dtype")
    config = tensor.memory_config() if memory_config is None else memory_config
    return _place(tensor._values(), dtype, layout, tensor._device, config, what)


def to_layout(tensor, layout, dtype=None, memory_config=None, device=None):
    """The tensor in `layout` (the same tensor when it already is): the
    values pass through the host to be tiled or untiled."""
    what = "ttnn.to_layout"
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{what}: tensor must be a ttnn.Tensor, got {_check.describe(tensor)}")
    layout = _layout(layout, f"{what}: layout")
    if layout == tensor.layout and dtype is None and memory_config is None:
        return tensor
    return _reshaped("to_layout", tensor, dtype, layout, memory_config)


def to_memory_config(tensor, memory_config, dtype=None):
    """The tensor in another placement (DRAM / L1 interleaved, sharded): a
    page copy on the device; with a new dtype, through the host."""
    what = "ttnn.to_memory_config"
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{what}: tensor must be a ttnn.Tensor, got {_check.describe(tensor)}")
    config = _memory_config(memory_config, f"{what}: memory_config")
    if tensor._host is not None:
        raise ValueError(f"{what}: the tensor is on the host: a memory config places device tensors "
                         "(ttnn.to_device(tensor, device, memory_config))")
    if tensor._shards is not None:
        from .mesh import per_device

        return per_device(tensor, lambda t: to_memory_config(t, config, dtype))
    if dtype is not None and data_type(dtype, f"{what}: dtype") != tensor.dtype:
        return _reshaped("to_memory_config", tensor, dtype, tensor.layout, config)
    if config == tensor.memory_config():
        return tensor
    out = Tensor._allocate(tensor._device, tuple(tensor.shape), tensor.dtype, tensor.layout, config, what)
    kernels.run_copy(tensor._device, tensor._ttl, out._ttl, what)
    return out


def deallocate(tensor, force=True):
    """Free the tensor's device memory."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"ttnn.deallocate: tensor must be a ttnn.Tensor, got {_check.describe(tensor)}")
    tensor.deallocate(force)


