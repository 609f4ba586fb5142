"""Mesh devices: N simulated tessel devices driven as one ttnn.MeshDevice.

    n = ttnn.GetNumAvailableDevices()
    ttnn.set_fabric_config(ttnn.FabricConfig.FABRIC_1D)
    mesh = ttnn.open_mesh_device(ttnn.MeshShape(1, n))
    a = ttnn.from_torch(t, layout=ttnn.TILE_LAYOUT, device=mesh, mesh_mapper=ttnn.ShardTensorToMesh(mesh, dim=0))
    y = ttnn.to_torch(ttnn.all_reduce(a), mesh_composer=ttnn.ConcatMeshToTensor(mesh, dim=0))

- The machine is a mesh of devices: 1 x tessel.ttl.settings.num_devices
  (set_num_devices, `python -m tessel.ttlang --num-devices`), else
  TESSEL_MESH (rows x columns, as the compat SystemMesh reads it), else
  1 x 8. num_devices() is its size.
  A mesh of shape (r, c) opens r * c tessel devices, position (i, j) being
  device i * c + j, each with tessel.ttl.settings' arch, grid and policy.
- A mesh tensor holds one device tensor per device (`_shards`, in device
  order); a tessel.ttl operation runs once per device on its shards (SPMD).
- ShardTensorToMesh splits along `dim` into equal parts, one per device;
  ReplicateTensorToMesh (the default) puts the whole tensor on every device;
  ConcatMeshToTensor joins the shards along `dim` on the host.
- all_reduce sums the shards and replicates the sum: the shards are copied
  between devices through the host (their pages as they are, no
  conversion) and added on the devices' Tensix cores with ttnn.add, in
  device order, so every device holds the same bits.
- Under mpirun with more than one rank (docs/multichip.md, "Ranks"), a
  mesh splits over the ranks in row-major blocks of devices, as ttnn's
  multi-host runtime does: each process opens only its devices
  (mesh.devices, get_devices()), mesh.shape and get_num_devices() are the
  whole mesh's, a mapper places only this process's shards,
  ConcatMeshToTensor gathers every rank's shards, and all_reduce sums every
  rank's shards in device order (the same bits as in one process).
  distributed_context_get_rank / _get_size / _barrier speak to the world.
- set_fabric_config is accepted and recorded (fabric_config(); a mesh
  keeps the config it was opened with); tessel's devices have no fabric
  between them. all_reduce on a mesh opened with FabricConfig.DISABLED is a
  FabricWarning (an error under TESSEL_STRICT=1): ttnn's collectives need
  the fabric.
"""

import atexit
import enum
import os
import pickle

import numpy as np

from .. import _check
from ..errors import OutOfMemoryError, TesselWarning, warn
from ..ttl.settings import settings
from .device import Device, trace_path
from .tensor import Tensor

__all__ = ["ConcatMeshToTensor", "FabricConfig", "FabricWarning", "GetNumAvailableDevices", "MeshDevice", "MeshShape",
           "ReplicateTensorToMesh", "ShardTensorToMesh", "all_reduce", "close_mesh_device",
           "distributed_context_barrier", "distributed_context_get_rank", "distributed_context_get_size",
           "fabric_config", "get_num_devices", "open_mesh_device", "set_fabric_config", "set_num_devices",
           "system_mesh_shape"]


def _launched_ranks() -> int:
    """How many processes mpirun started (1 outside mpirun): MPI starts only when there are several."""
    for name in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"):
        if os.environ.get(name, "").isdigit():
            return int(os.environ[name])
    return 1


_world_cache = None


def _world():
    """(rank, size) of this process in MPI's world; (0, 1) outside mpirun."""
    global _world_cache
    if _world_cache is None:
        if _launched_ranks() <= 1:
            _world_cache = (0, 1)
        else:
            from .._tessel import ranks_finalize, ranks_world
            _world_cache = tuple(ranks_world())
            if _world_cache[1] > 1:
                atexit.register(ranks_finalize)  # MPI ends cleanly when the script does
    return _world_cache


def _all_gather(obj):
    """Every rank's `obj` (picklable), in rank order."""
    if _world()[1] == 1:
        return [obj]
    from .._tessel import ranks_all_gather
    return [pickle.loads(part) for part in ranks_all_gather(pickle.dumps(obj))]


def distributed_context_get_rank() -> int:
    """This process's rank (0 outside mpirun)."""
    return _world()[0]


def distributed_context_get_size() -> int:
    """How many processes the run has (1 outside mpirun)."""
    return _world()[1]


def distributed_context_barrier() -> None:
    """Wait until every rank reaches this call."""
    if _world()[1] > 1:
        from .._tessel import ranks_barrier
        ranks_barrier()

DEFAULT_MESH = (1, 8)
MAX_NUM_DEVICES = 64


def system_mesh_shape() -> "MeshShape":
    """The simulated machine's mesh (see the module docstring)."""
    if settings.num_devices is not None:
        return MeshShape(1, settings.num_devices)
    text = os.environ.get("TESSEL_MESH")
    if not text:
        return MeshShape(*DEFAULT_MESH)
    try:
        rows, cols = (int(v) for v in text.lower().split("x"))
    except ValueError:
        rows = cols = 0
    if rows < 1 or cols < 1 or rows * cols > MAX_NUM_DEVICES:
        raise ValueError(f"TESSEL_MESH='{text}' is not a mesh shape; give rows x columns, e.g. TESSEL_MESH=2x4 "
                         f"(at most {MAX_NUM_DEVICES} devices)")
    return MeshShape(rows, cols)


def num_devices() -> int:
    """How many devices the simulated machine has."""
    return system_mesh_shape().mesh_size()


def set_num_devices(count) -> None:
    """Set how many devices the machine has (tessel.ttl.settings.num_devices;
    None: TESSEL_MESH's, else 8)."""
    settings.num_devices = None if count is None else _check.integer(
        count, "ttnn.set_num_devices: count", 1, MAX_NUM_DEVICES, "a device count")


def GetNumAvailableDevices() -> int:  # noqa: N802  (ttnn's name)
    return num_devices()


def get_num_devices() -> int:
    return num_devices()


class FabricWarning(TesselWarning):
    """A likely bug in a mesh program that tessel still runs: a collective on
    a mesh opened without a fabric config."""


class FabricConfig(enum.Enum):
    DISABLED = 0
    FABRIC_1D = 1
    FABRIC_1D_RING = 2
    FABRIC_2D = 3
    FABRIC_2D_DYNAMIC = 4
    CUSTOM = 5


_fabric = FabricConfig.DISABLED


def set_fabric_config(config, reliability_mode=None, num_planes=None, topology=None) -> None:
    """Record the fabric config (tessel's devices have no fabric to set up)."""
    global _fabric
    if not isinstance(config, FabricConfig):
        raise TypeError(f"ttnn.set_fabric_config: config must be a ttnn.FabricConfig, got {_check.describe(config)}")
    _fabric = config


def fabric_config() -> FabricConfig:
    """The fabric config last set (FabricConfig.DISABLED at first)."""
    return _fabric


class MeshShape(tuple):
    """A mesh's (rows, columns): ttnn.MeshShape(r, c), MeshShape((r, c)) or MeshShape([r, c])."""

    def __new__(cls, *dims):
        if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
            dims = tuple(dims[0])
        if len(dims) not in (1, 2):
            raise TypeError(f"ttnn.MeshShape takes (rows, columns), got {dims!r}")
        values = tuple(_check.integer(d, f"ttnn.MeshShape[{i}]", 1, MAX_NUM_DEVICES, "a device count")
                       for i, d in enumerate(dims))
        return super().__new__(cls, values if len(values) == 2 else (1,) + values)

    def mesh_size(self) -> int:
        return self[0] * self[1]

    @property
    def dims(self):
        return len(self)

    def __repr__(self):
        return f"MeshShape({self[0]}, {self[1]})"


class MeshDevice:
    """rows x columns simulated devices (see the module docstring)."""

    def __init__(self, *args, **kwargs):
        raise TypeError("use ttnn.open_mesh_device(ttnn.MeshShape(rows, columns)) to open a mesh device")

    @property
    def shape(self) -> MeshShape:
        return self._shape

    def get_num_devices(self) -> int:
        """The whole mesh's devices (under mpirun, every rank's)."""
        return self._shape.mesh_size()

    def is_local(self, index) -> bool:
        """Whether device `index` (row-major in the mesh) is this process's."""
        return self._first <= index < self._first + len(self.devices)

    def get_devices(self):
        return list(self.devices)

    def get_device(self, index):
        if not self.is_local(index):
            raise ValueError(f"ttnn.MeshDevice.get_device: device {index} is held by another rank (this rank holds "
                             f"{self._first}..{self._first + len(self.devices) - 1})")
        return self.devices[index - self._first]

    def compute_with_storage_grid_size(self):
        return self.devices[0].compute_with_storage_grid_size()

    def get_max_worker_l1_unreserved_size(self):
        return self.devices[0].get_max_worker_l1_unreserved_size()

    def arch(self):
        return self.devices[0].arch()

    @property
    def core_grid(self):
        return self.devices[0].core_grid

    @property
    def fabric_config(self) -> FabricConfig:
        return self._fabric

    @property
    def is_open(self) -> bool:
        return any(d.is_open for d in self.devices)

    def close(self):
        for d in self.devices:
            d.close()

    def __repr__(self):
        if len(self.devices) != self._shape.mesh_size():
            return (f"<ttnn.MeshDevice {self._shape[0]}x{self._shape[1]} (devices {self._first}.."
                    f"{self._first + len(self.devices) - 1} of {self._shape.mesh_size()} on rank {_world()[0]})>")
        return f"<ttnn.MeshDevice {self._shape[0]}x{self._shape[1]} ({len(self.devices)} devices)>"


def open_mesh_device(mesh_shape=None, *, l1_small_size=None, trace_region_size=None, num_command_queues=None,
                     dispatch_core_config=None, offset=None, physical_device_ids=None, worker_l1_size=None,
                     mesh_type=None) -> MeshDevice:
    """Open rows x columns devices (mesh_shape None: the machine's mesh)."""
    what = "ttnn.open_mesh_device"
    available = num_devices()
    shape = system_mesh_shape() if mesh_shape is None else (
        mesh_shape if isinstance(mesh_shape, MeshShape) else MeshShape(mesh_shape))
    count = shape.mesh_size()
    if count > available:
        raise ValueError(f"{what}: a {shape[0]}x{shape[1]} mesh needs {count} devices, the machine has {available} "
                         "(TESSEL_MESH or --num-devices sets the count)")
    rank, ranks = _world()
    if count % ranks:
        raise ValueError(f"{what}: a {shape[0]}x{shape[1]} mesh of {count} devices does not split evenly over "
                         f"{ranks} ranks: run with a number of ranks that divides {count}")
    first, local = rank * (count // ranks), count // ranks
    devices = []
    try:
        for i in range(first, first + local):
            devices.append(Device._open(i, trace_path(i, count)))
    except OutOfMemoryError as e:
        for d in devices:
            d.close()
        raise OutOfMemoryError(f"{what}: a {shape[0]}x{shape[1]} mesh of {count} devices does not fit in one process "
                               f"(device {len(devices)} could not open): {e}. Open smaller grids "
                               "(tessel.ttl.settings, TESSEL_GRID), or run the mesh from C++ split over MPI ranks "
                               "(docs/multichip.md)") from None
    except BaseException:
        for d in devices:
            d.close()
        raise
    mesh = object.__new__(MeshDevice)
    mesh._shape, mesh.devices, mesh._fabric, mesh._first = shape, devices, _fabric, first
    return mesh


def close_mesh_device(mesh_device) -> None:
    if not isinstance(mesh_device, MeshDevice):
        raise TypeError(f"ttnn.close_mesh_device: mesh_device must be a ttnn.MeshDevice, got "
                        f"{_check.describe(mesh_device)}")
    mesh_device.close()


def _mesh(value, what):
    if not isinstance(value, MeshDevice):
        raise TypeError(f"{what}: mesh_device must be a ttnn.MeshDevice, got {_check.describe(value)}")
    return value


class ShardTensorToMesh:
    """Split a tensor along `dim` into one equal part per device."""

    def __init__(self, mesh_device, dim):
        self.mesh = _mesh(mesh_device, "ttnn.ShardTensorToMesh")
        self.dim = _check.integer(dim, "ttnn.ShardTensorToMesh: dim", -8, 7, "a dimension")

    def map(self, values, what):
        n = self.mesh.get_num_devices()
        dim = self.dim + values.ndim if self.dim < 0 else self.dim
        if not 0 <= dim < values.ndim:
            raise ValueError(f"{what}: ShardTensorToMesh dim={self.dim} is not a dimension of a "
                             f"{values.ndim}-D tensor")
        if values.shape[dim] % n:
            raise ValueError(f"{what}: ShardTensorToMesh splits dimension {dim} ({values.shape[dim]}) into {n} "
                             f"equal shards, one per device: it must be a multiple of {n}")
        first = self.mesh._first
        return np.split(values, n, axis=dim)[first:first + len(self.mesh.devices)]  # this rank's shards


class ReplicateTensorToMesh:
    """Put the whole tensor on every device."""

    def __init__(self, mesh_device):
        self.mesh = _mesh(mesh_device, "ttnn.ReplicateTensorToMesh")

    def map(self, values, what):
        return [values] * len(self.mesh.devices)


class ConcatMeshToTensor:
    """Join a mesh tensor's shards along `dim` (on the host)."""

    def __init__(self, mesh_device, dim):
        self.mesh = _mesh(mesh_device, "ttnn.ConcatMeshToTensor")
        self.dim = _check.integer(dim, "ttnn.ConcatMeshToTensor: dim", -8, 7, "a dimension")

    def compose(self, shards):
        # Under mpirun every rank's shards, in device order.
        return np.concatenate([s for part in _all_gather(list(shards)) for s in part], axis=self.dim)


def mesh_place(values, dtype, layout, mesh, config, mapper, what):
    """A mesh tensor of host `values` placed by `mapper`."""
    if not isinstance(mesh, MeshDevice):
        raise ValueError(f"{what}: mesh_mapper places shards on a mesh: device must be the ttnn.MeshDevice, got "
                         f"{_check.describe(mesh)}")
    if mapper is None:
        mapper = ReplicateTensorToMesh(mesh)  # as ttnn: a mesh tensor without a mapper is on every device
    if not isinstance(mapper, (ShardTensorToMesh, ReplicateTensorToMesh)):
        raise TypeError(f"{what}: mesh_mapper must be a ttnn.ShardTensorToMesh or ttnn.ReplicateTensorToMesh, got "
                        f"{_check.describe(mapper)}")
    if mapper.mesh is not mesh:
        raise ValueError(f"{what}: mesh_mapper was made for another mesh device than device=")
    parts = mapper.map(values, what)
    shards = [Tensor._on_device(d, np.ascontiguousarray(p), dtype, layout, config, what)
              for d, p in zip(mesh.devices, parts)]
    return Tensor._on_mesh(mesh, shards)


def compose(tensor, composer, what):
    if composer is None:
        raise ValueError(f"{what}: the tensor is spread over {len(tensor._shards)} devices: pass "
                         "mesh_composer=ttnn.ConcatMeshToTensor(mesh_device, dim=...)")
    if not isinstance(composer, ConcatMeshToTensor):
        raise TypeError(f"{what}: mesh_composer must be a ttnn.ConcatMeshToTensor, got {_check.describe(composer)}")
    if composer.mesh is not tensor._mesh:
        raise ValueError(f"{what}: mesh_composer was made for another mesh device than the tensor's")
    rank = len(tensor.shape)
    if not -rank <= composer.dim < rank:
        raise ValueError(f"{what}: ConcatMeshToTensor dim={composer.dim} is not a dimension of the {rank}-D shards")
    return composer.compose([s._values() for s in tensor._shards])


def per_device(tensor, fn):
    return Tensor._on_mesh(tensor._mesh, [fn(s) for s in tensor._shards])


def _copy_to(src, device):
    """src's pages as they are in a new tensor of the same kind on `device` (through the host)."""
    out = Tensor._allocate(device, tuple(src.shape), src.dtype, src.layout, src.memory_config(), "ttnn.all_reduce")
    out._ttl.buffer.write(src._ttl.buffer.read())
    return out


def all_reduce(input_tensor, cluster_axis=None, *, memory_config=None, num_links=None, topology=None,
               subdevice_id=None, sub_device_id=None, mesh_device=None, queue_id=None):
    """The element-wise sum of a mesh tensor's shards, on every device (see
    the module docstring for where it runs). cluster_axis 0 / 1 sums only
    over each column / row of the mesh."""
    from .operations import add

    what = "ttnn.all_reduce"
    if not isinstance(input_tensor, Tensor) or input_tensor._shards is None:
        raise TypeError(f"{what}: input_tensor must be a mesh tensor (ttnn.from_torch(..., device=mesh_device, "
                        f"mesh_mapper=...)), got {_check.describe(input_tensor)}")
    mesh = input_tensor._mesh
    if mesh.fabric_config == FabricConfig.DISABLED:
        message = (f"{what}: the mesh device was opened with FabricConfig.DISABLED, and ttnn's collectives move data "
                   "over the fabric: call ttnn.set_fabric_config(ttnn.FabricConfig.FABRIC_1D) before "
                   "ttnn.open_mesh_device")
        warn(message, FabricWarning)
    rows, cols = mesh.shape
    if cluster_axis is None:
        groups = [list(range(rows * cols))]
    else:
        axis = _check.integer(cluster_axis, f"{what}: cluster_axis", 0, 1, "a mesh axis")
        groups = ([[r * cols + c for r in range(rows)] for c in range(cols)] if axis == 0
                  else [[r * cols + c for c in range(cols)] for r in range(rows)])
    shards = list(input_tensor._shards)
    first = mesh._first
    local = range(first, first + len(shards))
    # Every shard's pages, from every rank (under mpirun; in one process, this one's).
    pages = {}
    for part in _all_gather({first + k: s._ttl.buffer.read() for k, s in enumerate(shards)}):
        pages.update(part)
    out = [None] * len(shards)
    for group in groups:
        mine = [i for i in group if i in local]
        if not mine:
            continue
        home = mesh.devices[mine[0] - first]

        def on_home(i):
            """Shard i's pages, as they are, in a new tensor on `home` (through the host)."""
            t = shards[0]
            copy = Tensor._allocate(home, tuple(t.shape), t.dtype, t.layout, t.memory_config(), what)
            copy._ttl.buffer.write(pages[i])
            return copy

        # The sum in device order, on this rank's first device of the group:
        # every rank adds the same pages in the same order, so all hold the same bits.
        total = shards[group[0] - first] if group[0] == mine[0] else on_home(group[0])
        for i in group[1:]:
            total = add(total, on_home(i), memory_config=memory_config)
        if len(group) == 1:
            total = _copy_to(total, home)
        out[mine[0] - first] = total
        for i in mine[1:]:
            out[i - first] = _copy_to(total, mesh.devices[i - first])
    return Tensor._on_mesh(mesh, out)


