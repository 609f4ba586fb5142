"""IRON's `aie.utils.compile` as designs use it: `resolve_target_arch(device)`
and the jit markers (In, Out, InOut, CompileTime, DispatchTime; also under
`aie.utils.compile.jit.markers`). tessel compiles nothing ahead of time:
kernels are built when a design loads (docs/iron.md)."""

from ...device import Device, get_current_device
from ...markers import Compile, CompileTime, DispatchTime, In, InOut, Out

__all__ = ["resolve_target_arch", "Compile", "CompileTime", "DispatchTime", "In", "InOut", "Out"]


def resolve_target_arch(device=None):
    """"aie2" for NPU1 devices (and for None, as IRON answers), "aie2p" for
    NPU2 devices, "aie1" for XCVC1902."""
    if device is None:
        return "aie2"
    if isinstance(device, type) and issubclass(device, Device):
        device = device()
    if not isinstance(device, Device):
        raise TypeError(f"resolve_target_arch: takes an IRON device (NPU1Col1(), NPU2(), ...), got {device!r}")
    return device.arch
