"""The device a design runs on: a tessel.Device, or one of IRON's device
names standing for a tessel grid shaped like that device's array.

An IRON device has, per column, a shim tile (row 0), a mem tile (row 1) and
four compute tiles (rows 2 to 5). Its name opens (once per process, then
shared) a tessel device whose grid has the same columns and six rows, so
every Tile(col, row) of the IRON array is a core of the grid; the cores of
rows 0 and 1 serve as the staging cores of split/join/forward links (what
the mem tiles do in IRON). The host ends of fifos use the shim channels of
the column, as everywhere in tessel.iron (docs/iron.md, "Devices").

`NPU1Col1()` ... `NPU2()`, `from_name("npu" | "npu2" | ..., n_cols=)` and
`device_from_args(opts)` name devices; `set_current_device` takes a name or
a tessel.Device, and designs given no device (or `None`) run on it.
"""

import threading

from .placement import AnyComputeTile, AnyMemTile, AnyShimTile, Tile  # noqa: F401

__all__ = ["NPU1", "NPU1Col1", "NPU1Col2", "NPU1Col3", "NPU1Col4", "NPU2", "NPU2Col1", "NPU2Col2", "NPU2Col3",
           "NPU2Col4", "NPU2Col5", "NPU2Col6", "NPU2Col7", "XCVC1902", "Device", "from_name", "device_from_args",
           "close_named_devices", "get_current_device", "set_current_device", "Tile", "AnyComputeTile", "AnyMemTile",
           "AnyShimTile"]

ROWS = 6
"""Rows of the grid an IRON device name opens: shim, mem tile and four compute rows."""

_lock = threading.Lock()
_current = None  # a tessel.Device or a Device name; None: Blackhole, full grid
_opened = {}  # grid -> the tessel.Device opened for it


class Device:
    """An IRON device name: `cols` columns of the array (each with a shim,
    a mem tile and `compute_rows` compute tiles). `grid` is the tessel grid
    it runs on."""

    cols = 4
    compute_rows = 4
    generation = "npu1"
    arch = "aie2"  # the core architecture IRON compiles for: aie2 (NPU1), aie2p (NPU2), aie1

    def __init__(self, *args, **kwargs):
        pass  # IRON's constructors take no arguments that matter here

    @property
    def grid(self) -> tuple:
        return (self.cols, ROWS)

    @property
    def rows(self) -> int:
        return ROWS

    def __eq__(self, other):
        return type(self) is type(other)

    def __hash__(self):
        return hash(type(self))

    def __repr__(self):
        return type(self).__name__ + "()"


_ARCH = {"npu1": "aie2", "npu2": "aie2p", "aie1": "aie1"}


def _device(name, cols, generation, doc):
    return type(name, (Device,), {"cols": cols, "generation": generation, "arch": _ARCH[generation], "__doc__": doc,
                                  "__module__": __name__})


NPU1 = _device("NPU1", 4, "npu1", "Ryzen AI NPU (AIE2, Phoenix/Hawk Point): 4 columns.")
NPU1Col1 = _device("NPU1Col1", 1, "npu1", "One column of NPU1.")
NPU1Col2 = _device("NPU1Col2", 2, "npu1", "Two columns of NPU1.")
NPU1Col3 = _device("NPU1Col3", 3, "npu1", "Three columns of NPU1.")
NPU1Col4 = _device("NPU1Col4", 4, "npu1", "Four columns of NPU1 (the whole array).")
NPU2 = _device("NPU2", 8, "npu2", "Ryzen AI NPU (AIE2P, Strix/Krackan): 8 columns.")
NPU2Col1 = _device("NPU2Col1", 1, "npu2", "One column of NPU2.")
NPU2Col2 = _device("NPU2Col2", 2, "npu2", "Two columns of NPU2.")
NPU2Col3 = _device("NPU2Col3", 3, "npu2", "Three columns of NPU2.")
NPU2Col4 = _device("NPU2Col4", 4, "npu2", "Four columns of NPU2.")
NPU2Col5 = _device("NPU2Col5", 5, "npu2", "Five columns of NPU2.")
NPU2Col6 = _device("NPU2Col6", 6, "npu2", "Six columns of NPU2.")
NPU2Col7 = _device("NPU2Col7", 7, "npu2", "Seven columns of NPU2.")
# VCK5000's AIE1 array is 50 columns of 8 compute rows; tessel maps it to the
# largest grid it opens by name, 8 columns (a note in docs/iron.md).
XCVC1902 = _device("XCVC1902", 8, "aie1", "Versal VC1902 (AIE1), mapped to an 8-column grid.")

_BY_NAME = {
    "npu": (NPU1Col1, NPU1Col2, NPU1Col3, NPU1),
    "npu1": (NPU1Col1, NPU1Col2, NPU1Col3, NPU1),
    "npu2": (NPU2Col1, NPU2Col2, NPU2Col3, NPU2Col4, NPU2Col5, NPU2Col6, NPU2Col7, NPU2),
    "xcvc1902": (XCVC1902,),
}


def from_name(name, n_cols=None):
    """The device IRON names `name` ("npu", "npu1", "npu2", "xcvc1902"),
    `n_cols` columns wide (None: the whole array)."""
    family = _BY_NAME.get(str(name).lower())
    if family is None:
        raise ValueError(f"unknown device name {name!r}: tessel.iron knows {', '.join(sorted(_BY_NAME))}")
    if n_cols is None:
        return family[-1]()
    for cls in family:
        if cls.cols == n_cols:
            return cls()
    widths = ", ".join(str(c.cols) for c in family)
    raise ValueError(f"device {name!r} has no {n_cols}-column form (columns: {widths})")


def device_from_args(args, *, dev_attr="dev", n_cols="auto"):
    """The device of a parsed command line: from_name(args.<dev_attr>, n_cols),
    n_cols "auto" meaning args.n_cols if present, else one column."""
    if n_cols == "auto":
        n_cols = getattr(args, "n_cols", None) or 1
    elif isinstance(n_cols, str):
        raise ValueError(f"n_cols must be an int, None or 'auto', got {n_cols!r}")
    return from_name(getattr(args, dev_attr), n_cols=n_cols)


def _open(grid):
    import tessel

    d = _opened.get(grid)
    if d is None or not d.is_open:
        d = tessel.Device.open(grid=grid)
        _opened[grid] = d
    return d


def get_current_device():
    """The device designs without one run on: the IRON device last given to
    set_current_device (NPU2() ... : it has `cols` and `rows`), else the
    tessel.Device given there, else Blackhole's full grid, opened on first
    use."""
    global _current
    import tessel

    with _lock:
        if isinstance(_current, Device):
            return _current
        if _current is None or not _current.is_open:
            _current = tessel.Device.open()
        return _current


def current_iron_device():
    """The IRON device (NPU2() ...) last made current, or None (a
    tessel.Device, or none yet); opens nothing."""
    with _lock:
        return _current if isinstance(_current, Device) else None


def close_named_devices():
    """Close the tessel devices IRON device names opened (the next use opens
    them again) and forget the current device; a process running designs
    needs none of this, a test suite sharing one process with other
    devices does. The designs test programs loaded from records
    (design_record.load) are forgotten too."""
    from . import design_record

    global _current
    design_record.forget()
    with _lock:
        for d in _opened.values():
            if d.is_open:
                d.close()
        _opened.clear()
        _current = None


def _current_tessel():
    current = get_current_device()
    if isinstance(current, Device):
        with _lock:
            return _open(current.grid)
    return current


def set_current_device(device):
    """Make `device` (a tessel.Device or an IRON device such as NPU2())
    the one designs given no device run on."""
    import tessel

    global _current
    if isinstance(device, type) and issubclass(device, Device):
        device = device()
    if not isinstance(device, (tessel.Device, Device)):
        raise TypeError(f"set_current_device takes a tessel.Device or an IRON device (NPU1Col1(), NPU2(), ...), "
                        f"got {device!r}")
    with _lock:
        _current = device


def resolve(device):
    """The tessel.Device a design given `device` runs on."""
    import tessel

    if device is None:
        return _current_tessel()
    if isinstance(device, type) and issubclass(device, Device):
        device = device()
    if isinstance(device, Device):
        with _lock:
            return _open(device.grid)
    if isinstance(device, tessel.Device):
        return device
    raise TypeError(f"Program: device must be a tessel.Device (or an IRON device name such as NPU2()), got {device!r}")
