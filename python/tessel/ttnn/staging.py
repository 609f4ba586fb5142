"""Host tensors given to a tessel.ttl operation: TT-Lang programs may pass
tensors made without a device (ttnn.rand(shape), ttnn.empty(shape)); the
operation runs on device copies of them, and what it wrote is copied back
into the host tensors, as the operation writes its tensors in place. The
device is the one the other tensors are on, else the one open device, else
device 0, opened for these programs and kept open until the process ends
(programs written for TT-Lang's simulator never open one).

    args, written_back = stage(args, "operation 'op'")
    op(*args)
    written_back()
"""

__all__ = ["close_default_device", "device_for_host_tensors", "stage"]


def stage(args, what):
    """(args with host ttnn tensors replaced by device copies, a function that
    copies the device values back into those host tensors). The device is the
    one the other tensors are on, or the one open device."""
    # Imported here: tessel.ttl imports this module while tessel.ttnn may still be loading.
    from .tensor import Tensor

    hosts = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a._host is not None]
    if not hosts:
        return args, lambda written=None: None
    devices = {id(a._device): a._device for a in args if isinstance(a, Tensor) and a._device is not None}
    if len(devices) > 1:
        return args, lambda written=None: None  # the operation reports tensors on several devices
    if not devices:
        if any(isinstance(a, Tensor) and a._shards is not None for a in args):
            raise TypeError(f"{what}: host tensors and mesh tensors together; put the host tensors on the mesh "
                            "(ttnn.from_torch(..., device=mesh))")
        devices = {0: device_for_host_tensors(what)}
    (device,) = devices.values()
    from .creation import to_device

    staged, copies = list(args), {}
    for i in hosts:
        # One device copy per host tensor, however many parameters it is passed as.
        if id(args[i]) not in copies:
            copies[id(args[i])] = (args[i], to_device(args[i], device))
        staged[i] = copies[id(args[i])][1]

    def written_back(written=None):
        """Copy the device values back into the host tensors the operation may
        have written (written: the parameter indices it writes; None: all)."""
        for host, copy in copies.values():
            if written is None or any(staged[i] is copy for i in written):
                host._host = copy._values()

    return tuple(staged), written_back


_DEFAULT = []


def device_for_host_tensors(what):
    """The device a program's host tensors (or an operation with no tensors)
    run on: the one open ttnn device, else device 0, opened for it."""
    from .device import open_devices

    open_now = open_devices()
    if len(open_now) > 1:
        raise TypeError(f"{what}: every tensor is on the host and {len(open_now)} devices are open; put the "
                        "tensors on the device the operation should run on (ttnn.from_torch(..., device=...))")
    return open_now[0] if open_now else _default_device()


def _default_device():
    """Device 0, opened the first time a program without a device runs an operation."""
    if not _DEFAULT or not _DEFAULT[0].is_open:
        from .device import open_device

        _DEFAULT[:] = [open_device(0)]
    return _DEFAULT[0]


def close_default_device():
    """Close device 0 if an operation opened it for host tensors."""
    if _DEFAULT and _DEFAULT[0].is_open:
        _DEFAULT[0].close()
    _DEFAULT.clear()
