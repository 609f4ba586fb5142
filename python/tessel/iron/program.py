"""Program(device, rt, workers).resolve_program(): places the workers, turns
every ObjectFifo into pools and channels, generates the workers' kernels,
records the sequence body once, and loads the result on the card as a
Design, called once per dispatch with the host buffers."""

import os

import numpy as np

from .. import _tessel
from . import design_record, rtp_window
from . import device as device_mod
from .errors import FlowWarning, IronRuntimeError, warn_or_raise
from .kernel import compiling_for
from .placement import SequentialPlacer, Tile, place_host_ends
from .runtime import PUSH, Runtime
from .types import dtype_key, dtype_of
from .worker import Worker


class Program:
    def __init__(self, device, rt, workers=()):
        if not isinstance(rt, Runtime):
            raise TypeError(f"Program: rt must be a tessel.iron.Runtime, got {rt!r}")
        if getattr(rt, "_block", None) == "unopened":
            raise IronRuntimeError("Program: the Runtime has no sequence: give Runtime(body, fn_args), or write "
                                   "its `with rt.sequence(...)` block before making the Program")
        workers = list(workers) + [w for w in rt.workers if all(w is not x for x in workers)]
        for w in workers:
            if not isinstance(w, Worker):
                raise TypeError(f"Program: workers must be Workers, got {w!r}")
        self.device = device
        self.rt = rt
        self.workers = workers

    def resolve_program(self, placer=None):
        dev = device_mod.resolve(self.device)
        with compiling_for(self.device):
            spec = resolve_spec(self.rt, self.workers, dev.grid, placer or SequentialPlacer())
        design = Design(dev, spec, [p.name for _, p in self.rt.params])
        design.device_name = self.device if isinstance(self.device, device_mod.Device) else None
        design_record.resolved(design)
        return design


def _fifos(rt, workers):
    seen, out = set(), []
    for h in list(rt.handles) + [h for w in workers for h in w.handles]:
        if id(h.fifo) not in seen:
            seen.add(id(h.fifo))
            out.append(h.fifo)
    return out


def _links(fifos):
    from .links import Link

    out = []
    for f in fifos:
        for h in [f._prod] + f._cons:
            if h is not None and isinstance(h.endpoint, Link) and h.endpoint not in out:
                out.append(h.endpoint)
    return out


def _all_fifos(rt, workers):
    """Every fifo reachable from the runtime's and workers' handles, links included."""
    from .links import Link

    fifos = _fifos(rt, workers)
    i = 0
    while i < len(fifos):
        f = fifos[i]
        for h in [f._prod] + f._cons:
            if h is not None and isinstance(h.endpoint, Link):
                for g in [h.endpoint.big] + h.endpoint.fifos:
                    if all(g is not x for x in fifos):
                        fifos.append(g)
        i += 1
    return fifos


def resolve_spec(rt, workers, grid, placer):
    """The design as plain data (the fields of tessel::flow::DesignSpec)."""
    from .links import Link

    gx, gy = grid
    placer.place_workers(workers, (gx, gy))
    for i, w in enumerate(workers):
        w.index = i
    fifos = _all_fifos(rt, workers)
    if any(f._prod is None or f._prod.endpoint is None or not any(c.endpoint is not None for c in f._cons)
           for f in fifos):
        _discover_handles(rt)  # the body creates handles of its own: run it once to bind them
        fifos = _all_fifos(rt, workers)
    links = _links(fifos)
    used = {(w.tile.col, w.tile.row) for w in workers}
    for link in links:  # staging cores: the Tile given (several links may share one, as on a mem tile), else the
        if not isinstance(link.tile, Tile):  # first core no worker or link uses
            free = [(x, y) for y in range(gy) for x in range(gx) if (x, y) not in used]
            if not free:
                raise IronRuntimeError(f"no free core left for the staging pool of the {link.name}")
            link.tile = Tile(*free[-1])
        used.add((link.tile.col, link.tile.row))
    pools, channels = [], []
    host_ends = []  # (channel index, home column, "fill" or "drain", handle), in fifo order

    def pool(name, tile, depth, object_bytes, segments=1):
        pools.append((name, (tile.col, tile.row), depth, object_bytes, segments))
        return len(pools) - 1

    for link in links:
        big = link.big
        h = link.source_handle
        link.pool = pool(f"{link.name} staging on ({link.tile.col},{link.tile.row})", link.tile, h.depth,
                         big.object_bytes, len(link.fifos))
        link.all_segments = list(range(len(link.fifos)))

    def where(h):
        e = h.endpoint
        return f"({e.tile.col},{e.tile.row})"

    handle_pool = {}

    def source_of(f):
        """('host', handle) or ('pool', pool, segments, offset bytes, move bytes)."""
        prod = f._prod
        if prod is None or prod.endpoint is None:
            raise IronRuntimeError(f"ObjectFifo '{f.name}' has no producer: give {f.name}.prod() to a Worker or "
                                   "to the Runtime")
        e = prod.endpoint
        if e is rt:
            return ("host", prod)
        if isinstance(e, Link):
            if e.kind == "split":
                i = next(k for k, g in enumerate(e.fifos) if g is f)
                if getattr(e, "rechunk", False):  # the staged objects, cut anew into f's
                    return ("pool", e.pool, [0], 0, e.big.object_bytes)
                return ("pool", e.pool, [i], e.offsets[i] * f.dtype.itemsize, f.object_bytes)
            return ("pool", e.pool, e.all_segments, 0, f.object_bytes)
        if id(prod) not in handle_pool:
            handle_pool[id(prod)] = pool(f"{f.name} producer on {where(prod)}", e.tile, prod.depth, f.object_bytes)
        return ("pool", handle_pool[id(prod)], [0], 0, f.object_bytes)

    def sink_of(f, c):
        e = c.endpoint
        if e is rt:
            return ("host", c)
        if isinstance(e, Link):
            if e.kind == "split":
                return ("pool", e.pool, e.all_segments, 0)
            i = next(k for k, g in enumerate(e.fifos) if g is f)
            return ("pool", e.pool, [i], e.offsets[i] * f.dtype.itemsize)
        handle_pool[id(c)] = pool(f"{f.name} consumer on {where(c)}", e.tile, c.depth, f.object_bytes)
        return ("pool", handle_pool[id(c)], [0], 0)

    for f in fifos:
        for h in [f._prod] + f._cons:
            if h is not None and h.tile is not None and h.endpoint is not rt:
                owner = f"worker '{h.endpoint.name}'" if isinstance(h.endpoint, Worker) else (
                    "no one" if h.endpoint is None else f"the {h.endpoint.name}")
                raise IronRuntimeError(f"{h.name} is pinned to {h.tile!r}, but it is given to {owner}: only a host "
                                       "end (a handle given to the Runtime) sits on a shim tile")
        cons = [c for c in f._cons if c.endpoint is not None]
        # Several consumer handles given to the Runtime (a design calling
        # of.cons() at each drain) are one host end, as IRON merges them.
        host_cons = [c for c in cons if c.endpoint is rt]
        merged = host_cons[1:]
        if merged:
            pins = {repr(c.tile) for c in host_cons if c.tile is not None}
            if len(pins) > 1:
                raise IronRuntimeError(f"ObjectFifo '{f.name}' is drained through consumer handles pinned to "
                                       f"different shim tiles ({', '.join(sorted(pins))}): the Runtime drains a "
                                       "fifo through one shim end")
            host_cons[0].tile = next((c.tile for c in host_cons if c.tile is not None), None)
            cons = [c for c in cons if all(c is not m for m in merged)]
        if not cons:
            raise IronRuntimeError(f"ObjectFifo '{f.name}' has no consumer: give {f.name}.cons() to a Worker or "
                                   "to the Runtime")
        src = source_of(f)
        prod = f._prod
        # A worker reading its own fifo: one pool on its core, no mover.
        if (src[0] == "pool" and len(cons) == 1 and cons[0].endpoint is prod.endpoint
                and isinstance(prod.endpoint, Worker)):
            handle_pool[id(cons[0])] = src[1]
            continue
        sinks = [sink_of(f, c) for c in cons]
        hosts = [k for k in sinks if k[0] == "host"]
        if hosts and len(sinks) > 1:
            raise NotImplementedError(f"ObjectFifo '{f.name}': a fifo drained by the host and read by workers or "
                                      "links is not supported yet")
        # A host end's channel gets its shim column and channel number once
        # every host end is known (place_host_ends: the pinned ones first).
        if src[0] == "host":
            if hosts:
                raise IronRuntimeError(f"ObjectFifo '{f.name}' goes from the Runtime to the Runtime")
            prod.channel_index = len(channels)
            host_ends.append((len(channels), pools[sinks[0][1]][1][0], "fill", prod))
            if f.dims_to_stream:
                raise IronRuntimeError(f"ObjectFifo '{f.name}' has dims_to_stream, but its producer is the Runtime: "
                                       "the fill's tap orders what it moves; give the tap to the fill")
            channels.append([f"{f.name} fill", (-1, [0], 0), [(k[1], k[2], k[3]) for k in sinks], f.object_bytes,
                             _extra(f, f.object_bytes)])
        elif hosts:
            c = hosts[0][1]
            c.channel_index = len(channels)
            for m in merged:
                m.channel_index = c.channel_index
            host_ends.append((len(channels), pools[src[1]][1][0], "drain", c))
            channels.append([f"{f.name} drain", (src[1], src[2], src[3]), [(-1, [0], 0)], src[4],
                             _extra(f, src[4], drain=True)])
        else:
            channels.append((f"{f.name} move", (src[1], src[2], src[3]), [(k[1], k[2], k[3]) for k in sinks],
                             src[4], _extra(f, src[4]), -1, 0))

    places = place_host_ends(placer, [(home, kind, h.name, h.tile) for _, home, kind, h in host_ends], gx)
    for (i, _, kind, _), (col, ch) in zip(host_ends, places):
        name, *rest = channels[i]
        channels[i] = (f"{name} (shim ({col},0) {'MM2S' if kind == 'fill' else 'S2MM'} {ch})", *rest, col, ch)

    wspecs = []
    for w in workers:
        handles = [(handle_pool[id(h)], h.producer, h.name) for h in w.handles]
        source, include_dirs = w.generate()
        wspecs.append((w.name, (w.tile.col, w.tile.row), source, w.name, handles,
                       [b.nbytes for b in w.buffers], [b.initial_value for b in w.barriers], include_dirs,
                       [b.initial_bytes().hex() for b in w.buffers]))
    rec = rt.record()
    file = rt.source_file or rt.sequence.__code__.co_filename
    rtp_window.check(file, rec.ops, workers)
    ops = [(k, line, a, b, c, wait, (v.constant, sorted(v.terms.items())), sizes, strides)
           for (k, line, a, b, c, wait, v, sizes, strides) in rec.ops]
    args = [(f"arg{pos}", int(np.prod(shape)) * dtype.itemsize, dtype.itemsize) for pos, shape, dtype in rt.buffers]
    buffer_types = [(shape, dtype_key(dtype)) for _, shape, dtype in rt.buffers]
    return {
        "name": getattr(rt.sequence, "__name__", "design"),
        "pools": pools, "workers": wspecs, "channels": channels, "args": args, "ops": ops,
        "parameters": len(rt.params), "registers": rec.registers, "slots": rec.slots,
        "parameter_names": [p.name for _, p in rt.params], "file": os.path.basename(file),
        "buffer_types": buffer_types,
        # Pools of workers that produce and consume nothing (generators): they run
        # ahead by their nature, so what they leave filled at a call's end is no warning.
        "generator_pools": [p[0] for p in pools if any(
            p[0].startswith(f"{h.fifo.name} producer on ") for w in workers
            if w.handles and all(x.producer for x in w.handles) for h in w.handles)],
    }


def _discover_handles(rt):
    """Runs the sequence body once, binding to the Runtime the handles it
    creates itself (IRON's `of.prod().fill(a)` in a body given no handles);
    what it records is thrown away (the body is recorded again once every
    channel is known)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the real recording gives them
        try:
            rt.record(discovering=True)
        except Exception:  # noqa: BLE001 - any error of the body is reported by the real recording
            pass


def _from_mem_tile(f):
    from .links import Link

    return f._prod is not None and isinstance(f._prod.endpoint, Link)


def _outer_steps_on(dims, elements):
    """A mem tile's dims_to_stream over fewer elements than the object: the
    mem tile DMA's outermost dimension does not wrap, so it keeps stepping
    until the object is streamed (IRON's whole-array matmul relies on it).
    The outermost size grows to cover the object when it divides evenly."""
    count = 1
    for size, _ in dims:
        count *= size
    inner = count // dims[0][0]
    if count < elements and elements % inner == 0:
        return [(elements // inner, dims[0][1])] + list(dims[1:])
    return dims


def _extra(f, move_bytes, drain=False):
    """A channel's options from its fifo: a layout transform (the producer's
    dims_to_stream, or the consumers' dims_from_stream) and, for a
    re-chunking forward, the size of the objects it cuts (a drain streams to
    the host and needs no cut). None: neither."""
    extra = {}
    if f.dims_to_stream and f.dims_from_stream:
        raise IronRuntimeError(f"ObjectFifo '{f.name}' has both dims_to_stream and dims_from_stream; one layout "
                               "transform per move is supported")
    if f.dims_to_stream or f.dims_from_stream:
        dims = f.dims_to_stream or f.dims_from_stream
        if f.dims_to_stream and _from_mem_tile(f):
            dims = _outer_steps_on(dims, move_bytes // f.dtype.itemsize)
        extra["stream"] = [dims, f.dtype.itemsize]
        extra["scatter"] = bool(f.dims_from_stream)
    if f.object_bytes != move_bytes and not drain:
        extra["dest_bytes"] = f.object_bytes
    return extra or None


def _load(dev, spec):
    T = _tessel
    pools = [T.FlowPool(n, tuple(c), d, b, s) for n, c, d, b, s in spec["pools"]]
    workers = [T.FlowWorker(n, tuple(c), src, sn, [T.FlowHandle(p, pr, hn) for p, pr, hn in hs], rtp, bar, inc,
                            [bytes.fromhex(b) for b in ini])
               for n, c, src, sn, hs, rtp, bar, inc, ini in spec["workers"]]
    end = lambda e: T.FlowEnd(e[0], list(e[1]), e[2])  # noqa: E731
    channels = [T.FlowChannel(n, end(src), [end(d) for d in dests], mb, col, ch,
                              [tuple(d) for d in x["stream"][0]] if x and "stream" in x else [],
                              x["stream"][1] if x and "stream" in x else 0, x.get("dest_bytes", 0) if x else 0,
                              bool(x and x.get("scatter")))
                for n, src, dests, mb, x, col, ch in spec["channels"]]
    args = [T.FlowArg(n, b, e) for n, b, e in spec["args"]]
    ops = [T.FlowOp(k, line, a, b, c, wait, T.FlowExpr(v[0], [tuple(t) for t in v[1]]), list(sz), list(st))
           for k, line, a, b, c, wait, v, sz, st in spec["ops"]]
    return T.FlowDesign.load(dev._d, spec["name"], pools, workers, channels, args, ops, spec["parameters"],
                             spec["registers"], spec["slots"], spec["parameter_names"], spec["file"])


class Design:
    """A resolved, loaded design: call it with one array per Runtime buffer
    argument (outputs are written in place) and DispatchTime values by name."""

    def __init__(self, device, spec, dispatch_names):
        self.device = device
        self.device_name = None  # the IRON device the design was resolved for, if any
        self.spec = spec
        self.dispatch_names = list(dispatch_names)
        self._native = _load(device, spec)
        self.buffer_layout = [(int(np.prod(shape)), dtype_of(dt)) for shape, dt in spec["buffer_types"]]
        """Per host buffer, in order: its element count and numpy dtype (checked on every call)."""
        self.moved_buffers = frozenset(op[4] for op in spec["ops"] if op[0] == PUSH)
        """The host buffers some fill or drain of the sequence moves (the others it never touches)."""
        self._left_warned = False

    @property
    def operation(self):
        """What IRON designs call on the MLIR module they resolve:
        `module.operation.verify()` (True: the design resolved and loaded)."""
        return design_record.Operation(self)

    def __str__(self):
        """A short text description of the design (not MLIR), and, under
        `python -m tessel.iron.run`, the record that lets a test program
        run it (design_record.py)."""
        return design_record.describe(self)

    @property
    def calls(self):
        return self._native.calls

    def run(self, tensors, scalars=None, timeout_s=60.0):
        scalars = scalars or {}
        expect = self.buffer_layout
        if len(tensors) != len(expect):
            raise TypeError(f"design '{self.spec['name']}' takes {len(expect)} buffers, got {len(tensors)}")
        views, copies = [], []
        for i, (t, (count, dtype)) in enumerate(zip(tensors, expect)):
            a = t if isinstance(t, np.ndarray) else np.asarray(t)
            if a.dtype != dtype or a.size != count:
                raise TypeError(f"design '{self.spec['name']}': buffer {i} must hold {count} x {dtype}, got "
                                f"{a.size} x {a.dtype}")
            if a.flags.c_contiguous and a.flags.writeable:
                views.append(a.reshape(-1).view(np.uint8))
            else:
                c = np.ascontiguousarray(a).copy()
                copies.append((i, a, c))
                views.append(c.reshape(-1).view(np.uint8))
        try:
            params = [int(scalars[n]) for n in self.dispatch_names]
        except KeyError:
            missing = [n for n in self.dispatch_names if n not in scalars]
            raise TypeError(f"design '{self.spec['name']}': no value for {', '.join(missing)}") from None
        moved, tasks, leftovers = self._native.call(views, params, float(timeout_s))
        for i, a, c in copies:
            if a.flags.writeable:
                a[...] = c.reshape(a.shape)
        if leftovers and not self._left_warned:
            quiet = self.spec.get("generator_pools", [])
            leftovers = "".join(line and "\n" + line for line in leftovers.split("\n")
                                if line and not any(line.strip().startswith(f"{p}:") for p in quiet))
        if leftovers and not self._left_warned:
            self._left_warned = True  # once per design: every call of a generator worker leaves the same
            warn_or_raise(f"design '{self.spec['name']}', call {self._native.calls}: the sequence ended but the grid "
                          f"is not back at its starting state (the next call starts from this):{leftovers}",
                          (self.spec["file"], 1), FlowWarning)
        return moved, tasks

    def __call__(self, *tensors, **scalars):
        self.run(list(tensors), scalars)

    def close(self):
        self._native.close()

    def to_dict(self):
        return {"spec": self.spec, "dispatch_names": self.dispatch_names}

    @classmethod
    def from_dict(cls, d, device=None):
        return cls(device_mod.resolve(device), d["spec"], d["dispatch_names"])


__all__ = ["Program", "Design", "Tile"]
