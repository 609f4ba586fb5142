"""The device a design runs on: a tessel.Device. IRON's device names (NPU1,
NPU2, ...) are accepted and stand for the current tessel device. Tile and the
AnyComputeTile / AnyMemTile / AnyShimTile placeholders import from here too,
as in IRON (aie.iron.device)."""

import threading

from .placement import AnyComputeTile, AnyMemTile, AnyShimTile, Tile  # noqa: F401

_lock = threading.Lock()
_current = None


class _NpuName:
    def __init__(self, *args, **kwargs):
        pass

    def __repr__(self):
        return type(self).__name__ + "()"


class NPU1(_NpuName):
    pass


class NPU1Col1(_NpuName):
    pass


class NPU2(_NpuName):
    pass


class NPU2Col1(_NpuName):
    pass


def get_current_device():
    """The tessel.Device designs run on (opened on first use: Blackhole, full grid)."""
    global _current
    import tessel

    with _lock:
        if _current is None or not _current.is_open:
            _current = tessel.Device.open()
        return _current


def set_current_device(device):
    import tessel

    global _current
    if not isinstance(device, tessel.Device):
        raise TypeError(f"set_current_device takes a tessel.Device, got {device!r}")
    with _lock:
        _current = device


def resolve(device):
    import tessel

    if device is None or isinstance(device, _NpuName):
        return get_current_device()
    if isinstance(device, tessel.Device):
        return device
    raise TypeError(f"Program: device must be a tessel.Device (or an IRON device name such as NPU2()), got {device!r}")
