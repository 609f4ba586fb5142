"""ObjectFifo and its handles (IRON semantics): a pool of `depth` objects per
endpoint, a data mover between cores, acquire/release inside a Worker's
core_fn, fill/drain in a Runtime's sequence body."""

from . import trace
from .errors import IronRuntimeError
from .expr import Scalar
from .placement import AnyShimTile, Tile, check_shim_pin
from .types import array_type, c_type, element_count
from .values import Elements, kind_of


class TracedObject(Elements):
    """One acquired object inside a traced core_fn: a pointer in L1, whose
    elements the body reads and writes (elem[i], elem[i, j])."""

    def __init__(self, expr, fifo, what="object"):
        self.expr = expr
        self.fifo = fifo
        self.what = what

    def c_arg(self, dtype):
        return f"reinterpret_cast<{c_type(dtype)}*>({self.expr})"

    def _elements(self):
        return self.expr, self.fifo.shape, kind_of(self.fifo.dtype), self.what

    def __getitem__(self, index):
        return self._element_read(index)

    def __setitem__(self, index, value):
        self._element_write(index, value)

    def __len__(self):
        return self.fifo.shape[0]

    def __iter__(self):
        raise TypeError(f"{self.what}: iterate over its elements with `for i in range_(n)` and index them")

    @property
    def shape(self):
        return self.fifo.shape

    @property
    def dtype(self):
        return self.fifo.dtype


class TracedObjects:
    """acquire(n > 1): the n objects held, oldest first."""

    def __init__(self, name, n, fifo, what="objects"):
        self.name, self.n, self.fifo, self.what = name, n, fifo, what

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not isinstance(i, int) or not 0 <= i < self.n:
            raise IndexError(f"acquire({self.n}) holds objects 0 to {self.n - 1}, not {i!r}")
        return TracedObject(f"{self.name}[{i}]", self.fifo, f"{self.what}[{i}]")


class ObjectFifoHandle:
    def __init__(self, fifo, producer, depth, tile):
        self.fifo = fifo
        self.producer = producer
        self.depth = fifo.depth if depth is None else depth
        self.tile = tile
        self.endpoint = None  # a Worker, or the Runtime
        self.index = None  # the worker's handle number, once traced

    @property
    def name(self):
        return f"{self.fifo.name}.{'prod' if self.producer else 'cons'}()"

    def __repr__(self):
        return self.name

    # -- inside core_fn --------------------------------------------------
    def _worker_trace(self, call):
        t = trace.worker_trace()
        if t is None:
            raise IronRuntimeError(f"{self.name}.{call}() is called inside a Worker's core_fn")
        if self.index is None or self.endpoint is not t.worker:
            raise IronRuntimeError(
                f"{self.name}.{call}(): this handle was not given to worker '{t.worker.name}' in its fn_args")
        return t

    def acquire(self, n=1):
        t = self._worker_trace("acquire")
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= self.depth:
            raise IronRuntimeError(f"{self.name}.acquire({n!r}): n must be 1 to the handle's depth {self.depth}")
        name = t.fresh("obj")
        if n == 1:
            t.emit(f"uint8_t* {name} = iron::acquire({self.index}, 1);")
            return TracedObject(name, self.fifo, f"{self.name} object")
        t.emit(f"uint8_t* {name}[{n}]; iron::acquire({self.index}, {n}); "
               f"for (uint32_t i = 0; i < {n}; ++i) {name}[i] = iron::object({self.index}, i);")
        return TracedObjects(name, n, self.fifo, f"{self.name} objects")

    def release(self, n=1):
        t = self._worker_trace("release")
        if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= self.depth:
            raise IronRuntimeError(f"{self.name}.release({n!r}): n must be 0 to the handle's depth {self.depth}")
        t.emit(f"iron::release({self.index}, {n});")

    # -- inside a sequence body -------------------------------------------
    def _task(self, verb, buffer, tap, wait, group, managed, offset, sizes, strides):
        from .runtime import RuntimeData, Task, record_task

        seq = trace.sequence()
        if seq is None:
            raise IronRuntimeError(f"{self.name}.{verb}() is called inside a Runtime's sequence body")
        if self.endpoint is None:
            # A handle the body creates itself (of.prod().fill(a) with no
            # handles in fn_args) is the Runtime's, as IRON binds it; another
            # consumer handle of a fifo the Runtime drains already is that end.
            bound = next((c for c in self.fifo._cons if c is not self and c.endpoint is seq.runtime), None)
            if bound is not None:
                self.endpoint = seq.runtime
                if hasattr(bound, "channel_index"):
                    self.channel_index = bound.channel_index
            elif seq.discovering:
                self.endpoint = seq.runtime
                seq.runtime.handles.append(self)
        if self.endpoint is not seq.runtime:
            owner = getattr(self.endpoint, "name", None)
            raise IronRuntimeError(f"{self.name}.{verb}(): this handle belongs to {owner}, not to the Runtime" if owner
                                   else f"{self.name}.{verb}(): pass this handle to the Runtime in its fn_args, so "
                                        "its shim end is bound")
        if not isinstance(buffer, RuntimeData):
            raise TypeError(f"{self.name}.{verb}(): the buffer must be an argument of the sequence body, "
                            f"got {buffer!r}")
        if self.fifo.dtype.itemsize != buffer.dtype.itemsize:  # the DMA moves bytes: int8 data into uint8 lines is fine
            raise TypeError(f"{self.name}.{verb}(): buffer '{buffer.name}' holds {buffer.dtype}, "
                            f"the fifo's objects hold {self.fifo.dtype} ({self.fifo.dtype.itemsize} bytes each, not "
                            f"{buffer.dtype.itemsize})")
        n = buffer.count
        if tap is not None:
            if not (offset is None and sizes is None and strides is None):
                raise TypeError(f"{self.name}.{verb}(): give a tap or offset/sizes/strides, not both")
            tap_elements = 1
            for d in tap.tensor_dims:
                tap_elements *= d
            if tap_elements != n:
                raise ValueError(f"{self.name}.{verb}(): the tap is over {tap_elements} elements, "
                                 f"buffer '{buffer.name}' has {n}")
            off, sz, st = tap.descriptor(4)
            off = Scalar.of(off)
        else:
            sz = list(sizes) if sizes is not None else [1, 1, 1, n]
            st = list(strides) if strides is not None else [0, 0, 0, 1]
            if len(sz) > 4 or len(sz) != len(st):
                raise ValueError(f"{self.name}.{verb}(): sizes and strides take at most 4 matching dimensions")
            sz = [1] * (4 - len(sz)) + sz
            st = [0] * (4 - len(st)) + st
            off = Scalar.of(0 if offset is None else offset, "offset")
        if group is not None and not managed:
            raise IronRuntimeError(f"{self.name}.{verb}(): an unmanaged task (managed=False) takes no group")
        task = Task(self, verb, buffer, wait, managed, trace.user_site())
        record_task(seq, task, group, off, sz, st)
        return task

    def fill(self, source, tap=None, wait=False, group=None, managed=True, offset=None, sizes=None, strides=None,
             **unsupported):
        _reject_unsupported("fill", unsupported)
        if not self.producer:
            raise IronRuntimeError(f"{self.name}.fill(): fill a producer handle (of.prod()); this is a consumer")
        return self._task("fill", source, tap, wait, group, managed, offset, sizes, strides)

    def drain(self, dest, tap=None, wait=False, group=None, managed=True, offset=None, sizes=None, strides=None,
              **unsupported):
        _reject_unsupported("drain", unsupported)
        if self.producer:
            raise IronRuntimeError(f"{self.name}.drain(): drain a consumer handle (of.cons()); this is a producer")
        return self._task("drain", dest, tap, wait, group, managed, offset, sizes, strides)

    # -- links (links.py) -----------------------------------------------------
    def split(self, offsets, *args, **kwargs):
        from .links import split

        return split(self, offsets, *args, **kwargs)

    def join(self, offsets, *args, **kwargs):
        from .links import join

        return join(self, offsets, *args, **kwargs)

    def forward(self, *args, **kwargs):
        """forward(placement=AnyMemTile, obj_type=None, depth=None, name=None, dims_to_stream=None,
        dims_from_stream=None), as IRON orders them."""
        from .links import forward

        return forward(self, *args, **kwargs)


def _shim_pin(handle, tile):
    """The Tile a host end is pinned to (None: the placer's choice)."""
    if tile is None or tile is AnyShimTile:
        return None
    if not isinstance(tile, Tile):
        raise TypeError(f"{handle[:-1]}tile=...) takes a shim Tile(col, 0) or AnyShimTile, got {tile!r}")
    check_shim_pin(tile, handle)
    return tile


def _reject_unsupported(verb, kwargs):
    if kwargs:
        raise TypeError(f"{verb}() does not take {', '.join(sorted(kwargs))} here")


def stream_dims(dims, what):
    """IRON's dims_to_stream: [(size, stride), ...] in elements, outermost
    first (at most 4), as a list of int pairs; None or [] for none."""
    if dims is None:
        return None
    out = []
    try:
        for d in dims:
            size, stride = d
            if isinstance(size, bool) or isinstance(stride, bool):
                raise TypeError
            out.append((int(size), int(stride)))
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be a list of (size, stride) pairs of integers, got {dims!r}") from None
    if len(out) > 4:
        raise ValueError(f"{what} has {len(out)} dimensions; a DMA descriptor walks at most 4")
    if any(s < 1 or st < 0 for s, st in out):
        raise ValueError(f"{what}: sizes must be at least 1 and strides not negative, got {out}")
    return out or None


class ObjectFifo:
    _count = 0

    def __init__(self, obj_type, depth=2, name=None, dims_to_stream=None, dims_from_stream_per_cons=None):
        self.shape, self.dtype = array_type(obj_type, "ObjectFifo obj_type")
        if not isinstance(depth, int) or isinstance(depth, bool) or depth < 1:
            raise ValueError(f"ObjectFifo: depth must be an integer >= 1, got {depth!r}")
        ObjectFifo._count += 1
        self.name = name or f"of{ObjectFifo._count}"
        self.dims_to_stream = None if dims_to_stream is None else stream_dims(dims_to_stream,
                                                                               f"ObjectFifo '{self.name}' dims_to_stream")
        self.dims_from_stream = None  # the consumers' transform (every consumer's, here)
        if dims_from_stream_per_cons:
            per = [stream_dims(d, f"ObjectFifo '{self.name}' dims_from_stream_per_cons[{i}]")
                   for i, d in enumerate(dims_from_stream_per_cons)]
            if any(p != per[0] for p in per):
                raise NotImplementedError(f"ObjectFifo '{self.name}': consumers with different dims_from_stream are "
                                          "not supported; give every consumer the same transform")
            self.dims_from_stream = per[0]
        self.obj_type = obj_type
        self.depth = depth
        self.count = element_count(self.shape)
        self.object_bytes = self.count * self.dtype.itemsize
        self._prod = None
        self._cons = []

    def prod(self, depth=None, tile=None):
        tile = _shim_pin(f"{self.name}.prod()", tile)
        if self._prod is None:
            self._prod = ObjectFifoHandle(self, True, depth, tile)
        else:
            if depth is not None:
                self._prod.depth = depth
            if tile is not None:
                if self._prod.tile is not None and self._prod.tile != tile:
                    raise IronRuntimeError(f"{self._prod.name} is pinned to {self._prod.tile!r} already, and now to "
                                           f"{tile!r}: a host end sits on one shim tile")
                self._prod.tile = tile
        return self._prod

    def cons(self, depth=None, tile=None, dims_from_stream=None):
        """A new consumer handle; dims_from_stream is its layout transform
        (every consumer of a fifo takes the same one here)."""
        tile = _shim_pin(f"{self.name}.cons()", tile)
        if dims_from_stream is not None:
            dims = stream_dims(dims_from_stream, f"{self.name}.cons() dims_from_stream")
            if self.dims_from_stream is not None and self.dims_from_stream != dims:
                raise NotImplementedError(f"ObjectFifo '{self.name}': consumers with different dims_from_stream are "
                                          "not supported; give every consumer the same transform")
            self.dims_from_stream = dims
        h = ObjectFifoHandle(self, False, depth, tile)
        self._cons.append(h)
        return h

    def __repr__(self):
        return f"ObjectFifo({self.name}, {self.count} x {self.dtype}, depth {self.depth})"


StreamDims = list  # IRON's dims_to_stream type: [(size, stride), ...], outermost first
