"""Errors of tessel.iron at resolve time (what IRON raises as IronRuntimeError);
errors while a design runs are tessel's own (FlowError, DeadlockError, ...)."""

from ..errors import DeadlockError, Error, FlowError  # noqa: F401


class IronRuntimeError(Error, RuntimeError):
    """A design that cannot be resolved: a rule of the sequence or of a
    worker broken, named with the line of the sequence body or core_fn."""


class RaceWarning(UserWarning):
    """A likely bug silicon may run correctly: an un-awaited task no awaited
    task of its group depends on (the spec's race rule), or a worker reading
    a runtime parameter the sequence writes with no WorkerRuntimeBarrier
    between them (the runtime-parameter window)."""


class FlowWarning(UserWarning):
    """A call silicon ends normally that leaves the grid otherwise than it
    found it: objects filled and never taken (a worker that produces more than
    the sequence drains), objects held, descriptors never freed. The next
    call starts from that state."""


def strict_mode():
    import os

    return os.environ.get("TESSEL_STRICT", "") == "1"


def warn_or_raise(message, site, category=RaceWarning):
    """A warning at site (file, line), or with TESSEL_STRICT=1 an
    IronRuntimeError (design §8)."""
    import warnings

    if strict_mode():
        raise IronRuntimeError(message + " (TESSEL_STRICT=1 makes this an error)")
    warnings.warn_explicit(message, category, site[0], site[1])
