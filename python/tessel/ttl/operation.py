"""@ttl.operation: a Python body over tensors becomes a tessel::Operation
(tessel/operation.hpp) whose logical kernels are generated from the body's
call_extern_func calls, run with a runtime resource factory.

One execution (Operation.__call__):
  1. The tensors' structure (their accessor args, page sizes, shapes,
     dtypes) and which parameters hold the same tensor select a traced plan;
     a structure seen for the first time runs the body once to record its
     calls (extern.py). The trace finds a tensor's argument by identity,
     so a call that passes one tensor as two parameters binds both to the
     first: its kernels are right only for calls aliased the same way, and
     op(x, x) and op(a, b) get a plan each.
  2. The plan's generated kernels are the C++ Operation's. When they differ
     from the current C++ Operation's (other tensor layouts), a new one
     replaces it; the device's program cache still holds what earlier ones
     compiled.
  3. The C++ Operation runs: it calls the factory (through lower_resources,
     which checks its result's types here), validates the result, plans the
     descriptors, finds the program in the cache (the fast path on a
     structure it has seen) and dispatches it.
  4. On success the factory's owners become the retained `lifetimes`; on a
     failure the previous ones stay.

Not thread-safe: one operation object runs one execution at a time.
"""

import functools
import inspect
import sys

from .. import _check, _tessel
from ..core import CoreCoord, CoreRange, CoreRangeSet
from ..device import Device
from ..errors import DeadlockError, KernelError, KernelFault, ProgramError, ValidationError
from ..ttnn.staging import stage
from .dsl_plan import ComputeOptions, compile_functions, dsl_fingerprint, dsl_legend
from .profile import print_zones
from .extern import TensorLayout, Trace, aliasing, describe_selector, kernel_source, tracing
from .records import FabricManagerClaim, FabricTopology, Kernel, KernelKind, ProgramRuntimeResources
from .settings import settings
from .tensor import Tensor, as_tensor
from .unified import unified_body

__all__ = ["Operation", "operation"]

# Data-movement RISCs per core (RISCV_0, RISCV_1) and compute contexts.
_DM_RISCS = 2
_PLAN_CACHE_LIMIT = 64


def operation(fn=None, *, grid="auto", runtime_resource_factory=None, fabric_topology=None, name=None,
              fp32_dest_acc_en=None, dst_full_sync_en=False, math_fidelity="HiFi4", math_approx_mode=False,
              options=None):
    """Decorate a body `def op(tensor, ...)` as a TT-Lang operation on the cores
    (0, 0)..(x - 1, y - 1) of grid=(x, y) ("auto" or "full": the device's
    worker grid; a callable: called with the tensors, returns (x, y)).
    fp32_dest_acc_en, dst_full_sync_en, math_fidelity and math_approx_mode
    configure the compute kernel (fp32_dest_acc_en None: on when a dataflow
    buffer holds 32-bit elements, as TT-Lang's compiler chooses); options (a
    string of compiler options) is accepted and recorded.
    runtime_resource_factory, if given,
    is called as factory(tensors=..., core_ranges=..., first_free_semaphore_id=...)
    once per execution and returns a ttl.ProgramRuntimeResources.
    fabric_topology (a ttl.FabricTopology) is what fabric bindings are
    checked against. Every ttl.Kernel and ttl.FabricManagerClaim the body
    captures is bound to the operation."""
    def wrap(f):
        return Operation(f, grid=grid, runtime_resource_factory=runtime_resource_factory,
                         fabric_topology=fabric_topology, name=name, fp32_dest_acc_en=fp32_dest_acc_en,
                         dst_full_sync_en=dst_full_sync_en, math_fidelity=math_fidelity,
                         math_approx_mode=math_approx_mode, options=options)

    return wrap if fn is None else wrap(fn)


class Plan:
    """One traced structure: the logical kernels in the order they are
    declared, each with its calls, and the tensors' layouts."""

    def __init__(self, operation, trace, layouts):
        self.layouts = layouts  # TensorLayout per parameter, with the aliasing the trace saw
        self.kernels = []  # (selector, [Call], processor: -1 compute, else the data-movement RISC)
        self.functions = tuple(trace.functions)  # the DSL kernel functions
        self.dfbs = tuple(trace.dfbs)
        self.fingerprint = dsl_fingerprint(trace) if trace.functions else None
        self.circular_buffers = ()
        self.semaphores = ()  # initial values of the operation-owned semaphores (ids 0..n-1)
        self.compute_options = operation.compute_options.resolved(trace.dfbs)
        self.written = None  # the parameter indices the kernels may write (None: any)
        order = []
        for c in trace.calls:
            if not any(c.kernel is k for k in order):
                order.append(c.kernel)
        dm = [k for k in order if _kind(k) is KernelKind.DATA_MOVEMENT]
        compute = [k for k in order if _kind(k) is KernelKind.COMPUTE]
        if len(dm) > _DM_RISCS:
            raise ValidationError(f"operation '{operation.name}': its calls select {len(dm)} data-movement kernels "
                                  f"({', '.join(map(repr, dm))}); a core has {_DM_RISCS} data-movement RISCs")
        if len(compute) > 1:
            raise ValidationError(f"operation '{operation.name}': its calls select {len(compute)} compute kernels "
                                  f"({', '.join(map(repr, compute))}); a core has one compute context")
        compiled = []
        if trace.functions:
            compiled, self.circular_buffers, self.semaphores, self.compute_options, written = compile_functions(
                operation, trace, layouts, order)
            # The tensors the kernels write; external calls may write any.
            self.written = None if order else written
        dsl_dm = sum(p >= 0 for _, _, p in compiled)
        if dsl_dm + len(dm) > _DM_RISCS:
            raise ValidationError(f"operation '{operation.name}': {dsl_dm} data-movement kernel functions and "
                                  f"{len(dm)} external data-movement kernels; a core has {_DM_RISCS} data-movement "
                                  "RISCs")
        if compiled and compute and any(p < 0 for _, _, p in compiled):
            raise ValidationError(f"operation '{operation.name}': a compute kernel function and external compute "
                                  "calls; a core has one compute context")
        free = [r for r in (1, 0) if r not in {p for _, _, p in compiled}] if compiled else [0, 1]
        sources = []
        for selector, source, processor in compiled:
            self.kernels.append((selector, [], processor))
            sources.append(source)
        for k in order:
            processor = -1 if _kind(k) is KernelKind.COMPUTE else free[dm.index(k)]
            self.kernels.append((k, [c for c in trace.calls if c.kernel is k], processor))
            sources.append(kernel_source(operation.name, k, self.kernels[-1][1], layouts))
        self.sources = tuple(sources)

    def headers(self):
        out = []
        for _, calls, _ in self.kernels:
            for c in calls:
                if c.header not in out:
                    out.append(c.header)
        return out


def _kind(selector):
    return selector.kind if isinstance(selector, Kernel) else selector


class Operation:
    """A decorated TT-Lang operation. Call it with its tensors (ttnn.Tensor or
    ttl.Tensor); it returns None. `lifetimes` holds the owners the last successful
    execution's resources retained."""

    def __init__(self, fn, *, grid="auto", runtime_resource_factory=None, fabric_topology=None, name=None,
                 fp32_dest_acc_en=None, dst_full_sync_en=False, math_fidelity="HiFi4", math_approx_mode=False,
                 options=None):
        if not callable(fn):
            raise TypeError(f"ttl.operation: the body must be a function, got {_check.describe(fn)}")
        self.name = _check.text(name, "ttl.operation: name") if name is not None else fn.__name__
        what = f"ttl.operation '{self.name}'"
        if isinstance(grid, str) and grid in ("auto", "full"):
            self._grid_rule = grid
        elif callable(grid) and not isinstance(grid, (tuple, list, CoreCoord)):
            self._grid_rule = grid
        else:
            self._grid_rule = _grid(grid, f"{what}: grid")
        self.grid = self._grid_rule if isinstance(self._grid_rule, tuple) else None
        self.compute_options = ComputeOptions.of(fp32_dest_acc_en, dst_full_sync_en, math_fidelity,
                                                 math_approx_mode, what)
        if options is not None and not isinstance(options, str):
            raise TypeError(f"{what}: options must be a string of compiler options, got {_check.describe(options)}")
        self.options = options
        if runtime_resource_factory is not None:
            _check_factory(runtime_resource_factory, f"ttl.operation '{self.name}': runtime_resource_factory")
        if fabric_topology is not None and not isinstance(fabric_topology, FabricTopology):
            raise TypeError(f"ttl.operation '{self.name}': fabric_topology must be a ttl.FabricTopology, "
                            f"got {_check.describe(fabric_topology)}")
        self.runtime_resource_factory = runtime_resource_factory
        self.fabric_topology = fabric_topology
        self._fn = fn
        self._params = _parameters(fn, self.name)
        # A unified body (its kernel statements in the body itself) runs through its thread split.
        self._body = unified_body(fn) or fn
        kernels, claims = _captures(fn)
        # Check every capture before binding any, so a failed decoration binds nothing.
        for error in [k._binding_error(self, var) for var, k in kernels] + [c._binding_error(self) for c in claims]:
            if error:
                raise ValueError(error)
        for var, k in kernels:
            k._bind(self, var)
        for c in claims:
            c._bind(self)
        self.kernels = tuple(k for _, k in kernels)
        self.claims = tuple(claims)
        self._set_grid(self.grid)
        self._plans = {}
        self._cpp = None
        self._cpp_key = None
        self._last_plan = None
        self._lifetimes = ()
        self._implicit_kernels = {}  # DSL kernel functions' operation-owned Kernels, by function name
        functools.update_wrapper(self, fn)

    # ---- execution ----

    def _set_grid(self, grid):
        self.grid = grid
        if grid is None:
            self.launch = None
            self._launch_rects = None
        else:
            self.launch = CoreRangeSet([CoreRange((0, 0), (grid[0] - 1, grid[1] - 1))])
            self._launch_rects = [r._rect() for r in self.launch.ranges]

    def _resolve_grid(self, args, tensors, device):
        rule = self._grid_rule
        if isinstance(rule, tuple):
            grid = rule
        elif isinstance(rule, str):
            grid = tuple(device._d.grid())
        else:
            grid = _grid(rule(*args), f"ttl.operation '{self.name}': the grid callable's result")
        if grid != self.grid:
            self._set_grid(grid)

    def __call__(self, *args, **kwargs):
        if kwargs:
            args = self._bind(args, kwargs)
        # Host ttnn tensors run on device copies; what the operation wrote is copied back.
        args, written_back = stage(args, f"operation '{self.name}'")
        mesh = _mesh_shards(args)
        if mesh is not None:
            # SPMD: the operation runs on every device of the mesh with that device's shards.
            for shard_args in mesh:
                self(*shard_args)
            written_back()
            return
        tensors = self._tensors(args, {})
        device = _device_of(tensors, f"operation '{self.name}'")
        self._resolve_grid(args, tensors, device)
        _fits(self.grid, device, f"operation '{self.name}'")
        plan = self.plan(tensors, args, device)
        if not tensors and not plan.kernels and not plan.dfbs:
            return  # the body only ran Python (ttl.grid_size() at operation scope): nothing runs on the device
        cpp = self._operation_for(plan, tensors)
        factory = self.runtime_resource_factory
        results = []
        call = None
        if factory is not None:
            call = _factory_call(factory, tensors, self.launch, results, functools.partial(self._kernel_handle, plan),
                                 self._claim_handle, f"Operation '{self.name}': runtime resources")
        try:
            cpp.run(device._d, [t.buffer._b for t in tensors], self._launch_rects, call)
        except ProgramError as e:
            # The planner names a generated kernel by its descriptor: one per logical kernel, in order.
            for i, (k, _, _) in enumerate(plan.kernels):
                e.add_note(f"tessel.ttl: kernels[{i}].cpp is the generated kernel_main of logical kernel "
                           f"{describe_selector(k)}; {self.name}.generated_kernels(*tensors) returns its source")
            raise
        except (DeadlockError, KernelError, KernelFault, ValidationError) as e:
            if plan.functions:
                e.add_note(dsl_legend(plan))
            raise
        self._lifetimes = retained(results[0]) if results else ()
        self._last_plan = plan
        written_back(plan.written)
        if settings.timing and device.timing:
            t = device.last_run_timing()
            print(f"[tessel] operation '{self.name}': {t.device_cycles} cycles ({t.device_us:.1f} us at "
                  f"{t.clock_mhz:g} MHz)", file=sys.stderr)
        if settings.profile and device.profiler_enabled:
            print_zones(device, self.name)

    @property
    def lifetimes(self):
        """The owners the last successful execution's resources retained (their
        lifetimes, then each fabric binding's), kept until the next success."""
        return self._lifetimes

    @property
    def last_timings(self):
        """Where the last execution's host time went, in seconds: factory,
        validate, plan, lookup, execute (OperationTimings)."""
        if self._cpp is None:
            return None
        return dict(zip(("factory", "validate", "plan", "lookup", "execute"), self._cpp.last_timings()))

    # ---- structure ----

    def plan(self, tensors, args=None, device=None):
        """The traced Plan for these tensors. An operation whose body declares
        only call_extern_func kernels runs its body once per structure and
        aliasing (see the module comment); one with DSL kernel functions runs
        its body on every call, and its kernels are compiled again only when
        what they capture changes. The body gets `args`, the caller's own
        tensor objects (a ttnn.Tensor keeps its logical shape), default
        `tensors`."""
        same_as = aliasing(tensors)
        device = (device or _device_of(tensors, f"operation '{self.name}'"))._d
        # The body sees the caller's tensors: a ttnn tensor's logical shape is part of what it computes from.
        shapes = tuple(tuple(a.shape) for a in args) if args is not None else None
        key = (tuple(t._structure for t in tensors), same_as, self.grid, device.arch(), tuple(device.grid()), shapes)
        plan = self._plans.get(key)
        if plan is not None and not plan.functions:
            return plan
        trace = tracing(Trace(self, tensors, self.grid), self._body, tensors if args is None else args)
        if plan is not None:
            fingerprint = dsl_fingerprint(trace)
            if fingerprint == plan.fingerprint:
                return plan  # the same kernels: what this run declared is in them already
        layouts = tuple(TensorLayout.of(n, t, None if j == i else j)
                        for i, (n, t, j) in enumerate(zip(self._params, tensors, same_as)))
        plan = Plan(self, trace, layouts)
        if len(self._plans) >= _PLAN_CACHE_LIMIT:
            self._plans.clear()
        self._plans[key] = plan
        return plan

    def generated_kernels(self, *args, **kwargs):
        """{selector: C++ source} of the kernels generated for these tensors
        (a ttl.Kernel, or a ttl.KernelKind for a canonical kernel)."""
        plan = self.plan(self._tensors(args, kwargs))
        return {k: s for (k, _, _), s in zip(plan.kernels, plan.sources)}

    def _operation_for(self, plan, tensors):
        # Keyed by the generated sources (which hold every tensor's accessor
        # offsets) and the CBs; the C++ fast path keys each tensor's accessor args itself.
        key = (plan.sources, plan.circular_buffers, plan.semaphores, plan.compute_options)
        if self._cpp is not None and self._cpp_key == key:
            return self._cpp
        # Release the previous C++ Operation first: its Kernel handles can then be declared again.
        self._cpp = self._cpp_key = None
        self._cpp = build_operation(self.name, plan, plan.sources, self.claims, self.fabric_topology,
                                    lambda k: k._cpp(), _claim_handle, plan.compute_options)
        self._cpp_key = key
        return self._cpp

    def _kernel_handle(self, plan, kernel, where):
        if isinstance(kernel, KernelKind):
            return kernel.value
        if kernel._operation is None:
            raise ValidationError(f"{where}: {kernel!r} is not bound to operation '{self.name}' (no operation "
                                  "captures it; the operation's body and the factory must capture the same Kernel)")
        if kernel._operation is not self:
            raise ValidationError(f"{where}: {kernel!r} belongs to operation '{kernel.operation}', not "
                                  f"'{self.name}'")
        if not any(kernel is k for k, _, _ in plan.kernels):
            raise ValidationError(f"{where}: {kernel!r} is bound to this operation but identifies no emitted logical "
                                  "kernel (the body makes no call_extern_func with it)")
        return kernel._cpp()

    def _claim_handle(self, claim, where):
        if claim._operation is None:
            raise ValidationError(f"{where}: {claim!r} is not captured by operation '{self.name}'; its body must "
                                  "capture every claim the resources bind")
        if claim._operation is not self:
            raise ValidationError(f"{where}: {claim!r} belongs to operation '{claim.operation}', not '{self.name}'")
        return claim._cpp()

    def _bind(self, args, kwargs):
        try:
            bound = inspect.signature(self._fn).bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"operation '{self.name}': {e}") from None
        return tuple(bound.arguments[p] for p in self._params)

    def _tensors(self, args, kwargs):
        what = f"operation '{self.name}'"
        if kwargs:
            args = self._bind(args, kwargs)
        if len(args) != len(self._params):
            raise TypeError(f"{what} takes {len(self._params)} tensors ({', '.join(self._params)}), got {len(args)}")
        out = []
        for p, t in zip(self._params, args):
            if isinstance(t, Tensor):
                out.append(t)
                continue
            try:
                out.append(as_tensor(t, f"{what}: {p}"))
            except TypeError:
                raise TypeError(f"{what}: {p} must be a ttl.Tensor or a ttnn.Tensor, got "
                                f"{_check.describe(t)}") from None
        return tuple(out)

    def __repr__(self):
        return f"<ttl.operation '{self.name}' grid={self.grid}>"


# ---------------------------------------------------------------------------
# Shared with emitted runners (runner.py).


def build_operation(name, plan, sources, claims, topology, kernel_handle, claim_handle, compute=None):
    """A C++ Operation declaring `plan`'s kernels with `sources`, its CBs,
    and the compute options (a ComputeOptions) of its compute kernel."""
    op = _tessel.Operation(name)
    for (selector, _, processor), source in zip(plan.kernels, sources):
        handle = kernel_handle(selector) if isinstance(selector, Kernel) else selector.value
        config = compute.lowered() if compute is not None and processor < 0 else None
        op.add_kernel(handle, source, False, processor, config)
    for total, formats in getattr(plan, "circular_buffers", ()):
        op.add_circular_buffer(total, list(formats))
    for value in getattr(plan, "semaphores", ()):
        op.add_semaphore(value)
    for c in claims:
        op.add_fabric_claim(claim_handle(c, "add_fabric_claim"))
    if topology is not None:
        op.set_fabric_topology(*topology._lowered())
    return op


def _claim_handle(claim, where):
    return claim._cpp()


def _factory_call(factory, tensors, core_ranges, results, kernel_handle, claim_handle, where):
    """The callable the C++ factory calls: the user's factory, keyword-only,
    its result checked and lowered (python/src/operation.cpp has the form)."""
    def call(first_free_semaphore_id):
        result = factory(tensors=tensors, core_ranges=core_ranges, first_free_semaphore_id=first_free_semaphore_id)
        lowered = lower_resources(result, kernel_handle, claim_handle, where)
        results.append(result)
        return lowered

    return call


def lower_resources(r, kernel_handle, claim_handle, where):
    if not isinstance(r, ProgramRuntimeResources):
        raise TypeError(f"{where}: the runtime_resource_factory must return a ttl.ProgramRuntimeResources, "
                        f"got {_check.describe(r)}")
    semaphores = [(s.id, s.initial_value, [x._rect() for x in s.core_ranges.ranges]) for s in r.semaphore_descriptors]
    kernels = [(kernel_handle(e.kernel, f"{where}: kernel_resources[{i}]"),
                [(a.core.x, a.core.y, list(a.values)) for a in e.runtime_args],
                [(d.name, d.value) for d in e.defines])
               for i, e in enumerate(r.kernel_resources)]
    fabric = [(claim_handle(b.claim, f"{where}: fabric_connections[{i}]"),
               [(c.local_device, c.remote_device, [x._rect() for x in c.worker_nodes.ranges], c.fixed_link_index)
                for c in b.connections],
               b.abi_identity, list(b.lifetimes))
              for i, b in enumerate(r.fabric_connections)]
    return (semaphores, kernels, list(r.lifetimes), fabric)


def retained(r):
    """The owners a successful execution of `r` keeps."""
    out = r.lifetimes
    for b in r.fabric_connections:
        out += b.lifetimes
    return out


def _grid(value, what):
    if isinstance(value, CoreCoord):
        value = (value.x, value.y)
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(f"{what} must be an (x, y) tuple of positive integers, got {_check.describe(value)}")
    return tuple(_check.integer(v, f"{what}[{i}]", 1, 0xFFFF, "a positive integer") for i, v in enumerate(value))


def _fits(grid, device, what):
    gx, gy = device._d.grid()
    if grid[0] > gx or grid[1] > gy:
        raise ValidationError(f"{what}: grid ({grid[0]}, {grid[1]}) does not fit the device's {gx}x{gy} worker grid")


def _device_of(tensors, what):
    if not tensors:
        # An operation with no tensors (ttl.node() and ttl.grid_size() alone) runs where a
        # TT-Lang program without tensors would: the one open ttnn device, else device 0.
        from ..ttnn.staging import device_for_host_tensors

        return device_for_host_tensors(what).tessel_device
    device = tensors[0].buffer.device
    if any(t.buffer.device is not device for t in tensors):
        n = len({id(t.buffer.device) for t in tensors})
        raise ValueError(f"{what}: the tensors are on {n} different devices; expected one")
    if not isinstance(device, Device) or not device._d.is_open():
        raise ValidationError(f"{what}: the tensors' device is closed")
    return device


def _parameters(fn, name):
    params = []
    for p in inspect.signature(fn).parameters.values():
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) or p.default is not p.empty:
            raise TypeError(f"ttl.operation '{name}': every parameter of the body is a tensor taken by position; "
                            f"'{p.name}' is not (no *args, **kwargs, keyword-only parameters or defaults)")
        params.append(p.name)
    return tuple(params)


def _check_factory(factory, what):
    if not callable(factory):
        raise TypeError(f"{what} must be callable, got {_check.describe(factory)}")
    try:
        inspect.signature(factory).bind(tensors=(), core_ranges=None, first_free_semaphore_id=0)
    except TypeError:
        raise TypeError(f"{what} must take the keyword arguments tensors, core_ranges and first_free_semaphore_id "
                        "(def make_resources(*, tensors, core_ranges, first_free_semaphore_id)), "
                        f"got {getattr(factory, '__name__', 'it')}{inspect.signature(factory)}") from None
    except ValueError:
        pass  # no signature to inspect (a builtin): the call itself will tell


def _captures(fn):
    """The Kernels (with the names they are captured as) and the claims the
    body refers to: closure variables and globals, nested functions included."""
    kernels, claims, seen = [], [], set()

    def add(name, value):
        if id(value) in seen:
            return
        if isinstance(value, Kernel):
            seen.add(id(value))
            kernels.append((name, value))
        elif isinstance(value, FabricManagerClaim):
            seen.add(id(value))
            claims.append(value)

    if fn.__closure__:
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            try:
                add(name, cell.cell_contents)
            except ValueError:  # an empty cell
                pass
    codes = [fn.__code__]
    while codes:
        code = codes.pop()
        for name in code.co_names:
            if name in fn.__globals__:
                add(name, fn.__globals__[name])
        codes += [c for c in code.co_consts if inspect.iscode(c)]
    return kernels, claims


def _mesh_shards(args):
    """For arguments that include mesh tensors (with per-device `_shards`):
    the arguments of each device's run, else None."""
    counts = {len(a._shards) for a in args if getattr(a, "_shards", None) is not None}
    if not counts:
        return None
    if len(counts) > 1:
        raise ValueError(f"the mesh tensors are on meshes of {sorted(counts)} devices; expected one mesh")
    (n,) = counts
    return [tuple(a._shards[d] if getattr(a, "_shards", None) is not None else a for a in args) for d in range(n)]
