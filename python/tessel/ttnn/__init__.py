"""tessel.ttnn: the TT-NN host API that TT-Lang programs call, over tessel's
simulated devices (docs/ttnn.md).

    import tessel.ttnn as ttnn
    device = ttnn.open_device(device_id=0)
    a = ttnn.from_torch(t, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device,
                        memory_config=ttnn.DRAM_MEMORY_CONFIG)
    y = ttnn.to_torch(ttnn.relu(ttnn.add(a, a)))
    ttnn.close_device(device)

- device.py: open_device / close_device / synchronize_device, ttnn.Device
- types.py: DataType (bfloat16, float32, ...), Layout, TILE_SIZE
- memory.py: MemoryConfig, DRAM/L1_MEMORY_CONFIG, sharding, CoreGrid
- tensor.py: ttnn.Tensor (host, device or mesh)
- creation.py: from_torch / to_torch, empty, rand, zeros, full, to_memory_config, ...
- operations.py and kernels.py: element-wise ops and matmul, as tessel
  programs on the device the tensors live on
- mesh.py: mesh devices, mesh mappers and composers, all_reduce
- work_split.py: split_work_to_cores
- descriptors.py: SemaphoreDescriptor (tessel.ttl's runtime resources)

CoreCoord, CoreRange, CoreRangeSet and TensorAccessorArgs are tessel's own.
"""

# First: tessel.ttl's records import SemaphoreDescriptor from this package
# while the modules below import tessel.ttl.
from .descriptors import SemaphoreDescriptor  # isort: skip

from ..core import CoreCoord, CoreRange, CoreRangeSet
from ..device import TensorAccessorArgs
from . import device as _device_module
from .creation import (
    deallocate,
    empty,
    empty_like,
    from_device,
    from_torch,
    full,
    full_like,
    ones,
    ones_like,
    rand,
    to_device,
    to_layout,
    to_memory_config,
    to_torch,
    zeros,
    zeros_like,
)
from .device import Arch, Device, close_device, open_device, synchronize_device
from .memory import (
    DRAM_MEMORY_CONFIG,
    L1_MEMORY_CONFIG,
    BufferType,
    CoreGrid,
    MemoryConfig,
    ShardOrientation,
    ShardSpec,
    ShardStrategy,
    TensorMemoryLayout,
    create_sharded_memory_config,
)
from .mesh import (
    ConcatMeshToTensor,
    FabricConfig,
    GetNumAvailableDevices,
    MeshDevice,
    MeshShape,
    ReplicateTensorToMesh,
    ShardTensorToMesh,
    all_reduce,
    close_mesh_device,
    distributed_context_barrier,
    distributed_context_get_rank,
    distributed_context_get_size,
    fabric_config,
    get_num_devices,
    open_mesh_device,
    set_fabric_config,
    set_num_devices,
)
from .operations import (
    abs,
    add,
    ceil,
    cos,
    divide,
    exp,
    exp2,
    floor,
    gelu,
    leaky_relu,
    log,
    matmul,
    maximum,
    minimum,
    mul,
    multiply,
    neg,
    pow,
    reciprocal,
    relu,
    relu_max,
    relu_min,
    rsqrt,
    sigmoid,
    sign,
    silu,
    sin,
    sqrt,
    square,
    sub,
    subtract,
    tanh,
    typecast,
)
from .tensor import Shape, StorageType, Tensor
from .types import (
    ROW_MAJOR_LAYOUT,
    TILE_LAYOUT,
    TILE_SIZE,
    DataType,
    Layout,
    bfloat4_b,
    bfloat8_b,
    bfloat16,
    float32,
    int32,
    uint8,
    uint16,
    uint32,
)
from .work_split import num_cores_to_corerangeset, split_work_to_cores

device = _device_module  # ttnn.device.Arch, as ttnn spells it

__all__ = [
    "Arch", "BufferType", "ConcatMeshToTensor", "CoreCoord", "CoreGrid", "CoreRange", "CoreRangeSet",
    "DRAM_MEMORY_CONFIG", "DataType", "Device", "FabricConfig", "GetNumAvailableDevices", "L1_MEMORY_CONFIG",
    "Layout", "MemoryConfig", "MeshDevice", "MeshShape", "ROW_MAJOR_LAYOUT", "ReplicateTensorToMesh",
    "SemaphoreDescriptor", "Shape", "ShardOrientation", "ShardSpec", "ShardStrategy", "ShardTensorToMesh",
    "StorageType", "TILE_LAYOUT", "TILE_SIZE", "Tensor", "TensorAccessorArgs", "TensorMemoryLayout", "abs", "add",
    "all_reduce", "bfloat16", "bfloat4_b", "bfloat8_b", "ceil", "close_device", "close_mesh_device", "cos",
    "create_sharded_memory_config", "deallocate", "distributed_context_barrier", "distributed_context_get_rank",
    "distributed_context_get_size", "divide", "empty", "empty_like", "exp", "exp2", "fabric_config",
    "float32", "floor", "from_device", "from_torch", "full", "full_like", "gelu", "get_num_devices", "int32",
    "leaky_relu", "log", "matmul", "maximum", "minimum", "mul", "multiply", "neg", "num_cores_to_corerangeset",
    "ones", "ones_like", "open_device", "open_mesh_device", "pow", "rand", "reciprocal", "relu", "relu_max",
    "relu_min", "rsqrt", "set_fabric_config", "set_num_devices", "sigmoid", "sign", "silu", "sin",
    "split_work_to_cores", "sqrt", "square", "sub", "subtract", "synchronize_device", "tanh", "to_device",
    "to_layout", "to_memory_config", "to_torch", "typecast", "uint16", "uint32", "uint8", "zeros", "zeros_like",
]
