"""Session: one simulated card (a device plus the dispatcher that plays its
X280 cluster 0) and the persistent run loaded on it (the spec's Session).

Exit paths: a session closes itself when the process exits without closing
it (atexit) and on SIGTERM (a handler is installed if the process has none:
it aborts every loaded run, closes the sessions, then exits with status 143
through the `with` blocks). A `with` block stops its run on a normal exit and
aborts it on an exception; close() of a loaded run aborts it.
"""

import atexit
import signal
import sys
import weakref

from .. import _check, _tessel
from ..device import Device
from . import tensor as _tensor
from .errors import DispatchError
from .layout import Nocs
from .errors import ProgramError
from .program import KernelSizes, Program
from .run import Run

__all__ = ["Session"]

_PLL_STEPS = (200, 800, 1000, 1750)
_open_sessions = weakref.WeakSet()
_exit_hooks_installed = False


def _close_all(aborting=True):
    for s in list(_open_sessions):
        try:
            s.close()
        except Exception as e:  # noqa: BLE001 - an exit path reports and goes on
            print(f"tessel.dispatch: closing a session at exit failed: {e}", file=sys.stderr)


def _on_sigterm(signum, frame):
    _close_all()
    sys.exit(143)


def _install_exit_hooks():
    global _exit_hooks_installed
    if not _exit_hooks_installed:
        _exit_hooks_installed = True
        atexit.register(_close_all)
        try:
            if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
                signal.signal(signal.SIGTERM, _on_sigterm)
        except ValueError:
            pass  # not the main thread: no handler, atexit still closes
    # A SIGTERM handler (ours, or the process's own) runs while a native wait
    # goes on: the wait gives way to it (again after a handler set since).
    _tessel.forward_signal(signal.SIGTERM)


class Session:
    """Session(card=None, device=None, pll_mhz=1000, tree=None, log=None,
    grid_timeout=10.0, kernel_bytes=None, policy=None): card None is a card
    of the process's own; card N a simulated card one process at a time
    holds (CardBusy names the holder). device= uses a tessel.Device the
    caller keeps (close the session first), under that device's policy.
    policy: the scheduling policy of the device the session opens
    ('deterministic', 'random:<seed>', 'parallel', 'parallel:<threads>';
    None: deterministic)."""

    def __init__(self, card=None, device=None, pll_mhz=1000, tree=None, log=None, grid_timeout=10.0,
                 kernel_bytes=None, policy=None):
        card_number = -1 if card is None else _check.integer(card, "Session: card", 0, 255)
        if device is not None and not isinstance(device, Device):
            raise TypeError(f"Session: device must be a tessel.Device or None, got {_check.describe(device)}")
        if not isinstance(pll_mhz, int) or isinstance(pll_mhz, bool) or pll_mhz not in _PLL_STEPS:
            raise ValueError(f"Session: pll_mhz {pll_mhz!r} is not one of the runtime's steps: expected 200, 800, "
                             f"1000 or 1750")
        if tree is not None:
            _check.text(tree, "Session: tree")
        if log is not None and not callable(log):
            raise TypeError(f"Session: log must be a callable taking one line, got {_check.describe(log)}")
        if isinstance(grid_timeout, bool) or not isinstance(grid_timeout, (int, float)) or not grid_timeout > 0:
            raise ValueError(f"Session: grid_timeout must be positive seconds, got {_check.describe(grid_timeout)}")
        kb = 0
        if kernel_bytes is not None:
            kb = _check.integer(kernel_bytes, "Session: kernel_bytes", 64, 1531712)
            if kb % 64:
                raise ValueError(f"Session: kernel_bytes {kb} is not a multiple of 64")
        if policy is not None:
            _check.text(policy, "Session: policy")
        self._log = log
        self._native = _tessel.DispatchSession.open(card_number, None if device is None else device._d, pll_mhz,
                                                    float(grid_timeout), kb, policy, log)
        self.device = Device._wrap(self._native.device()) if device is None else device
        self.grid = tuple(self._native.grid())
        self.run = None
        _open_sessions.add(self)
        _install_exit_hooks()

    # -- context -------------------------------------------------------------

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None and self.run is not None and not self.run.stopped:
            try:
                self.run.stop()
            finally:
                self.close()
        else:
            self.close()
        return False

    def close(self):
        """Abort a loaded run, then close the device the session opened."""
        if self._native.closed():
            return
        try:
            self._native.close(True)
        finally:
            if self._native.closed():
                self._native.drop_log()  # the log callable goes with the GIL held
                _open_sessions.discard(self)

    @property
    def closed(self):
        return self._native.closed()

    def _busy(self):
        if self.run is not None and not self.run.stopped:
            return "a persistent run is loaded"
        return None

    # -- the card ------------------------------------------------------------

    def l1(self):
        """(kernel buffer, L1 left for circular buffers and L1 tensors) per core."""
        return tuple(self._native.l1())

    def nocs(self):
        """The cores' NoC coordinates (a layout.Nocs)."""
        return Nocs(self.device, self.grid)

    # -- tensors -------------------------------------------------------------

    def tensor(self, data, dtype, layout="row", shard_grid=None):
        return _tensor.create(self.device, None, dtype, layout, shard_grid, data, self._busy, what="session.tensor")

    def empty(self, shape, dtype, layout="row", shard_grid=None):
        return _tensor.create(self.device, shape, dtype, layout, shard_grid, None, self._busy, what="session.empty")

    def read(self, *tensors, first=0, pages=None):
        """session.read(*tensors): raw pages of interleaved DRAM tensors;
        session.read(tensor, first, pages): pages first .. first + pages - 1."""
        if len(tensors) == 1 and (first != 0 or pages is not None):
            return _tensor.read_range(tensors[0], first, pages)
        if len(tensors) == 3 and not isinstance(tensors[1], _tensor.Tensor):
            return _tensor.read_range(tensors[0], tensors[1], tensors[2])
        if len(tensors) == 2 and not isinstance(tensors[1], _tensor.Tensor):
            return _tensor.read_range(tensors[0], tensors[1], None)
        return _tensor.read_pages(*tensors)

    def read_bf16(self, *tensors):
        return _tensor.read_bf16(*tensors)

    def read_chunks(self, tensor, chunk_bytes=2 << 20):
        return _tensor.read_chunks(tensor, chunk_bytes)

    def read_tiles_bf16(self, tensor, first, pages):
        return _tensor.read_tiles_bf16(tensor, first, pages)

    # -- runs ----------------------------------------------------------------

    def load(self, program, depth=None, trace=0, deadline=1.0, wait=2.0, idle=120.0, kernel_idle=0.0, start=10.0,
             host_depth=64, event_depth=128, batch=64, settle_microseconds=1.0, image=None, thread="card"):
        """Build the program, launch it on every core, start the dispatcher and
        wait for READY; returns the Run. A run still loaded is aborted first."""
        if not isinstance(program, Program):
            raise TypeError(f"Session.load: program must be a tessel.dispatch.Program, got "
                            f"{_check.describe(program)}")
        if self._native.closed():
            raise DispatchError("Session.load: the session is closed")
        _tessel.forward_signal(signal.SIGTERM)  # a handler set since the session opened
        if depth is not None:
            if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= 16:
                raise ValueError(f"Session.load: depth {depth!r} is out of range: expected 1 to 16")
        else:
            depth = program.depth
        if thread not in ("card", "host"):
            raise ValueError(f"Session.load: thread {thread!r}: expected 'card' or 'host'")
        if image is not None:
            _check.text(image, "Session.load: image")
        seconds = {}
        for name, value in (("deadline", deadline), ("wait", wait), ("idle", idle), ("kernel_idle", kernel_idle),
                            ("start", start), ("settle_microseconds", settle_microseconds)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ValueError(f"Session.load: {name} must be non-negative, got {_check.describe(value)}")
            seconds[name] = float(value)
        trace = _check.integer(trace, "Session.load: trace", 0, 4096)
        host_depth = _check.integer(host_depth, "Session.load: host_depth", 1, 64)
        event_depth = _check.integer(event_depth, "Session.load: event_depth", 1, 128)
        batch = _check.integer(batch, "Session.load: batch", 1, 1 << 16)
        for decl in program.threads:
            decl.check_regions(program.regions)
            if thread == "host" and decl.host_fallback is None:
                raise ProgramError(f"Session.load: thread='host' but the thread on cluster {decl.cluster} has no "
                                   f"host_fallback")
            if thread == "card" and not decl.sources:
                raise ProgramError(f"Session.load: thread='card' but the thread on cluster {decl.cluster} has no "
                                   f"sources (only a host_fallback: load with thread='host')")
        threads = [(d.cluster, d.sources, d.regions, d.words, d.deadline, d.prefetch) for d in program.threads]
        regions = list(program.regions.items())
        fidelity, flags, unpack = program._compute
        buffers = [(b.index, b.format, b.page_bytes, b.pages) for b in program.buffers]
        opt = tuple(program.opt.get(k, "") for k in ("reader", "writer", "compute"))
        # The native load checks everything, then aborts a run still loaded.
        native = self._native.load(
            program.name, program.kernels["reader"], program.kernels["compute"], program.kernels["writer"], buffers,
            program.core_args(self.grid), program.compile_args["reader"], program.compile_args["writer"],
            program.compile_args["compute"], fidelity, flags["fp32_dest_acc_en"], flags["dst_full_sync_en"],
            flags["math_approx_mode"], flags["bfp8_pack_precise"], flags["enable_trisc2_rvv"], unpack,
            program.defines, depth, program.handlers, opt, trace,
            seconds["deadline"], seconds["wait"], seconds["idle"], seconds["kernel_idle"], seconds["start"],
            host_depth, event_depth, batch, seconds["settle_microseconds"], threads, regions, thread)
        threads, total, buffer = native.sizes()
        program.sizes = KernelSizes(threads, total, buffer)
        self.run = Run(native, self, program, thread)
        return self.run

    def __repr__(self):
        return f"Session(grid={self.grid}, closed={self.closed})"


KernelSizes = KernelSizes
