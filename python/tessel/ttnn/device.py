"""ttnn devices: open_device / close_device over tessel.Device.

    device = ttnn.open_device(device_id=0)
    grid = device.compute_with_storage_grid_size()   # CoreCoord(x, y)
    ttnn.close_device(device)

A ttnn.Device is one simulated tessel.Device (`device.tessel_device`),
opened with what tessel.ttl.settings says (arch, grid, policy, trace,
timing: the options of `python -m tessel.ttlang`). The device keeps the
programs ttnn's operations built on it, and drops them when it closes.
"""

import collections
import enum
import os
import sys
import weakref

from .. import _check
from ..core import CoreCoord
from ..device import BufferType
from ..device import Device as TesselDevice
from ..ttl.settings import settings
from .memory import CoreGrid

__all__ = ["Arch", "Device", "close_device", "open_device", "synchronize_device"]

PROGRAM_CACHE_SIZE = 32
"""Programs of ttnn operations a device keeps (least recently used dropped first)."""


class Arch(enum.Enum):
    """The device's architecture (ttnn.device.Arch)."""

    WORMHOLE_B0 = "wormhole_b0"
    BLACKHOLE = "blackhole"

    def __repr__(self):
        return f"Arch.{self.name}"


# The devices open now (single devices and a mesh's), for host tensors that an operation puts on a device.
_OPEN = weakref.WeakSet()


def open_devices():
    """The ttnn devices open now."""
    return [d for d in _OPEN if d.is_open]


class Device:
    """A simulated device that ttnn tensors live on. Made by
    ttnn.open_device (or a mesh device, one per position)."""

    def __init__(self, *args, **kwargs):
        raise TypeError("use ttnn.open_device(device_id=0) to open a device")

    @classmethod
    def _open(cls, device_id, trace):
        options = {}
        if settings.arch is not None:
            options["arch"] = settings.arch
        if settings.policy is not None:
            options["policy"] = settings.policy
        self = object.__new__(cls)
        self._device = TesselDevice.open(grid=settings.grid, trace=trace, timing=True if settings.timing else None,
                                         profiler=True if settings.profile else None, **options)
        self._id = device_id
        self._programs = collections.OrderedDict()
        _OPEN.add(self)
        return self

    @property
    def tessel_device(self) -> TesselDevice:
        """The tessel.Device this device is."""
        return self._device

    def id(self) -> int:
        return self._id

    def arch(self) -> Arch:
        return Arch(self._device.arch)

    def compute_with_storage_grid_size(self) -> CoreCoord:
        """The worker grid (x columns, y rows)."""
        return self._device.grid

    @property
    def core_grid(self) -> CoreGrid:
        g = self._device.grid
        return CoreGrid(y=g.y, x=g.x)

    def get_max_worker_l1_unreserved_size(self) -> int:
        """Bytes of a worker core's L1 that programs may use (the allocator's range)."""
        stats = self._device.memory_statistics(BufferType.L1)
        return stats.end - stats.begin

    def num_dram_channels(self) -> int:
        return self._device.dram_banks

    def dram_size_per_channel(self) -> int:
        return self._device.dram_bank_size

    def l1_size_per_core(self) -> int:
        return self._device.l1_size

    def get_num_devices(self) -> int:
        return 1

    @property
    def is_open(self) -> bool:
        return self._device.is_open

    def close(self):
        self._programs.clear()
        if self._device.is_open:
            self._device.close()

    def _check_open(self, what):
        if not self._device.is_open:
            raise ValueError(f"{what}: device {self._id} is closed")

    # ttnn's operations keep their programs here, keyed by what the kernels depend on.
    def _program(self, key):
        plan = self._programs.get(key)
        if plan is not None:
            self._programs.move_to_end(key)
        return plan

    def _keep_program(self, key, plan):
        self._programs[key] = plan
        while len(self._programs) > PROGRAM_CACHE_SIZE:
            self._programs.popitem(last=False)

    def _report_timing(self, name):
        """Print the last program's cycle estimate when settings.timing is on."""
        if settings.timing and self._device.timing:
            t = self._device.last_run_timing()
            print(f"[tessel] {name} on device {self._id}: {t.device_cycles} cycles "
                  f"({t.device_us:.1f} us at {t.clock_mhz:g} MHz)", file=sys.stderr)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        state = "" if self._device.is_open else " closed"
        g = self._device.grid if self._device.is_open else None
        grid = f" {g.x}x{g.y}" if g is not None else ""
        return f"<ttnn.Device id={self._id}{grid}{state}>"


def trace_path(device_id, count):
    """The trace file device `device_id` of `count` writes: settings.trace
    itself for one device, `<stem>.device<id><suffix>` for each device of a mesh."""
    if settings.trace is None:
        return None
    if count == 1:
        return settings.trace
    stem, suffix = os.path.splitext(os.fspath(settings.trace))
    return f"{stem}.device{device_id}{suffix}"


def open_device(device_id=0, l1_small_size=None, trace_region_size=None, dispatch_core_config=None,
                worker_l1_size=None) -> Device:
    """Open simulated device `device_id` with tessel.ttl.settings' arch,
    grid, policy, trace and timing. The sizes and the dispatch core config
    are accepted and ignored (tessel reserves no L1 for them)."""
    device_id = _check.integer(device_id, "ttnn.open_device: device_id", 0, 0xFFFF, "a device id")
    from .mesh import num_devices

    available = num_devices()
    if device_id >= available:
        raise ValueError(f"ttnn.open_device: device_id {device_id} is not a device: the machine has {available} "
                         f"(ids 0..{available - 1}; TESSEL_MESH or --num-devices sets the count)")
    return Device._open(device_id, trace_path(device_id, 1))


def close_device(device) -> None:
    """Close a device (or a mesh device: every device in it); its tensors
    can no longer be read."""
    from .mesh import MeshDevice

    if isinstance(device, MeshDevice):
        device.close()
        return
    if not isinstance(device, Device):
        raise TypeError(f"ttnn.close_device: device must be a ttnn.Device or ttnn.MeshDevice, got "
                        f"{_check.describe(device)}")
    device.close()


def synchronize_device(device, cq_id=None, sub_device_ids=None) -> None:
    """Wait until everything enqueued on the device has run. tessel's ttnn
    runs each operation to completion, so this only checks the device."""
    from .mesh import MeshDevice

    devices = device.devices if isinstance(device, MeshDevice) else [device]
    for d in devices:
        if not isinstance(d, Device):
            raise TypeError(f"ttnn.synchronize_device: device must be a ttnn.Device or ttnn.MeshDevice, got "
                            f"{_check.describe(device)}")
        d._check_open("ttnn.synchronize_device")
        d._device.command_queue.finish()
