"""Program(device, rt, workers).resolve_program(): places the workers, turns
every ObjectFifo into pools and channels, generates the workers' kernels,
records the sequence body once, and loads the result on the card as a
Design, called once per dispatch with the host buffers."""

import os

import numpy as np

from .. import _tessel
from . import device as device_mod
from .dataflow import ObjectFifoHandle
from .errors import IronRuntimeError
from .placement import SequentialPlacer, Tile
from .runtime import Runtime
from .worker import Worker


class Program:
    def __init__(self, device, rt, workers=()):
        if not isinstance(rt, Runtime):
            raise TypeError(f"Program: rt must be a tessel.iron.Runtime, got {rt!r}")
        workers = list(workers)
        for w in workers:
            if not isinstance(w, Worker):
                raise TypeError(f"Program: workers must be Workers, got {w!r}")
        self.device = device
        self.rt = rt
        self.workers = workers

    def resolve_program(self, placer=None):
        dev = device_mod.resolve(self.device)
        spec = resolve_spec(self.rt, self.workers, dev.grid, placer or SequentialPlacer())
        return Design(dev, spec, [p.name for _, p in self.rt.params])


def _fifos(rt, workers):
    seen, out = set(), []
    for h in list(rt.handles) + [h for w in workers for h in w.handles]:
        if id(h.fifo) not in seen:
            seen.add(id(h.fifo))
            out.append(h.fifo)
    return out


def resolve_spec(rt, workers, grid, placer):
    """The design as plain data (the fields of tessel::flow::DesignSpec)."""
    gx, gy = grid
    placer.place_workers(workers, (gx, gy))
    for i, w in enumerate(workers):
        w.index = i
    pools, channels = [], []
    shim_used = {}

    def pool(name, tile, depth, fifo):
        pools.append((name, (tile.col, tile.row), depth, fifo.object_bytes, 1))
        return len(pools) - 1

    handle_pool = {}
    for f in _fifos(rt, workers):
        prod = f._prod
        if prod is None or prod.endpoint is None:
            raise IronRuntimeError(f"ObjectFifo '{f.name}' has no producer: give {f.name}.prod() to a Worker or "
                                   "to the Runtime")
        cons = [c for c in f._cons if c.endpoint is not None]
        if not cons:
            raise IronRuntimeError(f"ObjectFifo '{f.name}' has no consumer: give {f.name}.cons() to a Worker or "
                                   "to the Runtime")
        host_cons = [c for c in cons if c.endpoint is rt]
        if len(host_cons) > 1:
            raise IronRuntimeError(f"ObjectFifo '{f.name}': two consumer handles are given to the Runtime")
        if host_cons and len(cons) > 1:
            raise NotImplementedError(f"ObjectFifo '{f.name}': a fifo drained by the host and read by workers "
                                      "is not supported yet")
        worker_cons = [c for c in cons if c.endpoint is not rt]
        if prod.endpoint is rt:
            if host_cons:
                raise IronRuntimeError(f"ObjectFifo '{f.name}' goes from the Runtime to the Runtime")
            dests = []
            for c in worker_cons:
                handle_pool[id(c)] = pool(f"{f.name} consumer on ({c.endpoint.tile.col},{c.endpoint.tile.row})",
                                          c.endpoint.tile, c.depth, f)
                dests.append((handle_pool[id(c)], [0], 0))
            home = worker_cons[0].endpoint.tile
            col, ch = placer.place_shim(prod.tile.col if prod.tile else home.col, "fill", shim_used, gx)
            prod.channel_index = len(channels)
            channels.append((f"{f.name} fill (shim ({col},0) MM2S {ch})", (-1, [0], 0), dests, f.object_bytes, col, ch))
            continue
        pt = prod.endpoint.tile
        p = pool(f"{f.name} producer on ({pt.col},{pt.row})", pt, prod.depth, f)
        handle_pool[id(prod)] = p
        if host_cons:
            c = host_cons[0]
            col, ch = placer.place_shim(c.tile.col if c.tile else pt.col, "drain", shim_used, gx)
            c.channel_index = len(channels)
            channels.append((f"{f.name} drain (shim ({col},0) S2MM {ch})", (p, [0], 0), [(-1, [0], 0)],
                             f.object_bytes, col, ch))
            continue
        if len(worker_cons) == 1 and worker_cons[0].endpoint is prod.endpoint:
            handle_pool[id(worker_cons[0])] = p  # one core: one pool, no mover
            continue
        dests = []
        for c in worker_cons:
            ct = c.endpoint.tile
            handle_pool[id(c)] = pool(f"{f.name} consumer on ({ct.col},{ct.row})", ct, c.depth, f)
            dests.append((handle_pool[id(c)], [0], 0))
        channels.append((f"{f.name} move", (p, [0], 0), dests, f.object_bytes, -1, 0))

    wspecs = []
    for w in workers:
        handles = [(handle_pool[id(h)], h.producer, h.name) for h in w.handles]
        wspecs.append((w.name, (w.tile.col, w.tile.row), w.generate(), w.name, handles,
                       [4 * b.count for b in w.buffers], [b.initial_value for b in w.barriers]))
    rec = rt.record()
    file = rt.sequence.__code__.co_filename
    ops = [(k, line, a, b, c, wait, (v.constant, sorted(v.terms.items())), sizes, strides)
           for (k, line, a, b, c, wait, v, sizes, strides) in rec.ops]
    args = [(f"arg{pos}", int(np.prod(shape)) * dtype.itemsize, dtype.itemsize) for pos, shape, dtype in rt.buffers]
    buffer_types = [(shape, dtype.str) for _, shape, dtype in rt.buffers]
    return {
        "name": getattr(rt.sequence, "__name__", "design"),
        "pools": pools, "workers": wspecs, "channels": channels, "args": args, "ops": ops,
        "parameters": len(rt.params), "registers": rec.registers, "slots": rec.slots,
        "parameter_names": [p.name for _, p in rt.params], "file": os.path.basename(file),
        "buffer_types": buffer_types,
    }


def _load(dev, spec):
    T = _tessel
    pools = [T.FlowPool(n, tuple(c), d, b, s) for n, c, d, b, s in spec["pools"]]
    workers = [T.FlowWorker(n, tuple(c), src, sn, [T.FlowHandle(p, pr, hn) for p, pr, hn in hs], rtp, bar)
               for n, c, src, sn, hs, rtp, bar in spec["workers"]]
    end = lambda e: T.FlowEnd(e[0], list(e[1]), e[2])  # noqa: E731
    channels = [T.FlowChannel(n, end(src), [end(d) for d in dests], mb, col, ch)
                for n, src, dests, mb, col, ch in spec["channels"]]
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
        self.spec = spec
        self.dispatch_names = list(dispatch_names)
        self._native = _load(device, spec)

    @property
    def calls(self):
        return self._native.calls

    def run(self, tensors, scalars=None, timeout_s=60.0):
        scalars = dict(scalars or {})
        types = self.spec["buffer_types"]
        if len(tensors) != len(types):
            raise TypeError(f"design '{self.spec['name']}' takes {len(types)} buffers, got {len(tensors)}")
        views, copies = [], []
        for i, (t, (shape, dt)) in enumerate(zip(tensors, types)):
            a = t if isinstance(t, np.ndarray) else np.asarray(t)
            if a.dtype != np.dtype(dt) or a.size != int(np.prod(shape)):
                raise TypeError(f"design '{self.spec['name']}': buffer {i} must hold {int(np.prod(shape))} x "
                                f"{np.dtype(dt)}, got {a.size} x {a.dtype}")
            if a.flags.c_contiguous and a.flags.writeable:
                views.append(a.reshape(-1).view(np.uint8))
            else:
                c = np.ascontiguousarray(a).copy()
                copies.append((i, a, c))
                views.append(c.reshape(-1).view(np.uint8))
        missing = [n for n in self.dispatch_names if n not in scalars]
        if missing:
            raise TypeError(f"design '{self.spec['name']}': no value for {', '.join(missing)}")
        params = [int(scalars[n]) for n in self.dispatch_names]
        moved, tasks = self._native.call(views, params, float(timeout_s))
        for i, a, c in copies:
            if a.flags.writeable:
                a[...] = c.reshape(a.shape)
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
