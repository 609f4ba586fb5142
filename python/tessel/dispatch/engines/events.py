"""What the engines give back: Upload, EngineHandle, EngineEvent and
HostfedResult (the spec's fields), over the native run's records."""

from .ops import ERROR_NAMES

__all__ = ["Upload", "EngineHandle", "EngineEvent", "HostfedResult", "HostfedCommand"]


class EngineEvent:
    """EngineEvent(handle, kind, value, registers, reason, reason_name, pc, node).

    kind is "event" (a stream's EVENT: value is the register), "round" (a
    graph's round ended and another starts: value is the rounds done), "end"
    (HALT or a graph's last round: a stream's value is the halt register, a
    graph's registers are register 0's low 24 bits and register 1) or
    "error" (reason, reason_name, the stream's pc or the graph's node)."""

    __slots__ = ("handle", "kind", "value", "registers", "reason", "reason_name", "pc", "node")

    def __init__(self, handle, kind, value, registers, reason, reason_name, pc, node):
        self.handle, self.kind, self.value = handle, kind, value
        self.registers = tuple(registers)
        self.reason = reason if kind == "error" else None
        # The KM_STREAM_ERROR_* name in lower case, read from the header.
        self.reason_name = ERROR_NAMES.get(reason, reason_name) if kind == "error" else None
        self.pc, self.node = pc, node

    def __eq__(self, other):
        same = ("kind", "value", "registers", "reason", "reason_name", "pc", "node")
        return isinstance(other, EngineEvent) and all(getattr(self, s) == getattr(other, s) for s in same)

    def __repr__(self):
        if self.kind == "error":
            where = f", pc={self.pc}" if self.pc is not None else f", node={self.node}" if self.node is not None else ""
            return f"EngineEvent(kind='error', reason={self.reason}, reason_name={self.reason_name!r}{where})"
        if self.kind == "end":
            return f"EngineEvent(kind='end', value={self.value}, registers={self.registers})"
        return f"EngineEvent(kind={self.kind!r}, value={self.value})"


class Upload:
    """An upload in the region: offset, bytes, kind, req, keep, state
    ("loaded", "running", "kept", "released"), and source (the Stream or
    Graph it was encoded from, or None for raw bytes)."""

    __slots__ = ("_native", "source")

    def __init__(self, native, source=None):
        self._native = native
        self.source = source

    offset = property(lambda self: self._native.offset)
    bytes = property(lambda self: self._native.bytes)
    kind = property(lambda self: self._native.kind)
    req = property(lambda self: self._native.req)
    keep = property(lambda self: self._native.keep)
    state = property(lambda self: self._native.state)

    def __repr__(self):
        return (f"Upload(offset={self.offset}, bytes={self.bytes}, kind={self.kind!r}, req={self.req}, "
                f"keep={self.keep}, state={self.state!r})")


class EngineHandle:
    """A started stream or graph: kind, req, upload, events (every event so
    far), end (its end or error event, None before it) and unknown (its RUN
    was not answered in time: cancel or stop settles it)."""

    def __init__(self, native, upload):
        self._native = native
        self.upload = upload
        self._events = []

    kind = property(lambda self: self._native.kind)
    req = property(lambda self: self._native.req)
    unknown = property(lambda self: self._native.unknown)

    @property
    def events(self):
        if self._native.count() > len(self._events):
            self._events += [EngineEvent(self, *t) for t in self._native.events(len(self._events))]
        return list(self._events)

    @property
    def end(self):
        t = self._native.end()
        return None if t is None else self.events[-1]

    def __repr__(self):
        state = "unknown" if self.unknown else "running" if self.end is None else self.end.kind
        return f"EngineHandle(kind={self.kind!r}, req={self.req}, {state}, events={self._native.count()})"


class HostfedCommand:
    """One command a host-fed engine sent: node (the graph's node, or the
    stream's pc of the SUBMIT or ENQUEUE), handler, group, args, handle, result."""

    __slots__ = ("node", "handler", "group", "args", "handle", "result")

    def __init__(self, d):
        for k in self.__slots__:
            setattr(self, k, d[k])
        self.group = tuple(self.group)
        self.args = list(self.args)

    def __repr__(self):
        return f"HostfedCommand(node={self.node}, handler={self.handler}, group={self.group}, args={self.args})"


class HostfedResult:
    """HostfedResult(status, error, registers, runs, commands, events): status
    "end" or "error", error the reason_name (None for an end), the 16
    registers, the rounds run (a stream: 1), the commands sent in order and
    the events the engine posted."""

    __slots__ = ("status", "error", "registers", "runs", "commands", "events")

    def __init__(self, d):
        self.status, self.error, self.runs = d["status"], d["error"], d["runs"]
        self.registers = list(d["registers"])
        self.commands = [HostfedCommand(c) for c in d["commands"]]
        self.events = [EngineEvent(None, *t) for t in d["events"]]

    def __repr__(self):
        return (f"HostfedResult(status={self.status!r}, error={self.error!r}, runs={self.runs}, "
                f"commands={len(self.commands)}, events={len(self.events)})")
