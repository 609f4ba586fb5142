"""How a tessel.ttl operation's body becomes kernels: call_extern_func
records calls while the body is traced, and each logical kernel's calls
become a generated kernel_main (docs/python.md, "tessel.ttl", has the
calling convention).

Argument layout, per logical kernel (the C++ Operation's planner,
tessel/operation.hpp, puts the values there):

  compile-time args   the TensorAccessorArgs of every operation tensor, in
                      argument order, chained from 0: tensors[i]'s start at
                      the sum of the counts before it, each count read from
                      tessel::TensorAccessorArgs(buffer) (2 for an
                      interleaved tensor, 4 + 2 * rank + banks for a sharded
                      one)
  common runtime args tensors[i]'s address at i; then the accessors' own
                      common args, chained from the tensor count the same
                      way (tessel's accessors take none)

The generated source carries these offsets as numbers and static_asserts
them against what the kernel-side TensorAccessorArgs reads, so a kernel
built for other tensors fails to compile instead of misreading its args.
"""

import os
import re
import threading
from dataclasses import dataclass

import numpy as np

from .. import _check
from ..errors import ValidationError
from .records import Kernel, KernelKind
from .tensor import Tensor

__all__ = ["RawAddress", "call_extern_func", "raw_addr"]

_CALLEE = re.compile(r"(::)?[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*")
_INT_MIN, _INT_MAX = -(1 << 31), (1 << 32) - 1


@dataclass(frozen=True, eq=False)
class RawAddress:
    """A tensor's bare 32-bit buffer address as a func_args entry (ttl.raw_addr)."""

    tensor: Tensor


def raw_addr(tensor):
    """Pass `tensor`'s buffer address (a uint32_t, no layout) to an external function."""
    if not isinstance(tensor, Tensor) and isinstance(getattr(tensor, "_ttl", None), Tensor):
        tensor = tensor._ttl  # a ttnn.Tensor
    if not isinstance(tensor, Tensor):
        raise TypeError(f"ttl.raw_addr: tensor must be a ttl.Tensor or a ttnn.Tensor, got {_check.describe(tensor)}")
    return RawAddress(tensor)


@dataclass(frozen=True)
class Call:
    """One call_extern_func: the header (absolute), the callee, and its
    lowered arguments: ("tensor", i) | ("address", i) | ("int", v) | ("bool", v)."""

    header: str
    callee: str
    func_args: tuple
    template_args: tuple
    kernel: object  # Kernel or KernelKind


class Trace:
    """What one run of an operation's body declared: its call_extern_func
    calls, dataflow buffers and kernel functions (ttl/dsl.py), on `grid`."""

    def __init__(self, operation, tensors, grid=None):
        self.operation = operation
        self.tensors = tensors
        self.grid = grid
        self.calls = []
        self.dfbs = []
        self.functions = []
        self.semaphores = []


_active = threading.local()


def tracing(trace, body, args):
    """Run `body(*args)` with call_extern_func recording into `trace`."""
    stack = getattr(_active, "stack", None)
    if stack is None:
        stack = _active.stack = []
    stack.append(trace)
    try:
        result = body(*args)
    finally:
        stack.pop()
    if result is not None:
        raise TypeError(f"operation '{trace.operation.name}': the body must return None (outputs are written into "
                        f"its tensor arguments), got {_check.describe(result)}")
    return trace


def current_trace(what):
    """The trace of the operation body that is running; `what` names the caller in the error."""
    stack = getattr(_active, "stack", None)
    if not stack:
        raise RuntimeError(f"{what}: called outside an operation's body; call it from the body of a "
                           "@ttl.operation function (tessel runs the body when the operation is called)")
    return stack[-1]


def call_extern_func(header, callee, *, func_args=(), template_args=(), kernel=None):
    """Call the C++ function `callee`, declared in `header`, from a logical
    kernel of the operation whose body is running: func_args are the
    operation's tensors (each passed as a TensorAccessor), ttl.raw_addr(t)
    (a uint32_t address) and integers or booleans (constants);
    template_args integers or booleans. kernel selects the logical kernel: a
    ttl.Kernel the body captures, or a ttl.KernelKind for the canonical
    kernel of that kind (default: KernelKind.DATA_MOVEMENT). The compiler
    does not check the C++ signature."""
    stack = getattr(_active, "stack", None)
    if not stack:
        raise RuntimeError("ttl.call_extern_func: called outside an operation's body; call it from the body of a "
                           "@ttl.operation function (tessel traces the body when the operation runs)")
    trace = stack[-1]
    what = "ttl.call_extern_func"
    if not isinstance(header, (str, os.PathLike)):
        raise TypeError(f"{what}: header must be a path (str or os.PathLike), got {_check.describe(header)}")
    path = os.path.abspath(os.fspath(header))
    if not os.path.isfile(path):
        raise ValueError(f"{what}: header '{os.fspath(header)}' is not a file (looked for {path})")
    _check.text(callee, f"{what}: callee")
    if not _CALLEE.fullmatch(callee):
        raise ValueError(f"{what}: callee must be a C++ function name (optionally qualified, ns::name), "
                         f"got {callee!r}")
    if kernel is None:
        kernel = KernelKind.DATA_MOVEMENT
    _kernel_of_operation(kernel, trace.operation, f"{what}: kernel")
    args = tuple(_func_arg(a, i, trace, kernel) for i, a in enumerate(_sequence(func_args, f"{what}: func_args")))
    targs = tuple(_constant(a, f"{what}: template_args[{i}]")
                  for i, a in enumerate(_sequence(template_args, f"{what}: template_args")))
    trace.calls.append(Call(path, callee, args, targs, kernel))


def _sequence(value, what):
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{what} must be a list or tuple, got {_check.describe(value)}")
    return value


def _kernel_of_operation(kernel, operation, what):
    if isinstance(kernel, KernelKind):
        return
    if not isinstance(kernel, Kernel):
        raise TypeError(f"{what} must be a ttl.Kernel or a ttl.KernelKind, got {_check.describe(kernel)}")
    if kernel._operation is None:
        raise ValidationError(f"{what}: {kernel!r} is not captured by operation '{operation.name}'; the body must "
                              "capture the Kernel it selects (as a closure variable or a global)")
    if kernel._operation is not operation:
        raise ValidationError(f"{what}: {kernel!r} belongs to operation '{kernel.operation}', not "
                              f"'{operation.name}'")


def _func_arg(value, i, trace, kernel):
    what = f"ttl.call_extern_func: func_args[{i}]"
    if not isinstance(value, (Tensor, RawAddress)) and isinstance(getattr(value, "_ttl", None), Tensor):
        value = value._ttl  # a ttnn.Tensor argument
    if isinstance(value, (Tensor, RawAddress)):
        tensor = value.tensor if isinstance(value, RawAddress) else value
        # The first parameter holding the tensor: aliasing() keys the plan on this choice.
        index = next((j for j, t in enumerate(trace.tensors) if t is tensor), None)
        if index is None:
            raise ValueError(f"{what} is {tensor!r}, which is not one of operation '{trace.operation.name}''s "
                             "tensor arguments; pass the body's own arguments")
        if isinstance(value, RawAddress):
            return ("address", index)
        if _kind(kernel) is KernelKind.COMPUTE:
            raise ValueError(f"{what}: a tensor becomes a TensorAccessor, which only data-movement kernels have; "
                             f"the call selects a compute kernel ({kernel!r}); pass ttl.raw_addr(tensor) instead")
        return ("tensor", index)
    try:
        return _constant(value, what)
    except TypeError:
        raise TypeError(f"{what} must be a ttl.Tensor (an argument of the operation), ttl.raw_addr(tensor), an "
                        f"integer or a bool, got {_check.describe(value)}") from None


def _constant(value, what):
    if isinstance(value, (bool, np.bool_)):
        return ("bool", bool(value))
    return ("int", _check.integer(value, what, _INT_MIN, _INT_MAX, "an integer or a bool"))


def _kind(selector):
    return selector.kind if isinstance(selector, Kernel) else selector


# ---------------------------------------------------------------------------
# kernel_main generation


@dataclass(frozen=True)
class TensorLayout:
    """What a generated kernel depends on about one tensor argument: its
    accessor's layout and, when the traced call passed the same tensor in an
    earlier parameter too, that parameter's index (same_as): the calls then
    use the earlier parameter's accessor and address in its place."""

    name: str
    layout: str
    compile_time_args: int
    common_runtime_args: int
    page_size: int
    same_as: "int | None" = None

    @staticmethod
    def of(name, tensor, same_as=None):
        cta, crta = tensor._accessor
        return TensorLayout(name, tensor.layout, len(cta), len(crta), tensor.buffer.page_size, same_as)


def aliasing(tensors):
    """For each tensor, the index of the first parameter holding that very
    tensor (its own index when no earlier one does). The trace finds a tensor's
    argument by identity, so it binds each call argument to that first
    parameter: the kernels it generates are right only for calls that alias
    the same parameters."""
    return tuple(next(j for j, u in enumerate(tensors) if u is t) for t in tensors)


def offsets(layouts):
    """(compile-time offsets, common-runtime offsets) of each tensor's accessor
    args, plus the totals: see the module comment."""
    cta, crta = [], []
    at, crta_at = 0, len(layouts)
    for t in layouts:
        cta.append(at)
        crta.append(crta_at)
        at += t.compile_time_args
        crta_at += t.common_runtime_args
    return cta, crta, at, crta_at


def describe_selector(selector):
    if isinstance(selector, Kernel):
        return f"'{selector.name}' ({selector.kind.name})"
    return f"{selector.name} (canonical)"


def kernel_source(operation_name, selector, calls, layouts, include=None):
    """The C++ source of one logical kernel: its calls, in order, in a
    generated kernel_main. include(header) gives the #include spelling of a
    header (default: its absolute path)."""
    include = include or (lambda h: h)
    compute = _kind(selector) is KernelKind.COMPUTE
    cta, crta, cta_total, _ = offsets(layouts)
    width = max([len(t.name) for t in layouts] + [4])
    lines = [
        f"// Generated by tessel.ttl: operation '{operation_name}', logical kernel {describe_selector(selector)}.",
        "//",
        "// Compile-time args: each tensor's TensorAccessorArgs, chained from 0" + (":" if layouts else " (none)."),
    ]
    for i, t in enumerate(layouts):
        line = f"//   tensors[{i}] {t.name:<{width}}  {t.layout:<16}  {t.compile_time_args} args at {cta[i]}"
        if t.same_as is not None:
            line += f"  (the same tensor as tensors[{t.same_as}]; the calls use tensor{t.same_as})"
        lines.append(line)
    n = len(layouts)
    lines.append(f"// Common runtime args: tensors[i]'s address at i (0..{n - 1}); accessor common args from {n}"
                 if n else "// Common runtime args: none.")
    lines.append("")
    lines.append('#include "api/compute/common.h"' if compute else '#include "api/dataflow/dataflow_api.h"')
    headers = []
    for c in calls:
        if c.header not in headers:
            headers.append(c.header)
    lines += [f'#include "{include(h)}"' for h in headers]
    lines += ["", "void kernel_main() {"]
    lines.append(f"  static_assert(tessel_compile_time_arg_count == {cta_total}, \"tessel.ttl: this kernel was "
                 f"generated for tensors whose accessors take {cta_total} compile-time args\");")
    used = sorted({a[1] for c in calls for a in c.func_args if a[0] == "tensor"})
    for i in used:
        t = layouts[i]
        nxt_cta, nxt_crta = cta[i] + t.compile_time_args, crta[i] + t.common_runtime_args
        lines += [
            f"  constexpr auto tensor{i}_args = TensorAccessorArgs<{cta[i]}, {crta[i]}>();",
            f"  static_assert(tensor{i}_args.next_compile_time_args_offset() == {nxt_cta} &&",
            f"                    tensor{i}_args.next_common_runtime_args_offset() == {nxt_crta},",
            (f"                \"tessel.ttl: tensors[{i}] ({t.name}) is not the {t.layout} tensor this kernel was "
             f"generated for\");"),
            (f"  const auto tensor{i} = TensorAccessor(tensor{i}_args, get_common_arg_val<uint32_t>({i}), "
             f"{t.page_size});"),
        ]
    for c in calls:
        targs = f"<{', '.join(_literal(a) for a in c.template_args)}>" if c.template_args else ""
        args = ", ".join(_argument(a) for a in c.func_args)
        lines.append(f"  {c.callee}{targs}({args});")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _literal(arg):
    kind, v = arg
    if kind == "bool":
        return "true" if v else "false"
    if v < 0:
        return f"({v})"
    return f"{v}u" if v > 0x7FFFFFFF else str(v)


def _argument(arg):
    kind, v = arg
    if kind == "tensor":
        return f"tensor{v}"
    if kind == "address":
        return f"get_common_arg_val<uint32_t>({v})"
    return _literal(arg)
