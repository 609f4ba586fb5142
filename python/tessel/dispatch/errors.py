"""The persistent-dispatch errors (tessel.dispatch): one class per row of the
spec's error table, all under DispatchError (also spelled KomorebiError, the
spec's name), itself a tessel.Error.
"""

from ..errors import Error
from ..errors import ProgramError as _TesselProgramError


class DispatchError(Error):
    """Base of every persistent-dispatch error."""


KomorebiError = DispatchError


class CardBusy(DispatchError):
    """Another live process holds the card; `pid` is the holder."""

    def __init__(self, message, pid=None):
        super().__init__(message)
        self.pid = pid


class ProgramError(DispatchError, _TesselProgramError):
    """A kernel did not compile or the launch failed; the message is the build's
    (also a tessel.ProgramError)."""


class KernelSizeError(ProgramError):
    """The program's kernels do not fit the session's kernel buffer; `sizes` is a KernelSizes."""

    def __init__(self, message, sizes=None):
        super().__init__(message)
        if isinstance(sizes, tuple):
            from .program import KernelSizes

            sizes = KernelSizes(*sizes)
        self.sizes = sizes


class KernelInstructionError(ProgramError):
    """A kernel holds an instruction its core lacks; `findings` lists
    (thread, instruction, function, source line) records."""

    def __init__(self, message, findings=()):
        super().__init__(message)
        self.findings = list(findings)


def _result(result):
    if isinstance(result, dict):
        from .run import Result

        return Result(result)
    return result


class StartError(DispatchError):
    """The dispatcher did not start; `result` is the kernel's result block (a Result) when it ran."""

    def __init__(self, message, result=None):
        super().__init__(message)
        self.result = _result(result)


class WaitTimeout(DispatchError):
    """A host-side wait ran out; the run is still loaded. `pending` lists the handles."""

    def __init__(self, message, pending=()):
        super().__init__(message)
        self.pending = list(pending)


class CommandRejected(DispatchError):
    """The kernel consumed a command and ran nothing; the run goes on."""

    def __init__(self, message, handle=None, reason=None, reason_name=None):
        super().__init__(message)
        self.handle = handle
        self.reason = reason
        self.reason_name = reason_name


class CommandTimeout(DispatchError):
    """A group missed its deadline; the grid was stopped and read back."""

    def __init__(self, message, handle=None, slot=None, sequence=None, group=None, cores=()):
        super().__init__(message)
        self.handle = handle
        self.slot = slot
        self.sequence = sequence
        self.group = group
        self.cores = list(cores)


class KernelFailed(DispatchError):
    """The dispatcher or a persistent kernel finished with an error; `result` is its result block."""

    def __init__(self, message, result=None):
        super().__init__(message)
        self.result = _result(result)


class EngineRejected(CommandRejected):
    """The kernel rejected a RUN or CANCEL (four streams or two graphs running
    or kept, no such req, a command after EXIT); `req` is the engine's."""

    def __init__(self, message, handle=None, reason=None, reason_name=None, req=None):
        super().__init__(message, handle, reason, reason_name)
        self.req = req


class EngineError(DispatchError):
    """A stream or graph ended with an error event: `event` (an EngineEvent),
    `handle`, and the event's reason, reason_name, pc and node."""

    def __init__(self, message, event=None, handle=None):
        super().__init__(message)
        if isinstance(event, tuple):
            from .engines.events import EngineEvent

            event = EngineEvent(handle, *event)
        self.event = event
        self.handle = handle
        for name in ("reason", "reason_name", "pc", "node"):
            setattr(self, name, getattr(event, name, None))


class EngineTimeout(WaitTimeout):
    """wait_engine ran out, or a RUN or CANCEL was not answered in time; `handle`
    is the engine's (marked unknown when its RUN was not answered)."""

    def __init__(self, message, handle=None, pending=()):
        super().__init__(message, pending)
        self.handle = handle


class GridTimeout(DispatchError):
    """The grid's kernels did not return within grid_timeout."""


__all__ = [
    "DispatchError",
    "KomorebiError",
    "CardBusy",
    "ProgramError",
    "KernelSizeError",
    "KernelInstructionError",
    "StartError",
    "WaitTimeout",
    "CommandRejected",
    "CommandTimeout",
    "KernelFailed",
    "EngineRejected",
    "EngineError",
    "EngineTimeout",
    "GridTimeout",
]
