"""The Run's engine calls (spec: Engines: uploads, start, events): upload,
release, start, restart, cancel, wait_engine and run_hostfed, over the
native run. Mixed into Run."""

from collections.abc import Mapping

from .. import _check
from .engines.events import EngineHandle, HostfedResult, Upload
from ..errors import ValidationError
from .errors import EngineError, EngineTimeout

__all__ = ["EngineCalls"]

_KINDS = ("stream", "graph")



def _encoded(engine, kind, what):
    from .engines.graph import Graph
    from .engines.stream import Stream

    if isinstance(engine, (Stream, Graph)):
        if kind is not None and kind != engine.kind:
            raise ValueError(f"{what}: kind {kind!r} given for a {engine.kind}")
        return engine.encode(), engine.kind, engine
    if isinstance(engine, (bytes, bytearray, memoryview)):
        if kind not in _KINDS:
            raise ValueError(f"{what}: encoded bytes need kind='stream' or kind='graph', got {kind!r}")
        return bytes(engine), kind, None
    raise TypeError(f"{what}: expected a Stream, a Graph or encoded bytes, got {_check.describe(engine)}")


def _binding_words(bindings, graph, what):
    if bindings is None:
        return []
    if isinstance(bindings, Mapping):
        from .engines.graph import Graph

        if not isinstance(graph, Graph):
            raise ValueError(f"{what}: bindings by name need an upload of a Graph; give a list of up to 16 words")
        return graph.binding_values(bindings)
    if isinstance(bindings, (str, bytes)) or not hasattr(bindings, "__iter__"):
        raise TypeError(f"{what}: bindings must be a dict by name or a list of words, got "
                        f"{_check.describe(bindings)}")
    words = [_check.word(b, f"{what}: bindings[{i}]") for i, b in enumerate(bindings)]
    if len(words) > 16:
        raise ValueError(f"{what}: {len(words)} binding words: at most 16 (one line)")
    return words


class EngineCalls:
    """Run's engine calls (see tessel.dispatch.engines)."""

    def _engine_state(self):
        if not hasattr(self, "_uploads"):
            self._uploads = []
        return self._uploads

    def upload(self, stream_or_graph, kind=None):
        """Encode a Stream or a Graph (or take its encoded bytes, with kind) and
        write it into the upload region as whole lines at the first free place.
        ValueError, before anything is written, when it does not fit."""
        data, kind, source = _encoded(stream_or_graph, kind, "Run.upload")
        native_graph = source._native if source is not None and kind == "graph" else None
        up = Upload(self._native.upload(data, kind, native_graph), source)
        uploads = self._engine_state()
        uploads[:] = [u for u in uploads if u.state != "released"] + [up]
        return up

    def _upload_arg(self, upload, what):
        if not isinstance(upload, Upload):
            raise TypeError(f"{what}: expected an Upload (Run.upload), got {_check.describe(upload)}")
        return upload

    def release(self, upload, timeout=10.0):
        """Free an upload's lines; a kept graph is dropped first (CANCEL and its cancelled event)."""
        self._native.release(self._upload_arg(upload, "Run.release")._native, _check.timeout(timeout, "Run.release"))

    def start(self, upload, bindings=(), kept=None, timeout=10.0):
        """Send KM_HANDLER_RUN (and a PING behind it); returns an EngineHandle.
        bindings: a dict by name (an upload of a Graph) or up to 16 words;
        kept=True/False rewrites the header's keep bit first."""
        upload = self._upload_arg(upload, "Run.start")
        words = _binding_words(bindings, upload.source, "Run.start")
        if kept is not None:
            _check.flag(kept, "Run.start: kept")
        return self._engine_call(lambda: self._native.start(upload._native, words, kept,
                                                            _check.timeout(timeout, "Run.start")), upload)

    def restart(self, req, bindings=(), timeout=10.0):
        """Run the kept graph with req again with new bindings (KM_HANDLER_RUN, a2 = 2)."""
        req = _check.integer(req, "Run.restart: req", 1, 255)
        kept = [u for u in self._engine_state() if u.req == req and u.state == "kept"]
        if not kept:
            raise ValidationError(f"Run.restart: no kept graph has req {req} (a graph is kept after its end when it "
                                  f"was uploaded or started with keep)")
        source = kept[0].source
        words = _binding_words(bindings, source, "Run.restart")
        return self._engine_call(lambda: self._native.restart(req, words, _check.timeout(timeout, "Run.restart")),
                                 kept[0] if kept else None)

    def _engine_call(self, call, upload):
        try:
            native = call()
        except EngineTimeout as e:
            if e.handle is not None and not isinstance(e.handle, EngineHandle):
                e.handle = EngineHandle(e.handle, upload)
            raise
        return EngineHandle(native, upload)

    def _handle_arg(self, handle, what):
        if not isinstance(handle, EngineHandle):
            raise TypeError(f"{what}: expected an EngineHandle (Run.start), got {_check.describe(handle)}")
        return handle

    def cancel(self, handle, timeout=10.0):
        """Send KM_HANDLER_CANCEL (nothing for an engine that has ended): it ends
        with its cancelled error event. For an unknown handle, also learns the
        RUN's answer (EngineRejected if it was rejected)."""
        self._native.cancel(self._handle_arg(handle, "Run.cancel")._native, _check.timeout(timeout, "Run.cancel"))

    def wait_engine(self, handle, timeout=10.0):
        """Wait for the engine's end; returns its EngineEvent. EngineError for an
        error event, EngineTimeout when timeout passes, KernelFailed if the kernel finished."""
        handle = self._handle_arg(handle, "Run.wait_engine")
        try:
            self._native.wait_engine(handle._native, _check.timeout(timeout, "Run.wait_engine"))
        except EngineError as e:
            e.handle = handle
            e.event = handle.end
            raise
        except EngineTimeout as e:
            e.handle = handle
            raise
        return handle.end

    def run_hostfed(self, graph_or_stream, bindings=None, timeout=10.0):
        """Run a graph or a stream on the host instead: the same commands and
        registers, its commands through this run's host ring. Returns a HostfedResult."""
        data, kind, source = _encoded(graph_or_stream, None if not isinstance(
            graph_or_stream, (bytes, bytearray, memoryview)) else "stream", "Run.run_hostfed")
        from .engines.graph import Graph

        timeout = _check.timeout(timeout, "Run.run_hostfed")
        if bindings is None and isinstance(source, Graph):
            bindings = {}  # its constants; a named binding without a value raises
        words = _binding_words(bindings, source, "Run.run_hostfed")
        return HostfedResult(self._native.run_hostfed(data, words, timeout))

    @property
    def upload_region(self):
        """Bytes of the upload region (0 for a program with an X280 thread)."""
        return self._native.upload_region_bytes()

    def uploads(self):
        """The uploads not released, in the order they were made."""
        return [u for u in self._engine_state() if u.state != "released"]

