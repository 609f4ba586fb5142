"""Emitted runners for tessel.ttl operations (spec/operation-runtime-resources,
"Emitted Runners and Simulator"): ttl.emit_runner(op, path) writes an
operation's generated kernels out, and ttl.load_runner(path).run(tensors,
runtime_resource_factory=..., device=...) runs them again, from the
directory alone, through the same C++ validation, planner and program cache
as the decorated operation.

Directory layout:

  <path>/ttl-runner.json   tessel.ttl's manifest (below)
  <path>/runner.py         a module with run(tensors, *, runtime_resource_factory, device)
  <path>/operation/        the C++ emitted runner (tessel/runner.hpp: manifest.txt and
                           the kernel files), with a copy of every header the
                           kernels include, beside them

ttl-runner.json (format "tessel.ttl runner", version 2) holds what the C++
artifact does not: the operation's grid and launch range, and the layout of
each tensor the kernels were generated for (the accessor offsets are numbers
in their sources). It never holds dispatch values or owners: the factory
supplies them on every run. The runner finds the factory's Kernels and
fabric claims again by name (a Kernel's is the name the operation captured
it as), so a factory written for the operation, or a fresh copy of it in
another process, works unchanged.

Aliasing: each tensor's "same_as" is null, or the index of the earlier
parameter that held the very same tensor in the traced call. The kernels of
such a call use that parameter in its place, so run refuses a call that does
not pass the same tensor there too. Kernels traced with distinct tensors
bind every parameter by position and take any call, aliased or not.
Version 1 manifests had no same_as and are refused: emit the runner again.

emit_runner writes a sibling temporary directory and renames it into place,
so a failed emit leaves an earlier runner at the path as it was. A header's
copy is only that file: a header that includes its own siblings by relative
path does not compile from the artifact.
"""

import json
import os
import shutil

from .. import _check, _tessel
from ..core import CoreRange, CoreRangeSet
from ..device import Device
from ..errors import ValidationError
from .extern import TensorLayout, kernel_source
from .operation import (
    Operation,
    _check_factory,
    _device_of,
    _factory_call,
    _fits,
    build_operation,
    retained,
)
from .records import Kernel, KernelKind
from .tensor import Tensor

__all__ = ["Runner", "emit_runner", "load_runner"]

MANIFEST = "ttl-runner.json"
FORMAT = "tessel.ttl runner"
VERSION = 2
_OPERATION_DIR = "operation"

_RUNNER_MODULE = '''"""Emitted tessel.ttl runner for operation {name!r} (tessel.ttl.emit_runner)."""
import os as _os

import tessel.ttl as _ttl

runner = _ttl.load_runner(_os.path.dirname(_os.path.abspath(__file__)))


def run(tensors, *, runtime_resource_factory, device):
    """One execution; the factory supplies this call's dispatch values and owners."""
    runner.run(tensors, runtime_resource_factory=runtime_resource_factory, device=device)
'''


def emit_runner(op, path, *, tensors=None):
    """Write `op`'s kernels, as generated for `tensors` (default: the tensors of
    its last successful execution), to the directory `path` (created; an
    earlier runner or an empty directory there is replaced). Returns the
    directory's absolute path."""
    if not isinstance(op, Operation):
        raise TypeError(f"ttl.emit_runner: op must be a @ttl.operation, got {_check.describe(op)}")
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"ttl.emit_runner: path must be a str or os.PathLike, got {_check.describe(path)}")
    what = f"ttl.emit_runner: operation '{op.name}'"
    if tensors is not None:
        plan = op.plan(op._tensors(tuple(tensors), {}))
    elif op._last_plan is not None:
        plan = op._last_plan
    else:
        raise ValidationError(f"{what} has not run yet, and its kernels depend on its tensors' layouts; run it once "
                              "or pass tensors=[...]")
    if not plan.kernels:
        raise ValidationError(f"{what}: its body makes no call_extern_func, so there is no kernel to emit")

    headers = plan.headers()
    copies = {}
    for i, h in enumerate(headers):
        base = os.path.basename(h)
        copies[h] = base if sum(os.path.basename(x) == base for x in headers) == 1 else f"header{i}-{base}"
    sources = [kernel_source(op.name, k, calls, plan.layouts, include=copies.__getitem__)
               for k, calls, _ in plan.kernels]
    # The artifact's own Kernel and claim handles (the live operation's are bound to it).
    kernels = {}

    def kernel_handle(k):
        if id(k) not in kernels:
            kernels[id(k)] = _tessel.Kernel(k.kind.value, k.name or "")
        return kernels[id(k)]

    def claim_handle(c, where):
        selector = kernel_handle(c.kernel) if isinstance(c.kernel, Kernel) else c.kernel.value
        return _tessel.FabricManagerClaim(c.name, selector)

    cpp = build_operation(op.name, plan, sources, op.claims, op.fabric_topology, kernel_handle, claim_handle)
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "operation": op.name,
        "grid": list(op.grid),
        "launch": [list(r._rect()) for r in op.launch.ranges],
        "tensors": [{"name": t.name, "layout": t.layout, "compile_time_args": t.compile_time_args,
                     "common_runtime_args": t.common_runtime_args, "page_size": t.page_size, "same_as": t.same_as}
                    for t in plan.layouts],
        "kernels": [{"kernel": k.name if isinstance(k, Kernel) else None, "kind": _kind(k).name}
                    for k, _, _ in plan.kernels],
        "claims": [c.name for c in op.claims],
        "headers": [copies[h] for h in headers],
    }

    target = os.path.abspath(os.fspath(path)).rstrip(os.sep) or os.sep
    _check_target(target)
    parent = os.path.dirname(target)
    try:
        os.makedirs(parent, exist_ok=True)
    except OSError as e:
        raise ValidationError(f"ttl.emit_runner: cannot create directory '{parent}': {e.strerror}") from None
    tmp = f"{target}.tmp-{os.getpid()}-{id(manifest):x}"
    try:
        os.mkdir(tmp)
        _tessel.emit_runner(cpp, os.path.join(tmp, _OPERATION_DIR))
        for h in headers:
            shutil.copyfile(h, os.path.join(tmp, _OPERATION_DIR, copies[h]))
        with open(os.path.join(tmp, MANIFEST), "w", encoding="utf-8") as f:
            json.dump(manifest, f, indent=2)
            f.write("\n")
        with open(os.path.join(tmp, "runner.py"), "w", encoding="utf-8") as f:
            f.write(_RUNNER_MODULE.format(name=op.name))
        _publish(tmp, target)
    except OSError as e:
        raise ValidationError(f"ttl.emit_runner: cannot write '{e.filename or target}': {e.strerror}") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def _check_target(target):
    if not os.path.lexists(target):
        return
    if not os.path.isdir(target):
        raise ValidationError(f"ttl.emit_runner: '{target}' exists and is not a directory; expected a new path or a "
                              "runner directory")
    if os.listdir(target) and not os.path.isfile(os.path.join(target, MANIFEST)):
        raise ValidationError(f"ttl.emit_runner: '{target}' exists and is not an emitted tessel.ttl runner (no "
                              f"{MANIFEST}); expected a new path, an empty directory or an earlier runner to replace")


def _publish(tmp, target):
    if not os.path.lexists(target):
        os.rename(tmp, target)
        return
    old = f"{tmp}.old"
    os.rename(target, old)
    try:
        os.rename(tmp, target)
    except OSError:
        os.rename(old, target)
        raise
    shutil.rmtree(old, ignore_errors=True)


def load_runner(path):
    """The runner emitted at `path` (ttl.emit_runner)."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"ttl.load_runner: path must be a str or os.PathLike, got {_check.describe(path)}")
    return Runner._load(os.path.abspath(os.fspath(path)))


class Runner:
    """An emitted operation, run from its directory: run(tensors,
    runtime_resource_factory=..., device=...) on the stored launch range."""

    def __init__(self, *args, **kwargs):
        raise TypeError("use tessel.ttl.load_runner(path) to load an emitted runner")

    @classmethod
    def _load(cls, directory):
        file = os.path.join(directory, MANIFEST)
        try:
            with open(file, encoding="utf-8") as f:
                m = json.load(f)
        except FileNotFoundError:
            raise ValidationError(f"ttl.load_runner: no {MANIFEST} in '{directory}'; expected a directory written by "
                                  "ttl.emit_runner") from None
        except (OSError, ValueError) as e:
            raise ValidationError(f"ttl.load_runner: {file}: cannot read it as JSON: {e}") from None
        self = object.__new__(cls)
        self.directory = directory
        self._read(m, file)
        self._cpp = self._load_cpp()
        if self._cpp.operation_name() != self.operation_name:
            raise ValidationError(f"ttl.load_runner: {file}: operation '{self.operation_name}', but "
                                  f"{_OPERATION_DIR}/ holds operation '{self._cpp.operation_name()}'")
        self._lifetimes = ()
        return self

    def _load_cpp(self):
        return _tessel.Runner.load(os.path.join(self.directory, _OPERATION_DIR))

    def _read(self, m, file):
        def field(obj, name, kind, where="", check=None, expected=None):
            value = obj.get(name) if isinstance(obj, dict) else None
            if not isinstance(value, kind) or isinstance(value, bool) or (check and not check(value)):
                expected = expected or {str: "a string", int: "an integer", list: "a list"}[kind]
                raise ValidationError(f"ttl.load_runner: {file}: {where}'{name}' must be {expected}, "
                                      f"got {json.dumps(value)}")
            return value

        if not isinstance(m, dict) or m.get("format") != FORMAT:
            raise ValidationError(f"ttl.load_runner: {file}: not a tessel.ttl runner manifest (expected \"format\": "
                                  f"\"{FORMAT}\")")
        if m.get("version") != VERSION:
            raise ValidationError(f"ttl.load_runner: {file}: version {json.dumps(m.get('version'))}; this tessel "
                                  f"reads version {VERSION}")
        self.operation_name = field(m, "operation", str)
        grid = field(m, "grid", list, check=lambda g: len(g) == 2 and all(type(v) is int and v > 0 for v in g),
                     expected="[x, y], two positive integers")
        self.grid = tuple(grid)
        launch = field(m, "launch", list, check=lambda ls: ls and all(
            isinstance(r, list) and len(r) == 4 and all(type(v) is int and v >= 0 for v in r) for r in ls),
            expected="a non-empty list of [x0, y0, x1, y1] core rectangles")
        self.launch = CoreRangeSet([CoreRange((r[0], r[1]), (r[2], r[3])) for r in launch])
        self._launch_rects = [r._rect() for r in self.launch.ranges]
        layouts = []
        for i, t in enumerate(field(m, "tensors", list)):
            where = f"tensors[{i}]: "
            name, layout = field(t, "name", str, where), field(t, "layout", str, where)
            cta = field(t, "compile_time_args", int, where, lambda v: v >= 0, "a non-negative integer")
            crta = field(t, "common_runtime_args", int, where, lambda v: v >= 0, "a non-negative integer")
            page_size = field(t, "page_size", int, where, lambda v: v > 0, "a positive integer")
            same_as = t.get("same_as", "missing")
            if same_as is not None and not (type(same_as) is int and 0 <= same_as < i
                                            and layouts[same_as].same_as is None):
                got = "it is missing" if same_as == "missing" else f"got {json.dumps(same_as)}"
                raise ValidationError(f"ttl.load_runner: {file}: {where}'same_as' must be null or the index of an "
                                      f"earlier tensor that is not itself the same as another, {got}")
            layouts.append(TensorLayout(name, layout, cta, crta, page_size, same_as))
        self.layouts = tuple(layouts)

    # ---- identities ----

    def kernel(self, name):
        """A ttl.Kernel for the runner's captured kernel `name`, for factories
        written against the runner (factories built for the operation work too:
        their Kernels are found by name)."""
        _check.text(name, "Runner.kernel: name")
        return Kernel(KernelKind(self._cpp.kernel(name).kind()), name)

    def _kernel_handle(self, kernel, where):
        if isinstance(kernel, KernelKind):
            return kernel.value
        prefix = where
        if kernel.name is None:
            raise ValidationError(f"{prefix}: {kernel!r} has no name, so the runner cannot find its logical kernel; "
                                  "capture it in the operation (or name it: ttl.Kernel(kind, name=...))")
        if kernel.operation is not None and kernel.operation != self.operation_name:
            raise ValidationError(f"{prefix}: {kernel!r} belongs to operation '{kernel.operation}', not "
                                  f"'{self.operation_name}'")
        try:
            cpp = self._cpp.kernel(kernel.name)
        except ValidationError as e:
            raise ValidationError(f"{prefix}: {e}") from None
        if cpp.kind() != kernel.kind.value:
            raise ValidationError(f"{prefix}: {kernel!r} is {kernel.kind.name}, but the runner's kernel "
                                  f"'{kernel.name}' is {KernelKind(cpp.kind()).name}")
        return cpp

    def _claim_handle(self, claim, where):
        try:
            return self._cpp.claim(claim.name)
        except ValidationError as e:
            raise ValidationError(f"{where}: {e}") from None

    # ---- execution ----

    def run(self, tensors, *, runtime_resource_factory, device):
        """One execution on the stored launch range. The factory is required:
        the artifact holds no dispatch values or owners."""
        what = f"Runner '{self.directory}' (operation '{self.operation_name}')"
        if not isinstance(tensors, (list, tuple)):
            raise TypeError(f"{what}: run: tensors must be a list or tuple of ttl.Tensor, got "
                            f"{_check.describe(tensors)}")
        tensors = tuple(tensors)
        for i, t in enumerate(tensors):
            if not isinstance(t, Tensor):
                raise TypeError(f"{what}: run: tensors[{i}] must be a ttl.Tensor, got {_check.describe(t)}")
        if runtime_resource_factory is None:
            raise TypeError(f"{what}: run needs runtime_resource_factory on every call; the runner holds no dispatch "
                            "values or owners")
        _check_factory(runtime_resource_factory, f"{what}: run: runtime_resource_factory")
        if not isinstance(device, Device):
            raise TypeError(f"{what}: run: device must be a tessel.Device, got {_check.describe(device)}")
        if tensors and _device_of(tensors, what) is not device:
            raise ValidationError(f"{what}: run: the tensors are not on `device`")
        _fits(self.grid, device, what)
        self._check_layouts(tensors, what)
        self._check_aliasing(tensors, what)
        results = []
        call = _factory_call(runtime_resource_factory, tensors, self.launch, results, self._kernel_handle,
                             self._claim_handle, f"{what}: runtime resources")
        self._cpp.run(device._d, [t.buffer._b for t in tensors], self._launch_rects, call)
        self._lifetimes = retained(results[0])

    def _check_layouts(self, tensors, what):
        if len(tensors) != len(self.layouts):
            raise ValidationError(f"{what}: run: got {len(tensors)} tensors; the runner's kernels were generated for "
                                  f"{len(self.layouts)} ({', '.join(t.name for t in self.layouts)})")
        for i, (t, want) in enumerate(zip(tensors, self.layouts)):
            got = TensorLayout.of(want.name, t)
            if (got.compile_time_args, got.common_runtime_args, got.page_size) != (
                    want.compile_time_args, want.common_runtime_args, want.page_size):
                raise ValidationError(
                    f"{what}: run: tensors[{i}] ({want.name}) is a {got.layout} tensor whose accessor takes "
                    f"{got.compile_time_args} compile-time args, with {got.page_size} B pages; the runner's kernels "
                    f"were generated for a {want.layout} tensor with {want.compile_time_args} and "
                    f"{want.page_size} B pages (emit a runner for this layout)")

    def _check_aliasing(self, tensors, what):
        # Kernels traced with one tensor in two parameters use the first in
        # place of the second: right only when this call passes the same tensor.
        for i, (t, want) in enumerate(zip(tensors, self.layouts)):
            j = want.same_as
            if j is not None and t is not tensors[j]:
                first = self.layouts[j].name
                raise ValidationError(
                    f"{what}: run: tensors[{i}] ({want.name}) must be the same tensor as tensors[{j}] ({first}): the "
                    "runner's kernels were generated for a call that passed one tensor as both, and read "
                    f"tensors[{j}] in its place; emit the runner from a call with distinct tensors "
                    "(ttl.emit_runner(op, path, tensors=[...]))")

    @property
    def lifetimes(self):
        """The owners the last successful run's resources retained."""
        return self._lifetimes

    def __repr__(self):
        return f"<ttl.Runner '{self.operation_name}' grid={self.grid} at {self.directory}>"


def _kind(selector):
    return selector.kind if isinstance(selector, Kernel) else selector
