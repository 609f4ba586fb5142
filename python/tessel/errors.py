"""tessel's one exception hierarchy: a Python class for every C++ tessel::Error.

Messages are the C++ messages unchanged: what was wrong, where (core, RISC,
kernel file:line, CB, address) and what was expected.
"""


class Error(Exception):
    """Base of every error tessel raises."""


class ValidationError(Error, ValueError):
    """Invalid input to a host call, found before anything was changed."""


class ProgramError(Error):
    """A kernel failed to compile or load (the message carries the compiler output)."""


class OutOfMemoryError(Error):
    """An allocation did not fit in DRAM or L1."""


class FlowError(Error):
    """A runtime sequence that cannot go on (tessel.iron): descriptors
    exhausted, a task never freed, a grid left unfinished at the end of a call."""


class DeadlockError(Error):
    """No simulated RISC could make progress; the message is the per-RISC report."""


class KernelError(Error):
    """A kernel broke a device rule at run time (CB protocol, NoC bounds, ...)."""


class KernelFault(Error):
    """A kernel crashed or made no progress for the watchdog's time."""


class Interrupted(Error):
    """A run stopped by tessel.request_interrupt(); Ctrl-C raises KeyboardInterrupt instead."""


class TesselWarning(UserWarning):
    """What silicon runs but is a likely bug (docs/guide.md, "Debugging");
    TESSEL_STRICT=1 makes each an error."""


def warn(message, category=TesselWarning, stacklevel=3):
    """Warn of a likely bug, or raise ValidationError under TESSEL_STRICT=1."""
    import os
    import warnings

    if os.environ.get("TESSEL_STRICT", "") == "1":
        raise ValidationError(message + " (TESSEL_STRICT=1 makes this an error)")
    warnings.warn(message, category, stacklevel=stacklevel)


__all__ = [
    "Error",
    "ValidationError",
    "ProgramError",
    "OutOfMemoryError",
    "FlowError",
    "DeadlockError",
    "KernelError",
    "KernelFault",
    "Interrupted",
    "TesselWarning",
]
