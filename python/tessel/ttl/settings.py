"""What the programs tessel.ttl and tessel.ttnn run are run with: the
options of `python -m tessel.ttlang` (tessel/ttlang/__main__.py), or set by
hand before a program opens its device.

    from tessel.ttl.settings import settings
    settings.keep_kernels = "generated/"   # write every generated kernel there

One process-wide object; ttnn.open_device reads arch, grid, policy, trace,
timing and profile when it opens a device (ttnn.open_mesh_device too, and
num_devices, the devices the machine has), the DSL compiler reads
keep_kernels when it generates a kernel.
"""

from dataclasses import dataclass

__all__ = ["Settings", "settings"]


@dataclass
class Settings:
    arch: "str | None" = None  # 'blackhole' or 'wormhole_b0' (None: tessel.Device.open's default)
    grid: "tuple | None" = None  # the worker grid (x, y) devices open with (None: the arch's full grid)
    policy: "str | None" = None  # the scheduling policy devices open with (None: deterministic)
    trace: "str | None" = None  # a Perfetto trace file devices write (None: none)
    timing: bool = False  # print each operation's cycle estimate
    profile: bool = False  # record the device profiler's zones and print each operation's (ttl.signpost)
    keep_kernels: "str | None" = None  # a directory every generated kernel's C++ is written to
    num_devices: "int | None" = None  # the devices the machine has (None: TESSEL_MESH's, else 8)


settings = Settings()
