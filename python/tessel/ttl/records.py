"""tessel.ttl's logical-kernel handles and runtime-resource records
(spec/operation-runtime-resources, "Typed Records"): KernelKind, Kernel,
ProgramRuntimeResources, KernelRuntimeResources, CoreRuntimeArgs,
KernelDefine, FabricManagerClaim, FabricConnectionBinding,
FabricConnectionRequirement, and the topology that fabric bindings are
checked against (FabricLink, FabricTopology).

Records are frozen dataclasses and every collection field is a tuple. Each
record checks its own fields when it is built, in the spec's words (the
documented record and tuple types, integer-indexable non-boolean words,
string define names and values), so a factory that builds a wrong record
fails at the line that builds it with a TypeError or ValueError naming the
record and the field. The rules about how records relate to the operation
(coordinates inside the worker range, unique ids, one entry per kernel, ...)
are the C++ Operation's (tessel/operation.hpp) and raise
tessel.ValidationError when the operation runs.
"""

import contextlib
import enum
from dataclasses import dataclass, field

from .. import _check, _tessel
from ..core import CoreCoord, CoreRange, CoreRangeSet
from ..ttnn import SemaphoreDescriptor

__all__ = [
    "CoreRuntimeArgs",
    "FabricConnectionBinding",
    "FabricConnectionRequirement",
    "FabricLink",
    "FabricManagerClaim",
    "FabricTopology",
    "Kernel",
    "KernelDefine",
    "KernelKind",
    "KernelRuntimeResources",
    "ProgramRuntimeResources",
]

_INTEGER = "an integer-indexable non-boolean object"


class KernelKind(enum.Enum):
    """Selects an operation's canonical kernel of a kind (its one compute or
    one data-movement kernel). The values are the C++ tessel::KernelKind's."""

    COMPUTE = 0
    DATA_MOVEMENT = 1

    def __repr__(self):
        return f"ttl.KernelKind.{self.name}"


class Kernel:
    """An operation-owned logical kernel, for an operation with more than one
    kernel of a kind. The operation and its runtime resource factory capture
    the same Kernel object: @ttl.operation binds every Kernel its body
    captures to that operation, under the name it is captured as (unless one
    was given here), and an emitted runner finds it again by that name.
    Compared by identity."""

    __slots__ = ("_handle", "_kind", "_name", "_operation")

    def __init__(self, kind, name=None):
        if not isinstance(kind, KernelKind):
            raise TypeError(f"ttl.Kernel: kind must be a ttl.KernelKind, got {_check.describe(kind)}")
        if name is not None:
            _identifier(name, "ttl.Kernel: name")
        self._kind = kind
        self._name = name
        self._operation = None  # the ttl operation that captured it
        self._handle = None  # the C++ tessel::Kernel, made when first needed

    @property
    def kind(self):
        return self._kind

    @property
    def name(self):
        """The name given here, or the one the capturing operation bound; None before either."""
        return self._name

    @property
    def operation(self):
        """The name of the operation this Kernel is bound to, or None."""
        return self._operation.name if self._operation is not None else None

    def _binding_error(self, operation, name):
        """Why this Kernel cannot be bound to `operation` as `name`, or None."""
        if self._operation is not None and self._operation is not operation:
            return (f"{self!r} is already bound to operation '{self.operation}'; each ttl.Kernel belongs to one "
                    "operation (make one per operation)")
        if self._operation is None and self._name is None and self._handle is not None:
            return (f"ttl.Kernel({self._kind!r}) was used before operation '{operation.name}' captured it as "
                    f"'{name}'; give it that name when you create it: ttl.Kernel(kind, name='{name}')")
        return None

    def _bind(self, operation, name):
        if self._name is None:
            self._name = name
        self._operation = operation

    def _cpp(self):
        if self._handle is None:
            self._handle = _tessel.Kernel(self._kind.value, self._name or "")
        return self._handle

    def __repr__(self):
        name = f"'{self._name}'" if self._name else "(unnamed)"
        bound = f", operation '{self.operation}'" if self._operation is not None else ""
        return f"ttl.Kernel({name}, {self._kind!r}{bound})"


def _identifier(value, what):
    _check.text(value, what)
    if not (value.isascii() and value.isidentifier()):
        raise ValueError(f"{what} must be a C identifier (letters, digits and '_', not starting with a digit), "
                         f"got {value!r}")
    return value


def _selector(value, what):
    if not isinstance(value, (Kernel, KernelKind)):
        raise TypeError(f"{what} must be a ttl.Kernel or a ttl.KernelKind, got {_check.describe(value)}")
    return value


def _tuple(value, what, of):
    """A tuple field: anything else (a list included) is a TypeError naming the field."""
    if not isinstance(value, tuple):
        hint = "; use a tuple" if isinstance(value, list) else ""
        raise TypeError(f"{what} must be a tuple of {of}, got {_check.describe(value)}{hint}")
    return value


def _records(value, what, cls, name):
    for i, item in enumerate(_tuple(value, what, name)):
        if not isinstance(item, cls):
            raise TypeError(f"{what}[{i}] must be a {name}, got {_check.describe(item)}")
    return value


def _core_ranges(value, what):
    if isinstance(value, CoreRange):
        return CoreRangeSet([value])
    if not isinstance(value, CoreRangeSet):
        raise TypeError(f"{what} must be a ttnn.CoreRangeSet (or a ttnn.CoreRange), got {_check.describe(value)}")
    return value


def _set(obj, name, value):
    object.__setattr__(obj, name, value)


@dataclass(frozen=True)
class CoreRuntimeArgs:
    """One ordered vector of runtime-argument words for one worker core: the
    dispatch words that may change while a cached program is reused. Each
    value is an integer-indexable non-boolean object (int, numpy.int32, ...)
    holding a 32-bit word; they are stored as ints."""

    core: CoreCoord
    values: tuple

    def __post_init__(self):
        if not isinstance(self.core, CoreCoord):
            raise TypeError(f"ttl.CoreRuntimeArgs.core must be a ttnn.CoreCoord, got {_check.describe(self.core)}")
        values = _tuple(self.values, "ttl.CoreRuntimeArgs.values", "integer words")
        _set(self, "values", tuple(_check.integer(v, f"ttl.CoreRuntimeArgs.values[{i}]", 0, _check.WORD_MAX, _INTEGER)
                                   for i, v in enumerate(values)))


@dataclass(frozen=True)
class KernelDefine:
    """One JIT definition (-Dname=value) for a logical kernel: compile-affecting
    program structure, even though the factory returns it on every execution."""

    name: str
    value: str

    def __post_init__(self):
        _identifier(self.name, "ttl.KernelDefine.name")
        _check.text(self.value, "ttl.KernelDefine.value")


@dataclass(frozen=True)
class KernelRuntimeResources:
    """Selects one logical kernel (a ttl.Kernel, or a ttl.KernelKind for the
    canonical kernel of that kind) and supplies its per-core runtime
    arguments and JIT definitions."""

    kernel: object
    runtime_args: tuple = ()
    defines: tuple = ()

    def __post_init__(self):
        _selector(self.kernel, "ttl.KernelRuntimeResources.kernel")
        _records(self.runtime_args, "ttl.KernelRuntimeResources.runtime_args", CoreRuntimeArgs, "ttl.CoreRuntimeArgs")
        _records(self.defines, "ttl.KernelRuntimeResources.defines", KernelDefine, "ttl.KernelDefine")


@dataclass(frozen=True, eq=False)
class FabricManagerClaim:
    """Records that an external kernel owns routing-plane connections (which
    the runtime's generated managers must not overlap), without exposing that
    kernel's argument ABI. An operation declares the claims its body
    captures; every execution's resources then bind each one with a
    ttl.FabricConnectionBinding.

    acquire(), use() and release() describe the manager's lifetime across
    opaque calls: ownership begins when acquire() starts and ends after
    release() returns; calling them out of order raises
    tessel.ValidationError. scoped(call) acquires, uses, calls and releases
    (releasing even if the call raises); scoped() without a call is the same
    as a context manager. Compared by identity."""

    name: str
    kernel: object
    _handle: object = field(default=None, init=False, repr=False, compare=False)
    _operation: object = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self):
        _check.text(self.name, "ttl.FabricManagerClaim.name")
        if not self.name:
            raise ValueError("ttl.FabricManagerClaim.name must be a non-empty str")
        _selector(self.kernel, "ttl.FabricManagerClaim.kernel")

    def _cpp(self):
        if self._handle is None:
            k = self.kernel._cpp() if isinstance(self.kernel, Kernel) else self.kernel.value
            _set(self, "_handle", _tessel.FabricManagerClaim(self.name, k))
        return self._handle

    def _binding_error(self, operation):
        if self._operation is not None and self._operation is not operation:
            return (f"ttl.FabricManagerClaim '{self.name}' is already bound to operation '{self.operation}'; each "
                    "claim belongs to one operation")
        return None

    def _bind(self, operation):
        _set(self, "_operation", operation)

    @property
    def operation(self):
        """The name of the operation that captured this claim, or None."""
        return self._operation.name if self._operation is not None else None

    @property
    def held(self):
        return self._cpp().held()

    @property
    def uses(self):
        return self._cpp().uses()

    def acquire(self):
        self._cpp().acquire()

    def use(self):
        self._cpp().use()

    def release(self):
        self._cpp().release()

    def scoped(self, call=None, /, *args, **kwargs):
        if call is None:
            return self._scope()
        if not callable(call):
            raise TypeError(f"ttl.FabricManagerClaim.scoped: call must be callable, got {_check.describe(call)}")
        with self._scope():
            return call(*args, **kwargs)

    @contextlib.contextmanager
    def _scope(self):
        self.acquire()
        try:
            self.use()
            yield self
        finally:
            self.release()

    def __repr__(self):
        k = self.kernel
        kernel = (f"kernel '{k.name}'" if k.name else "an unnamed kernel") if isinstance(k, Kernel) else repr(k)
        return f"ttl.FabricManagerClaim({self.name!r}, {kernel})"


@dataclass(frozen=True)
class FabricConnectionRequirement:
    """Reserves one fixed forwarding link, from local_device to remote_device,
    for the given worker nodes of the claim's kernel. fixed_link_index is an
    ABI constraint: a link the topology does not expose is rejected."""

    local_device: int
    remote_device: int
    worker_nodes: CoreRangeSet
    fixed_link_index: int

    def __post_init__(self):
        for name in ("local_device", "remote_device", "fixed_link_index"):
            _set(self, name, _check.integer(getattr(self, name), f"ttl.FabricConnectionRequirement.{name}", 0,
                                            _check.WORD_MAX, _INTEGER))
        _set(self, "worker_nodes", _core_ranges(self.worker_nodes, "ttl.FabricConnectionRequirement.worker_nodes"))


@dataclass(frozen=True)
class FabricConnectionBinding:
    """A claim's connection requirements, the ABI identity of its external
    manager, and owners kept alive through execution."""

    claim: FabricManagerClaim
    connections: tuple
    abi_identity: str
    lifetimes: tuple = ()

    def __post_init__(self):
        if not isinstance(self.claim, FabricManagerClaim):
            raise TypeError("ttl.FabricConnectionBinding.claim must be a ttl.FabricManagerClaim, "
                            f"got {_check.describe(self.claim)}")
        _records(self.connections, "ttl.FabricConnectionBinding.connections", FabricConnectionRequirement,
                 "ttl.FabricConnectionRequirement")
        _check.text(self.abi_identity, "ttl.FabricConnectionBinding.abi_identity")
        _tuple(self.lifetimes, "ttl.FabricConnectionBinding.lifetimes", "objects")


@dataclass(frozen=True)
class ProgramRuntimeResources:
    """What a runtime resource factory returns for one execution: caller
    semaphores, per-logical-kernel resources, retained owners, and external
    fabric bindings."""

    semaphore_descriptors: tuple = ()
    kernel_resources: tuple = ()
    lifetimes: tuple = ()
    fabric_connections: tuple = ()

    def __post_init__(self):
        _records(self.semaphore_descriptors, "ttl.ProgramRuntimeResources.semaphore_descriptors", SemaphoreDescriptor,
                 "ttnn.SemaphoreDescriptor")
        _records(self.kernel_resources, "ttl.ProgramRuntimeResources.kernel_resources", KernelRuntimeResources,
                 "ttl.KernelRuntimeResources")
        _tuple(self.lifetimes, "ttl.ProgramRuntimeResources.lifetimes", "objects")
        _records(self.fabric_connections, "ttl.ProgramRuntimeResources.fabric_connections", FabricConnectionBinding,
                 "ttl.FabricConnectionBinding")


@dataclass(frozen=True)
class FabricLink:
    """A forwarding link link_index from local_device to remote_device."""

    local_device: int
    remote_device: int
    link_index: int

    def __post_init__(self):
        for name in ("local_device", "remote_device", "link_index"):
            _set(self, name, _check.integer(getattr(self, name), f"ttl.FabricLink.{name}", 0, _check.WORD_MAX,
                                            _INTEGER))


@dataclass(frozen=True)
class FabricTopology:
    """What the control plane exposes, for checking fabric bindings: the active
    logical devices (0 .. num_devices - 1), the links that exist, and the
    links the runtime's own generated managers use."""

    num_devices: int = 1
    links: tuple = ()
    generated: tuple = ()

    def __post_init__(self):
        _set(self, "num_devices", _check.integer(self.num_devices, "ttl.FabricTopology.num_devices", 1,
                                                 _check.WORD_MAX, _INTEGER))
        _records(self.links, "ttl.FabricTopology.links", FabricLink, "ttl.FabricLink")
        _records(self.generated, "ttl.FabricTopology.generated", FabricLink, "ttl.FabricLink")

    def _lowered(self):
        def links(ls):
            return [(x.local_device, x.remote_device, x.link_index) for x in ls]

        return self.num_devices, links(self.links), links(self.generated)
