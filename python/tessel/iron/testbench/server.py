"""The design server behind tessel's XRT for C++ testbenches:
`python -m tessel.iron.testbench.server FD`, started by the testbench's
first xrt::kernel (include/tessel/xrt_link.h holds the protocol).

It binds IRON's modules to tessel's as `python -m tessel.iron.run` does,
then answers requests on the socket FD until the testbench closes it:
- load: the design the xclbin path stands for (design_record.load; replayed
  once per process);
- run: that design once, with the buffers whose memfds ride on the request
  as its host buffers, in order. A buffer larger than the design's is used
  up to the design's size (a DMA moves what the sequence says); one too
  small is an error naming it, as bind_buffers words it.
Errors go back as the reply's message; a design's own traceback (its
replay failed) is printed on stderr first.
"""

import json
import mmap
import os
import socket
import struct
import sys
import traceback

import numpy as np

from .. import design_record
from ..errors import IronRuntimeError
from ..run import aliases, start_device
from ..utils.hostruntime import DEFAULT_IRON_RUNTIME

_HEADER = struct.Struct("=I")
_MAX_FDS = 64


def _recv_exact(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def _request(sock):
    """(request dict, fds), or None once the testbench closed the socket."""
    head, fds, _, _ = socket.recv_fds(sock, _HEADER.size, _MAX_FDS)
    if not head:
        return None
    head += _recv_exact(sock, _HEADER.size - len(head))
    (n,) = _HEADER.unpack(head)
    return json.loads(_recv_exact(sock, n)), fds


def _reply(sock, body):
    data = json.dumps(body).encode()
    sock.sendall(_HEADER.pack(len(data)) + data)


def _map(fd, size_bytes):
    """A writable uint8 view of a testbench buffer, and the mapping to close."""
    if size_bytes == 0:
        return np.zeros(0, dtype=np.uint8), None
    m = mmap.mmap(fd, size_bytes, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    return np.frombuffer(m, dtype=np.uint8), m


def _fit(design, arrays):
    """Buffers larger than the design's host buffers, cut to them."""
    layout = getattr(design, "buffer_layout", None) or []
    out = list(arrays)
    for i, (count, dtype) in enumerate(layout[:len(out)]):
        need = count * dtype.itemsize
        if out[i].nbytes > need:
            out[i] = out[i][:need]
    return out


def run_once(xclbin, fds, sizes):
    """Run the design `xclbin` stands for with the testbench's buffers; its time in ns."""
    design = design_record.load(xclbin)
    maps, arrays = [], []
    try:
        for fd, size in zip(fds, sizes):
            a, m = _map(fd, int(size))
            arrays.append(a)
            maps.append(m)
        return DEFAULT_IRON_RUNTIME.run(design, _fit(design, arrays)).npu_time
    finally:
        del arrays
        for m in maps:
            if m is not None:
                try:
                    m.close()
                except BufferError:  # a view outlived the run (an error's traceback): the GC unmaps it
                    pass


def _message(e, xclbin, doing):
    return f"tessel: {doing} the design {xclbin} stands for: {type(e).__name__}: {e}"


def handle(req, fds):
    op, xclbin = req.get("op"), req.get("xclbin", "")
    if op == "load":
        try:
            design_record.load(xclbin)
        except IronRuntimeError as e:
            return {"ok": False, "error": f"tessel: {e}"}
        except BaseException as e:  # noqa: BLE001  (the design's own failure: its traceback, then the reply)
            traceback.print_exc()
            return {"ok": False, "error": _message(e, xclbin, "loading")}
        return {"ok": True}
    if op == "run":
        sizes = req.get("sizes", [])
        if len(sizes) != len(fds):
            return {"ok": False, "error": f"tessel: run request with {len(sizes)} buffers and {len(fds)} descriptors"}
        try:
            return {"ok": True, "npu_ns": run_once(xclbin, fds, sizes)}
        except BaseException as e:  # noqa: BLE001  (reported to the testbench, which fails the run)
            return {"ok": False, "error": _message(e, xclbin, "running")}
    return {"ok": False, "error": f"tessel: unknown request {op!r}"}


def serve(fd):
    sock = socket.socket(fileno=fd)
    start_device()
    aliases.bind()
    try:
        while True:
            try:
                got = _request(sock)
            except EOFError:
                return 0
            if got is None:
                return 0
            req, fds = got
            try:
                body = handle(req, fds)
            finally:
                for f in fds:
                    os.close(f)
                sys.stdout.flush()
                sys.stderr.flush()
            _reply(sock, body)
    finally:
        aliases.unbind()


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or not argv[0].isdigit():
        print("usage: python -m tessel.iron.testbench.server FD (started by a testbench's xrt::kernel)",
              file=sys.stderr)
        return 2
    try:
        return serve(int(argv[0]))
    except (BrokenPipeError, ConnectionResetError):
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
