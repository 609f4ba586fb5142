"""Device, Buffer, CommandQueue and Event: the host API (include/tessel/*.hpp)."""

import collections
import enum
import os

import numpy as np

from . import _check, _tessel
from .core import CoreCoord
from .errors import ValidationError


class BufferType(enum.IntEnum):
    DRAM = 0
    L1 = 1


def _buffer_type(value, what):
    if isinstance(value, BufferType):
        return value
    if isinstance(value, str) and value.upper() in BufferType.__members__:
        return BufferType[value.upper()]
    raise TypeError(f"{what} must be tessel.BufferType.DRAM or .L1 (or 'dram' / 'l1'), got {_check.describe(value)}")


class MemoryStatistics:
    __slots__ = ("begin", "end", "allocated_bytes", "largest_free_bytes", "lowest_allocated")

    def __init__(self, values):
        for name, v in zip(self.__slots__, values):
            object.__setattr__(self, name, v)

    def __repr__(self):
        return "MemoryStatistics(" + ", ".join(f"{n}={getattr(self, n)}" for n in self.__slots__) + ")"


class ProgramCacheStatistics:
    """The device's structural program cache (program_cache.hpp)."""

    def __init__(self, device):
        self._d = device

    @property
    def entries(self):
        return self._d.program_cache_stats()[0]

    @property
    def hits(self):
        return self._d.program_cache_stats()[1]

    @property
    def misses(self):
        return self._d.program_cache_stats()[2]

    def clear(self):
        self._d.clear_program_cache()

    def __repr__(self):
        e, h, m = self._d.program_cache_stats()
        return f"ProgramCache(entries={e}, hits={h}, misses={m})"


def _tristate(value, what):
    return -1 if value is None else int(_check.flag(value, what))


class ProfilerRecord(collections.namedtuple("ProfilerRecord", "core risc type name time data run file line")):
    """One profiler marker: the logical core, the RISC ('BRISC', 'NCRISC',
    'TRISC_0'..'TRISC_2'), the type ('ZONE_START', 'ZONE_END', 'ZONE_TOTAL',
    'TS_DATA', 'TS_EVENT'), the zone's name, the simulated time in cycles,
    the data, the run (launch number, from 1) and the macro's file and line."""

    __slots__ = ()


class Device:
    """One simulated chip. Use as a context manager, or call close()."""

    def __init__(self, *args, **kwargs):
        raise TypeError("use tessel.Device.open(arch=..., grid=..., policy=...) to open a device")

    @classmethod
    def open(cls, arch="blackhole", grid=None, policy="deterministic", *, kernel_cache_dir=None,
             check_memory=None, profiler=None, trace=None, trace_ring=None, noc=None, timing=None):
        """Open a simulated device: arch 'blackhole' or 'wormhole_b0'; grid
        (x, y) worker cores (None: the arch's full grid); policy
        'deterministic', 'random:<seed>', 'parallel' (one thread per host core)
        or 'parallel:<threads>'. trace: a file to write the event
        trace to (Chrome/Perfetto JSON, docs/trace.md; None: TESSEL_TRACE,
        "": none); trace_ring: keep only the last N events per RISC, written
        when the device closes (None: TESSEL_TRACE_RING, 0: every event).
        noc: 'eager' (transfers land when issued) or 'checked' (they land at
        their barriers, and a kernel that reads a read's destination or
        changes a write's source before waiting is reported; None:
        TESSEL_NOC, else 'eager').
        timing: estimate cycles (docs/timing.md; last_run_timing() reports
        each run; None: TESSEL_TIMING, 0 or 1)."""
        _check.text(arch, "Device.open: arch")
        _check.text(policy, "Device.open: policy")
        gx = gy = 0
        if grid is not None:
            if not isinstance(grid, (tuple, list, CoreCoord)) or len(tuple(grid)) != 2:
                raise TypeError(f"Device.open: grid must be an (x, y) tuple or None, got {_check.describe(grid)}")
            gx, gy = (_check.integer(g, f"Device.open: grid[{i}]", 1, 0xFFFF) for i, g in enumerate(grid))
        cache = "" if kernel_cache_dir is None else os.fspath(kernel_cache_dir)
        if trace is not None:
            if not isinstance(trace, (str, os.PathLike)):
                raise TypeError(f"Device.open: trace must be a path (str or os.PathLike) or None, got "
                                f"{_check.describe(trace)}")
            trace = os.fspath(trace)
        if trace_ring is not None:
            trace_ring = _check.integer(trace_ring, "Device.open: trace_ring", 0, _tessel.MAX_TRACE_RING_EVENTS,
                                        "a number of events per RISC")
        if noc is not None:
            _check.text(noc, "Device.open: noc")
        # The C++ checks of these two name DeviceConfig's fields: said here in Python's names.
        if trace_ring and (trace == "" or (trace is None and not os.environ.get("TESSEL_TRACE"))):
            raise ValidationError(f"Device.open: trace_ring={trace_ring} but no trace is written: expected "
                                  "trace=<file> as well (or TESSEL_TRACE)")
        try:
            raw = _tessel.Device.open(arch, gx, gy, policy, cache,
                                      _tristate(check_memory, "Device.open: check_memory"),
                                      _tristate(profiler, "Device.open: profiler"), trace, trace_ring, noc,
                                      _tristate(timing, "Device.open: timing"))
        except ValidationError as e:
            cpp = "Device::open: DeviceConfig::trace_path: "
            if str(e).startswith(cpp):
                raise ValidationError("Device.open: trace: " + str(e)[len(cpp):]) from None
            raise
        return cls._wrap(raw)

    @classmethod
    def _wrap(cls, raw):
        """A Device over a native device opened elsewhere (a dispatch session's card)."""
        self = object.__new__(cls)
        self._d = raw
        self._queue = CommandQueue._wrap(raw.command_queue(), self)
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self):
        self._d.close()

    def mesh_capsule(self):
        """This device as a compat MeshDevice for another native module: a
        PyCapsule named "tessel.mesh_device" holding a std::shared_ptr to a
        1x1 MeshDevice that borrows this device (closing the mesh leaves it
        open). See docs/python.md."""
        return _tessel.mesh_capsule(self._d)

    @property
    def is_open(self):
        return self._d.is_open()

    @property
    def arch(self):
        return self._d.arch()

    @property
    def grid(self):
        return CoreCoord(*self._d.grid())

    def worker_core_from_logical_core(self, core):
        from .core import coord

        c = coord(core, "Device.worker_core_from_logical_core: core")
        return CoreCoord(*self._d.worker_core(c.x, c.y))

    l1_size = property(lambda self: self._d.l1_size())
    l1_alignment = property(lambda self: self._d.l1_alignment())
    dram_alignment = property(lambda self: self._d.dram_alignment())
    dram_banks = property(lambda self: self._d.dram_banks())
    dram_bank_size = property(lambda self: self._d.dram_bank_size())
    num_cb_indices = property(lambda self: self._d.num_cb_indices())
    clock_mhz = property(lambda self: self._d.clock_mhz())
    trace_path = property(lambda self: self._d.trace_path() or None,
                          doc="The event trace's file (absolute), or None when the device is not traced.")
    trace_ring = property(lambda self: self._d.trace_ring_events(),
                          doc="The trace ring's events per RISC (0: every event is written).")
    check_memory = property(lambda self: self._d.check_memory())
    noc_mode = property(lambda self: self._d.noc_mode())
    timing = property(lambda self: self._d.timing_enabled(),
                      doc="Whether the device estimates cycles (Device.open(timing=True), TESSEL_TIMING=1).")

    def profiler_records(self):
        """The device profiler's records since the last clear_profiler_records()
        (empty while the profiler is off: Device.open(profiler=True) or
        TESSEL_PROFILER=1): ProfilerRecord(core, risc, type, name, time, data,
        run, file, line), by core, RISC and time (docs/guide.md, "Profiler")."""
        return [ProfilerRecord(CoreCoord(x, y), *rest) for x, y, *rest in self._d.profiler_records()]

    def clear_profiler_records(self):
        self._d.clear_profiler_records()

    @property
    def profiler_enabled(self):
        return self._d.profiler_enabled()

    def last_run_timing(self):
        """The estimate of the device's last program run, a TimingReport
        (runs == 0 before the first); raises ValidationError when the device
        does not estimate time."""
        from .timing import TimingReport

        if self.is_open and not self.timing:
            raise ValidationError("Device.last_run_timing: this device does not estimate time; open it with "
                                  "Device.open(timing=True) or TESSEL_TIMING=1")
        return TimingReport._from_native(self._d.last_run_timing())

    @property
    def policy(self):
        return self._d.policy()

    @policy.setter
    def policy(self, value):
        self._d.set_policy(_check.text(value, "Device.policy"))

    def memory_statistics(self, buffer_type):
        return MemoryStatistics(self._d.memory_statistics(int(_buffer_type(buffer_type, "memory_statistics: type"))))

    @property
    def command_queue(self):
        return self._queue

    @property
    def program_cache(self):
        return ProgramCacheStatistics(self._d)

    def __repr__(self):
        g = self._d.grid()
        return f"<tessel.Device {self._d.arch()} {g[0]}x{g[1]} policy={self._d.policy()}>"


class ShardSpec:
    """How a sharded buffer's pages are placed (buffer.hpp)."""

    def __init__(self, tensor_shape_in_pages, shard_shape_in_pages, banks):
        def dims(v, what):
            if not isinstance(v, (tuple, list)):
                raise TypeError(f"ShardSpec: {what} must be a tuple of integers, got {_check.describe(v)}")
            return tuple(_check.word(x, f"ShardSpec: {what}[{i}]") for i, x in enumerate(v))

        self.tensor_shape_in_pages = dims(tensor_shape_in_pages, "tensor_shape_in_pages")
        self.shard_shape_in_pages = dims(shard_shape_in_pages, "shard_shape_in_pages")
        self.banks = dims(banks, "banks")

    def __repr__(self):
        return (f"ShardSpec({self.tensor_shape_in_pages}, {self.shard_shape_in_pages}, banks={self.banks})")


class Buffer:
    """An interleaved or sharded allocation in DRAM or L1; freed when the
    last reference goes, or by deallocate()."""

    def __init__(self, device, size, page_size, type=BufferType.DRAM, shard=None):
        if not isinstance(device, Device):
            raise TypeError(f"Buffer: device must be a tessel.Device, got {_check.describe(device)}")
        size = _check.count(size, "Buffer: size")
        page_size = _check.integer(page_size, "Buffer: page_size", 1, _check.WORD_MAX, "a positive integer")
        t = _buffer_type(type, "Buffer: type")
        spec = None
        if shard is not None:
            if not isinstance(shard, ShardSpec):
                raise TypeError(f"Buffer: shard must be a tessel.ShardSpec or None, got {_check.describe(shard)}")
            spec = (list(shard.tensor_shape_in_pages), list(shard.shard_shape_in_pages), list(shard.banks))
        self._b = _tessel.Buffer.create(device._d, size, page_size, int(t), spec)
        self.device = device

    address = property(lambda self: self._b.address())
    size = property(lambda self: self._b.size())
    page_size = property(lambda self: self._b.page_size())
    num_pages = property(lambda self: self._b.num_pages())
    type = property(lambda self: BufferType(self._b.type()))
    is_sharded = property(lambda self: self._b.is_sharded())
    is_allocated = property(lambda self: self._b.is_allocated())
    num_banks = property(lambda self: self._b.num_banks())
    aligned_page_size = property(lambda self: self._b.aligned_page_size())
    bytes_per_bank = property(lambda self: self._b.bytes_per_bank())

    def page_location(self, page):
        """(bank, address in that bank) of page `page`."""
        return self._b.page_location(_check.word(page, "Buffer.page_location: page"))

    def deallocate(self):
        self._b.deallocate()

    def write(self, array):
        """Copy a C-contiguous numpy array of exactly size bytes into the buffer."""
        self._b.write(_check.contiguous(array, "Buffer.write: array"))

    def read(self, dtype=np.uint8, out=None):
        """The buffer's bytes as a new 1-D array of dtype (a view of the bytes
        read, no second copy), or into `out` (C-contiguous, size bytes)."""
        if out is not None:
            self._b.read_into(_check.contiguous(out, "Buffer.read: out"))
            return out
        return _as_dtype(self._b.read(), dtype, "Buffer.read")

    def __repr__(self):
        kind = "sharded" if self._b.is_sharded() else "interleaved"
        return (f"<tessel.Buffer {self.type.name} {kind} {self._b.size()} B, page {self._b.page_size()} B, "
                f"address 0x{self._b.address():x}>")


def _as_dtype(raw, dtype, what):
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{what}: dtype must be a numpy dtype, got {_check.describe(dtype)}") from None
    if raw.nbytes % dt.itemsize:
        raise ValueError(f"{what}: {raw.nbytes} bytes are not a whole number of {dt} values ({dt.itemsize} B each)")
    return raw.view(dt)


class TensorAccessorArgs:
    """The compile-time args (and common runtime args: none today) a kernel's
    TensorAccessorArgs<CTA, CRTA> reads for a buffer, or a ttl.Tensor's
    buffer (tensor_accessor_args.hpp): 2 words for an interleaved buffer,
    4 + 2 * rank + banks for a sharded one."""

    __slots__ = ("_cta", "_crta")

    def __init__(self, tensor):
        buffer = getattr(tensor, "buffer", tensor)
        if not isinstance(buffer, Buffer):
            raise TypeError("TensorAccessorArgs: tensor must be a tessel.Buffer or a ttl.Tensor, "
                            f"got {_check.describe(tensor)}")
        cta, crta = _tessel.tensor_accessor_args(buffer._b)
        self._cta = tuple(cta)
        self._crta = tuple(crta)

    def get_compile_time_args(self):
        return list(self._cta)

    def get_common_runtime_args(self):
        return list(self._crta)

    def append_to(self, compile_args):
        if not isinstance(compile_args, list):
            raise TypeError(f"TensorAccessorArgs.append_to: compile_args must be a list, got "
                            f"{_check.describe(compile_args)}")
        compile_args.extend(self._cta)
        return compile_args

    def __repr__(self):
        return f"TensorAccessorArgs(compile_time_args={list(self._cta)}, common_runtime_args={list(self._crta)})"


class Event:
    """A point in a command queue (event.hpp)."""

    def __init__(self):
        self._e = _tessel.Event.create()

    id = property(lambda self: self._e.id())
    is_recorded = property(lambda self: self._e.is_recorded())

    def completed(self):
        return self._e.completed()

    def __repr__(self):
        return f"<tessel.Event id={self._e.id()}>"


def _event(e, what):
    if not isinstance(e, Event):
        raise TypeError(f"{what} must be a tessel.Event, got {_check.describe(e)}")
    return e._e


def event_synchronize(event):
    _event(event, "event_synchronize: event").synchronize()


def event_query(event):
    return _event(event, "event_query: event").query()


def _buffer(b, what):
    if not isinstance(b, Buffer):
        raise TypeError(f"{what} must be a tessel.Buffer, got {_check.describe(b)}")
    return b._b


class CommandQueue:
    """Moves data between host and device and runs programs, in order
    (command_queue.hpp). Get it from Device.command_queue."""

    def __init__(self, *args, **kwargs):
        raise TypeError("a CommandQueue belongs to its device: use device.command_queue")

    @classmethod
    def _wrap(cls, raw, device):
        self = object.__new__(cls)
        self._q = raw
        self._device = device
        return self

    def enqueue_write_buffer(self, buffer, array, blocking=True):
        self._q.enqueue_write_buffer(_buffer(buffer, "enqueue_write_buffer: buffer"),
                                     _check.contiguous(array, "enqueue_write_buffer: array"),
                                     _check.flag(blocking, "enqueue_write_buffer: blocking"))

    def enqueue_read_buffer(self, buffer, out=None, dtype=np.uint8, blocking=True):
        """Read the buffer into `out`, or into a new 1-D array of dtype; returns it."""
        b = _buffer(buffer, "enqueue_read_buffer: buffer")
        blocking = _check.flag(blocking, "enqueue_read_buffer: blocking")
        target = out if out is not None else np.empty(b.size(), dtype=np.uint8)
        self._q.enqueue_read_buffer(b, _check.contiguous(target, "enqueue_read_buffer: out"), blocking)
        return target if out is not None else _as_dtype(target, dtype, "enqueue_read_buffer")

    def enqueue_program(self, program, blocking=True):
        # The per-dispatch path: two identity checks, then the C++ call.
        if blocking is not True:
            _check.flag(blocking, "enqueue_program: blocking")
        try:
            raw = program._p
        except AttributeError:
            raw = None
        if type(raw) is not _tessel.Program:
            raise TypeError(f"enqueue_program: program must be a tessel.Program, got {_check.describe(program)}")
        self._q.enqueue_program(raw, bool(blocking))

    def compile_program(self, program):
        raw = getattr(program, "_p", None)
        if type(raw) is not _tessel.Program:
            raise TypeError(f"compile_program: program must be a tessel.Program, got {_check.describe(program)}")
        self._q.compile_program(raw)

    def finish(self):
        self._q.finish()

    def enqueue_record_event(self, event):
        self._q.enqueue_record_event(_event(event, "enqueue_record_event: event"))

    def enqueue_wait_for_event(self, event):
        self._q.enqueue_wait_for_event(_event(event, "enqueue_wait_for_event: event"))

    def synchronize(self, event):
        self._q.synchronize(_event(event, "synchronize: event"))

    def query(self, event):
        return self._q.query(_event(event, "query: event"))

    def begin_trace_capture(self):
        """Start capturing program launches; returns the trace id."""
        return self._q.begin_trace_capture()

    def end_trace_capture(self, trace_id):
        self._q.end_trace_capture(_check.word(trace_id, "end_trace_capture: trace_id"))

    def replay_trace(self, trace_id, blocking=True):
        self._q.replay_trace(_check.word(trace_id, "replay_trace: trace_id"), _check.flag(blocking, "replay_trace: blocking"))

    def release_trace(self, trace_id):
        self._q.release_trace(_check.word(trace_id, "release_trace: trace_id"))

    def trace_launch_count(self, trace_id):
        return self._q.trace_launch_count(_check.word(trace_id, "trace_launch_count: trace_id"))

    @property
    def programs_run(self):
        return self._q.programs_run()
