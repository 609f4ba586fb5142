"""tessel.ttl's invalid inputs, each with its exact message: the record and
tuple types, words and defines (checked when a record is built), the factory's
result and the rules that relate it to the operation (checked when the
operation runs, before anything is built), call_extern_func and operations,
tensors, and emitted runners.
"""

import json
import os

import numpy as np
import pytest
import tessel
import tessel.ttl as ttl
import tessel.ttnn as ttnn

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
PAGES = os.path.join(DATA, "pages.hpp")
C0, C1, C2 = ttnn.CoreCoord(0, 0), ttnn.CoreCoord(1, 0), ttnn.CoreCoord(2, 0)
LAUNCH = ttnn.CoreRangeSet([ttnn.CoreRange((0, 0), (1, 0))])
SENDER = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)
ARGS = ttl.CoreRuntimeArgs(C0, (1, 2))


def message(error, call):
    with pytest.raises(error) as raised:
        call()
    return str(raised.value)


# ---- records: the documented record and tuple types, words, defines ----

RECORDS = [
    ("semaphores-list", lambda: ttl.ProgramRuntimeResources(semaphore_descriptors=[]), TypeError,
     ("ttl.ProgramRuntimeResources.semaphore_descriptors must be a tuple of ttnn.SemaphoreDescriptor, "
      "got [] (list); use a tuple")),
    ("kernel-resources-list", lambda: ttl.ProgramRuntimeResources(kernel_resources=[]), TypeError,
     ("ttl.ProgramRuntimeResources.kernel_resources must be a tuple of ttl.KernelRuntimeResources, "
      "got [] (list); use a tuple")),
    ("lifetimes-list", lambda: ttl.ProgramRuntimeResources(lifetimes=["owner"]), TypeError,
     "ttl.ProgramRuntimeResources.lifetimes must be a tuple of objects, got ['owner'] (list); use a tuple"),
    ("fabric-list", lambda: ttl.ProgramRuntimeResources(fabric_connections=[]), TypeError,
     ("ttl.ProgramRuntimeResources.fabric_connections must be a tuple of ttl.FabricConnectionBinding, "
      "got [] (list); use a tuple")),
    ("kernel-resources-element", lambda: ttl.ProgramRuntimeResources(kernel_resources=(3,)), TypeError,
     "ttl.ProgramRuntimeResources.kernel_resources[0] must be a ttl.KernelRuntimeResources, got 3 (int)"),
    ("semaphore-element", lambda: ttl.ProgramRuntimeResources(semaphore_descriptors=({"id": 0},)), TypeError,
     ("ttl.ProgramRuntimeResources.semaphore_descriptors[0] must be a ttnn.SemaphoreDescriptor, got {'id': 0} "
      "(dict)")),
    ("kernel-name", lambda: ttl.KernelRuntimeResources("sender"), TypeError,
     "ttl.KernelRuntimeResources.kernel must be a ttl.Kernel or a ttl.KernelKind, got 'sender' (str)"),
    ("runtime-args-list", lambda: ttl.KernelRuntimeResources(SENDER, runtime_args=[]), TypeError,
     "ttl.KernelRuntimeResources.runtime_args must be a tuple of ttl.CoreRuntimeArgs, got [] (list); use a tuple"),
    ("runtime-args-element", lambda: ttl.KernelRuntimeResources(SENDER, runtime_args=((C0, (1,)),)), TypeError,
     ("ttl.KernelRuntimeResources.runtime_args[0] must be a ttl.CoreRuntimeArgs, got (CoreCoord(0, 0), (1,)) "
      "(tuple)")),
    ("defines-list", lambda: ttl.KernelRuntimeResources(SENDER, defines=[]), TypeError,
     "ttl.KernelRuntimeResources.defines must be a tuple of ttl.KernelDefine, got [] (list); use a tuple"),
    ("defines-pair", lambda: ttl.KernelRuntimeResources(SENDER, defines=(("A", "1"),)), TypeError,
     "ttl.KernelRuntimeResources.defines[0] must be a ttl.KernelDefine, got ('A', '1') (tuple)"),
    ("core-tuple", lambda: ttl.CoreRuntimeArgs((0, 0), (1,)), TypeError,
     "ttl.CoreRuntimeArgs.core must be a ttnn.CoreCoord, got (0, 0) (tuple)"),
    ("values-list", lambda: ttl.CoreRuntimeArgs(C0, [1, 2]), TypeError,
     "ttl.CoreRuntimeArgs.values must be a tuple of integer words, got [1, 2] (list); use a tuple"),
    ("values-array", lambda: ttl.CoreRuntimeArgs(C0, np.array([1], np.uint32)), TypeError,
     "ttl.CoreRuntimeArgs.values must be a tuple of integer words, got array([1], dtype=uint32) (ndarray)"),
    ("values-true", lambda: ttl.CoreRuntimeArgs(C0, (1, True)), TypeError,
     ("ttl.CoreRuntimeArgs.values[1] must be an integer-indexable non-boolean object (0..4294967295), "
      "got True (bool)")),
    ("values-numpy-bool", lambda: ttl.CoreRuntimeArgs(C0, (np.bool_(False),)), TypeError,
     ("ttl.CoreRuntimeArgs.values[0] must be an integer-indexable non-boolean object (0..4294967295), "
      "got np.False_ (bool)")),
    ("values-float", lambda: ttl.CoreRuntimeArgs(C0, (1.0,)), TypeError,
     ("ttl.CoreRuntimeArgs.values[0] must be an integer-indexable non-boolean object (0..4294967295), "
      "got 1.0 (float)")),
    ("values-str", lambda: ttl.CoreRuntimeArgs(C0, ("1",)), TypeError,
     ("ttl.CoreRuntimeArgs.values[0] must be an integer-indexable non-boolean object (0..4294967295), "
      "got '1' (str)")),
    ("values-negative", lambda: ttl.CoreRuntimeArgs(C0, (-1,)), ValueError,
     "ttl.CoreRuntimeArgs.values[0] must be an integer-indexable non-boolean object (0..4294967295), got -1"),
    ("values-wide", lambda: ttl.CoreRuntimeArgs(C0, (np.int64(1 << 32),)), ValueError,
     ("ttl.CoreRuntimeArgs.values[0] must be an integer-indexable non-boolean object (0..4294967295), "
      "got 4294967296")),
    ("define-name-int", lambda: ttl.KernelDefine(1, "1"), TypeError,
     "ttl.KernelDefine.name must be a str, got 1 (int)"),
    ("define-value-int", lambda: ttl.KernelDefine("FABRIC_2D", 1), TypeError,
     "ttl.KernelDefine.value must be a str, got 1 (int)"),
    ("define-value-none", lambda: ttl.KernelDefine("FABRIC_2D", None), TypeError,
     "ttl.KernelDefine.value must be a str, got None (NoneType)"),
    ("define-name-spaces", lambda: ttl.KernelDefine("FABRIC 2D", "1"), ValueError,
     ("ttl.KernelDefine.name must be a C identifier (letters, digits and '_', not starting with a digit), "
      "got 'FABRIC 2D'")),
    ("semaphore-id-true", lambda: ttnn.SemaphoreDescriptor(True, LAUNCH), TypeError,
     ("ttnn.SemaphoreDescriptor: id must be an integer-indexable non-boolean semaphore id (0..4294967295), "
      "got True (bool)")),
    ("semaphore-cores-tuple", lambda: ttnn.SemaphoreDescriptor(0, core_ranges=(0, 0)), TypeError,
     "ttnn.SemaphoreDescriptor: core_ranges must be a ttnn.CoreRangeSet (or a ttnn.CoreRange), got (0, 0) (tuple)"),
    ("semaphore-initial-negative", lambda: ttnn.SemaphoreDescriptor(0, LAUNCH, initial_value=-1), ValueError,
     ("ttnn.SemaphoreDescriptor: initial_value must be an integer-indexable non-boolean 32-bit word "
      "(0..4294967295), got -1")),
    ("kernel-kind-str", lambda: ttl.Kernel("DATA_MOVEMENT"), TypeError,
     "ttl.Kernel: kind must be a ttl.KernelKind, got 'DATA_MOVEMENT' (str)"),
    ("claim-empty-name", lambda: ttl.FabricManagerClaim("", SENDER), ValueError,
     "ttl.FabricManagerClaim.name must be a non-empty str"),
    ("claim-kernel-str", lambda: ttl.FabricManagerClaim("edm", "sender"), TypeError,
     "ttl.FabricManagerClaim.kernel must be a ttl.Kernel or a ttl.KernelKind, got 'sender' (str)"),
    ("binding-claim", lambda: ttl.FabricConnectionBinding("edm", (), "abi"), TypeError,
     "ttl.FabricConnectionBinding.claim must be a ttl.FabricManagerClaim, got 'edm' (str)"),
    ("binding-connections-list",
     lambda: ttl.FabricConnectionBinding(ttl.FabricManagerClaim("edm", SENDER), [], "abi"), TypeError,
     ("ttl.FabricConnectionBinding.connections must be a tuple of ttl.FabricConnectionRequirement, got [] (list); "
      "use a tuple")),
    ("binding-abi-bytes", lambda: ttl.FabricConnectionBinding(ttl.FabricManagerClaim("edm", SENDER), (), b"v1"),
     TypeError, "ttl.FabricConnectionBinding.abi_identity must be a str, got b'v1' (bytes)"),
    ("binding-lifetimes-list",
     lambda: ttl.FabricConnectionBinding(ttl.FabricManagerClaim("edm", SENDER), (), "v1", lifetimes=[]), TypeError,
     "ttl.FabricConnectionBinding.lifetimes must be a tuple of objects, got [] (list); use a tuple"),
    ("requirement-device-true", lambda: ttl.FabricConnectionRequirement(True, 1, LAUNCH, 0), TypeError,
     ("ttl.FabricConnectionRequirement.local_device must be an integer-indexable non-boolean object "
      "(0..4294967295), got True (bool)")),
    ("requirement-nodes-list", lambda: ttl.FabricConnectionRequirement(0, 1, [C0], 0), TypeError,
     ("ttl.FabricConnectionRequirement.worker_nodes must be a ttnn.CoreRangeSet (or a ttnn.CoreRange), "
      "got [CoreCoord(0, 0)] (list)")),
    ("topology-links-list", lambda: ttl.FabricTopology(2, links=[]), TypeError,
     "ttl.FabricTopology.links must be a tuple of ttl.FabricLink, got [] (list); use a tuple"),
]


@pytest.mark.parametrize("build, error, expected", [c[1:] for c in RECORDS], ids=[c[0] for c in RECORDS])
def test_records(build, error, expected):
    assert message(error, build) == expected


def test_integer_indexable_words_are_accepted():
    class Word:
        def __index__(self):
            return 5

    assert ttl.CoreRuntimeArgs(C0, (np.int32(3), np.uint8(4), Word())).values == (3, 4, 5)


# ---- the factory's result against the operation (checked when it runs) ----

IDLE = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)
STRAY = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)
OTHER = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)
UNCAPTURED_CLAIM = ttl.FabricManagerClaim("loose", SENDER)
EDM = ttl.FabricManagerClaim("edm", SENDER)
TOPOLOGY = ttl.FabricTopology(2, links=(ttl.FabricLink(0, 1, 0), ttl.FabricLink(1, 0, 0), ttl.FabricLink(0, 1, 1)),
                              generated=(ttl.FabricLink(0, 1, 1),))


@ttl.operation(grid=(1, 1))
def elsewhere(t):
    ttl.call_extern_func(PAGES, "copy_own_page", func_args=[t, t], kernel=OTHER)


def entry(kernel=SENDER, args=((C0, (0, 0)), (C1, (1, 1))), defines=()):
    return ttl.KernelRuntimeResources(kernel, tuple(ttl.CoreRuntimeArgs(c, v) for c, v in args),
                                      tuple(ttl.KernelDefine(*d) for d in defines))


def resources(*entries, semaphores=(), fabric=None):
    requirement = [ttl.FabricConnectionRequirement(0, 1, LAUNCH, 0), ttl.FabricConnectionRequirement(1, 0, LAUNCH, 0)]
    bindings = (ttl.FabricConnectionBinding(EDM, tuple(requirement), "edm-v1"),) if fabric is None else fabric
    return ttl.ProgramRuntimeResources(semaphore_descriptors=tuple(semaphores),
                                       kernel_resources=entries or (entry(),), fabric_connections=bindings)


def requirement(local, remote, nodes, link):
    return ttl.FabricConnectionRequirement(local, remote, nodes, link)


def binding(*requirements, claim=EDM):
    return ttl.FabricConnectionBinding(claim, requirements, "edm-v1")


WHERE = "Operation 'op': runtime resources: "
REQ0 = requirement(1, 0, LAUNCH, 0)
FACTORY_RESULTS = [
    ("not-a-record", lambda: None, TypeError,
     WHERE + "the runtime_resource_factory must return a ttl.ProgramRuntimeResources, got None (NoneType)"),
    ("core-outside", lambda: resources(entry(args=((C0, (0, 0)), (C2, (1, 1))))), tessel.ValidationError,
     WHERE + "kernel_resources[0] (Kernel 'SENDER' (DataMovement)): runtime_args[1] at core (2,0) is outside the "
     "operation's worker range {(0,0)-(1,0)}"),
    ("core-twice", lambda: resources(entry(args=((C0, (0, 0)), (C0, (1, 1))))), tessel.ValidationError,
     WHERE + "kernel_resources[0] (Kernel 'SENDER' (DataMovement)): runtime_args[1] at core (0,0): the core "
     "already has runtime_args[0]; give each core one vector per logical kernel"),
    ("semaphore-outside",
     lambda: resources(semaphores=[ttnn.SemaphoreDescriptor(0, ttnn.CoreRange((0, 0), (2, 0)))]),
     tessel.ValidationError,
     WHERE + "semaphore_descriptors[0] (id 0): core_ranges {(0,0)-(2,0)} are not inside the operation's worker "
     "range {(0,0)-(1,0)}"),
    ("semaphore-id-twice",
     lambda: resources(semaphores=[ttnn.SemaphoreDescriptor(1, LAUNCH), ttnn.SemaphoreDescriptor(1, LAUNCH)]),
     tessel.ValidationError,
     WHERE + "semaphore_descriptors[1] (id 1): id 1 is also semaphore_descriptors[0]'s; caller semaphore ids "
     "must be unique"),
    ("semaphore-id-16", lambda: resources(semaphores=[ttnn.SemaphoreDescriptor(16, LAUNCH)]), tessel.ValidationError,
     WHERE + "semaphore_descriptors[0] (id 16): id is out of range; a program has at most 16 semaphores "
     "(ids 0..15)"),
    ("kernel-twice", lambda: resources(entry(), entry()), tessel.ValidationError,
     WHERE + "kernel_resources[1] (Kernel 'SENDER' (DataMovement)): the kernel already has resources in "
     "kernel_resources[0]; give each logical kernel at most one entry"),
    ("define-twice", lambda: resources(entry(defines=(("A", "1"), ("A", "2")))), tessel.ValidationError,
     WHERE + "kernel_resources[0] (Kernel 'SENDER' (DataMovement)): define 'A' appears twice; give each name once"),
    ("kernel-unbound", lambda: resources(entry(kernel=STRAY)), tessel.ValidationError,
     WHERE + "kernel_resources[0]: ttl.Kernel((unnamed), ttl.KernelKind.DATA_MOVEMENT) is not bound to operation "
     "'op' (no operation captures it; the operation's body and the factory must capture the same Kernel)"),
    ("kernel-of-another-operation", lambda: resources(entry(kernel=OTHER)), tessel.ValidationError,
     WHERE + "kernel_resources[0]: ttl.Kernel('OTHER', ttl.KernelKind.DATA_MOVEMENT, operation 'elsewhere') "
     "belongs to operation 'elsewhere', not 'op'"),
    ("kernel-not-emitted", lambda: resources(entry(kernel=IDLE)), tessel.ValidationError,
     WHERE + "kernel_resources[0]: ttl.Kernel('IDLE', ttl.KernelKind.DATA_MOVEMENT, operation 'op') is bound to "
     "this operation but identifies no emitted logical kernel (the body makes no call_extern_func with it)"),
    ("no-compute-kernel", lambda: resources(entry(kernel=ttl.KernelKind.COMPUTE)), tessel.ValidationError,
     WHERE + "kernel_resources[0]: operation 'op' has no logical kernel KernelKind::Compute (it declares: "
     "Kernel 'SENDER' (DataMovement))"),
    ("claim-not-captured", lambda: resources(fabric=(binding(REQ0, claim=UNCAPTURED_CLAIM),)),
     tessel.ValidationError,
     WHERE + "fabric_connections[0]: ttl.FabricManagerClaim('loose', kernel 'SENDER') is not captured by "
     "operation 'op'; its body must capture every claim the resources bind"),
    ("claim-unbound", lambda: resources(fabric=()), tessel.ValidationError,
     WHERE + "claim 'edm' has no binding in fabric_connections; supply one FabricConnectionBinding per claim"),
    ("claim-twice", lambda: resources(fabric=(binding(requirement(0, 1, LAUNCH, 0), REQ0), binding(REQ0))),
     tessel.ValidationError,
     WHERE + "fabric_connections[1]: claim 'edm' is already bound by fabric_connections[0]; supply one binding "
     "per claim"),
    ("link-not-exposed", lambda: resources(fabric=(binding(requirement(0, 1, LAUNCH, 2), REQ0),)),
     tessel.ValidationError,
     WHERE + "fabric_connections[0].connections[0]: link 2 from device 0 to device 1 is not exposed by the "
     "topology (links from 0 to 1: 0, 1)"),
    ("link-of-a-generated-manager", lambda: resources(fabric=(binding(requirement(0, 1, LAUNCH, 1), REQ0),)),
     tessel.ValidationError,
     WHERE + "fabric_connections[0].connections[0]: link 1 from device 0 to device 1 is owned by a generated "
     "fabric manager; external managers must not overlap it"),
    ("inactive-device", lambda: resources(fabric=(binding(requirement(0, 2, LAUNCH, 0), REQ0),)),
     tessel.ValidationError,
     WHERE + "fabric_connections[0].connections[0]: device 2 is not an active logical device (the topology has "
     "2: 0..1)"),
    ("worker-not-covered",
     lambda: resources(fabric=(binding(requirement(0, 1, ttnn.CoreRange((0, 0), (0, 0)), 0), REQ0),)),
     tessel.ValidationError,
     WHERE + "fabric_connections[0] (claim 'edm'): device 0 worker node (1,0) has no connection; the requirements "
     "must cover every active logical device and worker node of Kernel 'SENDER' (DataMovement)"),
]


@pytest.fixture(scope="module")
def device():
    with tessel.Device.open(grid=(2, 1)) as d:
        yield d


@pytest.fixture(scope="module")
def operation_with(device):
    """(op, tensors): op's factory returns whatever state['result']() builds."""
    state = {}

    def make_resources(*, tensors, core_ranges, first_free_semaphore_id):
        return state["result"]()

    @ttl.operation(grid=(2, 1), runtime_resource_factory=make_resources, fabric_topology=TOPOLOGY)
    def op(a, b, out):
        _ = (IDLE, EDM)  # captured, so bound to op
        ttl.call_extern_func(PAGES, "copy_pages", func_args=[a, b, out], kernel=SENDER)

    tensors = (ttl.Tensor.allocate(device, (32, 64)), ttl.Tensor.allocate(device, (32, 64)),
               ttl.Tensor.allocate(device, (64, 64), buffer_type="l1"))
    state["result"] = resources
    op(*tensors)
    return op, tensors, state


@pytest.mark.parametrize("result, error, expected", [c[1:] for c in FACTORY_RESULTS],
                         ids=[c[0] for c in FACTORY_RESULTS])
def test_factory_results(operation_with, device, result, error, expected):
    op, tensors, state = operation_with
    kept, entries = op.lifetimes, device.program_cache.entries
    state["result"] = result
    try:
        assert message(error, lambda: op(*tensors)) == expected
    finally:
        state["result"] = resources
    # Nothing was built and the previous owners stay.
    assert (op.lifetimes, device.program_cache.entries) == (kept, entries)


def test_factory_must_take_the_keyword_contract():
    def make_resources(tensors, cores):
        pass

    assert message(TypeError, lambda: ttl.operation(grid=(1, 1), runtime_resource_factory=make_resources)(
        lambda t: None)) == (
        "ttl.operation '<lambda>': runtime_resource_factory must take the keyword arguments tensors, core_ranges "
        "and first_free_semaphore_id (def make_resources(*, tensors, core_ranges, first_free_semaphore_id)), got "
        "make_resources(tensors, cores)")


# ---- call_extern_func and operations ----

def run_body(device, body, tensors=1, grid=(1, 1)):
    op = ttl.operation(grid=grid)(body)
    ts = [ttl.Tensor.allocate(device, (32, 32)) for _ in range(tensors)]
    return op(*ts)


def extern_from(holder):
    def body(t):
        ttl.call_extern_func(PAGES, "copy_own_page", func_args=[t], kernel=holder["kernel"])

    return body


def test_call_extern_func_outside_a_body():
    assert message(RuntimeError, lambda: ttl.call_extern_func(PAGES, "f")) == (
        "ttl.call_extern_func: called outside an operation's body; call it from the body of a @ttl.operation "
        "function (tessel traces the body when the operation runs)")


def body_calling(**kwargs):
    def body(t):
        call = {"header": PAGES, "callee": "copy_own_page", "func_args": [t, t]}
        call.update(kwargs)
        ttl.call_extern_func(call.pop("header"), call.pop("callee"), **call)

    return body


EXTERN_CALLS = [
    ("header-missing", body_calling(header="/nonexistent/h.hpp"), ValueError,
     "ttl.call_extern_func: header '/nonexistent/h.hpp' is not a file (looked for /nonexistent/h.hpp)"),
    ("header-int", body_calling(header=3), TypeError,
     "ttl.call_extern_func: header must be a path (str or os.PathLike), got 3 (int)"),
    ("callee-expression", body_calling(callee="f(1)"), ValueError,
     "ttl.call_extern_func: callee must be a C++ function name (optionally qualified, ns::name), got 'f(1)'"),
    ("func-args-tensor", lambda t: ttl.call_extern_func(PAGES, "f", func_args=t.buffer), TypeError,
     ("ttl.call_extern_func: func_args must be a list or tuple, got <tessel.Buffer DRAM interleaved 2048 B, page "
      "2048 B, addr... (Buffer)")),
    ("func-args-str", body_calling(func_args=["x"]), TypeError,
     ("ttl.call_extern_func: func_args[0] must be a ttl.Tensor (an argument of the operation), ttl.raw_addr(tensor), "
      "an integer or a bool, got 'x' (str)")),
    ("func-args-too-wide", body_calling(func_args=[1 << 32]), ValueError,
     "ttl.call_extern_func: func_args[0] must be an integer or a bool (-2147483648..4294967295), got 4294967296"),
    ("template-args-float", body_calling(template_args=[1.5]), TypeError,
     ("ttl.call_extern_func: template_args[0] must be an integer or a bool (-2147483648..4294967295), got 1.5 "
      "(float)")),
    ("kernel-str", body_calling(kernel="reader"), TypeError,
     "ttl.call_extern_func: kernel must be a ttl.Kernel or a ttl.KernelKind, got 'reader' (str)"),
    ("kernel-not-captured", extern_from({"kernel": STRAY}), tessel.ValidationError,
     ("ttl.call_extern_func: kernel: ttl.Kernel((unnamed), ttl.KernelKind.DATA_MOVEMENT) is not captured by "
      "operation 'body'; the body must capture the Kernel it selects (as a closure variable or a global)")),
    ("kernel-of-another-operation", extern_from({"kernel": OTHER}), tessel.ValidationError,
     ("ttl.call_extern_func: kernel: ttl.Kernel('OTHER', ttl.KernelKind.DATA_MOVEMENT, operation 'elsewhere') "
      "belongs to operation 'elsewhere', not 'body'")),
    ("tensor-to-compute", body_calling(kernel=ttl.KernelKind.COMPUTE), ValueError,
     ("ttl.call_extern_func: func_args[0]: a tensor becomes a TensorAccessor, which only data-movement kernels "
      "have; the call selects a compute kernel (ttl.KernelKind.COMPUTE); pass ttl.raw_addr(tensor) instead")),
]


@pytest.mark.parametrize("body, error, expected", [c[1:] for c in EXTERN_CALLS], ids=[c[0] for c in EXTERN_CALLS])
def test_call_extern_func(device, body, error, expected):
    body.__name__ = "body"
    assert message(error, lambda: run_body(device, body)) == expected


def test_a_tensor_that_is_not_an_argument(device):
    other = ttl.Tensor.allocate(device, (32, 32))

    def body(t):
        ttl.call_extern_func(PAGES, "f", func_args=[other])

    got = message(ValueError, lambda: run_body(device, body))
    assert got == (f"ttl.call_extern_func: func_args[0] is {other!r}, which is not one of operation 'body''s tensor "
                   "arguments; pass the body's own arguments")


def test_the_body_returns_none(device):
    def body(t):
        return 1

    assert message(TypeError, lambda: run_body(device, body)) == (
        "operation 'body': the body must return None (outputs are written into its tensor arguments), got 1 (int)")


def test_three_data_movement_kernels(device):
    a, b = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT), ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)

    def body(t):
        for k in (a, b, ttl.KernelKind.DATA_MOVEMENT):
            ttl.call_extern_func(PAGES, "f", func_args=[t], kernel=k)

    assert message(tessel.ValidationError, lambda: run_body(device, body)) == (
        "operation 'body': its calls select 3 data-movement kernels (ttl.Kernel('a', ttl.KernelKind.DATA_MOVEMENT, "
        "operation 'body'), ttl.Kernel('b', ttl.KernelKind.DATA_MOVEMENT, operation 'body'), "
        "ttl.KernelKind.DATA_MOVEMENT); a core has 2 data-movement RISCs")


def test_a_kernel_captured_by_two_operations():
    k = ttl.Kernel(ttl.KernelKind.COMPUTE)

    @ttl.operation(grid=(1, 1))
    def first(t):
        ttl.call_extern_func(PAGES, "f", kernel=k)

    def second(t):
        ttl.call_extern_func(PAGES, "f", kernel=k)

    assert message(ValueError, lambda: ttl.operation(grid=(1, 1))(second)) == (
        "ttl.Kernel('k', ttl.KernelKind.COMPUTE, operation 'first') is already bound to operation 'first'; each "
        "ttl.Kernel belongs to one operation (make one per operation)")


OPERATIONS = [
    ("grid-bool", {"grid": (True, 1)}, TypeError,
     "ttl.operation 'body': grid[0] must be a positive integer (1..65535), got True (bool)"),
    ("grid-zero", {"grid": (0, 1)}, ValueError,
     "ttl.operation 'body': grid[0] must be a positive integer (1..65535), got 0"),
    ("grid-three", {"grid": (1, 1, 1)}, TypeError,
     "ttl.operation 'body': grid must be an (x, y) tuple of positive integers, got (1, 1, 1) (tuple)"),
    ("factory-not-callable", {"grid": (1, 1), "runtime_resource_factory": 3}, TypeError,
     "ttl.operation 'body': runtime_resource_factory must be callable, got 3 (int)"),
    ("topology-tuple", {"grid": (1, 1), "fabric_topology": (2,)}, TypeError,
     "ttl.operation 'body': fabric_topology must be a ttl.FabricTopology, got (2,) (tuple)"),
]


@pytest.mark.parametrize("kwargs, error, expected", [c[1:] for c in OPERATIONS], ids=[c[0] for c in OPERATIONS])
def test_operation_arguments(kwargs, error, expected):
    def body(t):
        pass

    assert message(error, lambda: ttl.operation(**kwargs)(body)) == expected


def test_body_parameters_are_tensors_by_position():
    def body(t, scale=2):
        pass

    assert message(TypeError, lambda: ttl.operation(grid=(1, 1))(body)) == (
        "ttl.operation 'body': every parameter of the body is a tensor taken by position; 'scale' is not (no *args, "
        "**kwargs, keyword-only parameters or defaults)")


def test_calls_need_tensors(device):
    @ttl.operation(grid=(1, 1))
    def op(a, b):
        pass

    t = ttl.Tensor.allocate(device, (32, 32))
    assert message(TypeError, lambda: op(t, t.buffer)) == (
        "operation 'op': b must be a ttl.Tensor or a ttnn.Tensor, got <tessel.Buffer DRAM interleaved 2048 B, page 2048 B, addr... "
        "(Buffer)")
    assert message(TypeError, lambda: op(t)) == "operation 'op' takes 2 tensors (a, b), got 1"


def test_the_grid_must_fit_the_device(device):
    @ttl.operation(grid=(3, 1))
    def op(t):
        pass

    assert message(tessel.ValidationError, lambda: op(ttl.Tensor.allocate(device, (32, 32)))) == (
        "operation 'op': grid (3, 1) does not fit the device's 2x1 worker grid")


def test_tensors_on_two_devices(device):
    @ttl.operation(grid=(1, 1))
    def op(a, b):
        pass

    with tessel.Device.open(grid=(1, 1)) as other:
        assert message(ValueError, lambda: op(ttl.Tensor.allocate(device, (32, 32)),
                                              ttl.Tensor.allocate(other, (32, 32)))) == (
            "operation 'op': the tensors are on 2 different devices; expected one")


# ---- tensors ----

def test_tensors(device):
    assert message(ValueError, lambda: ttl.Tensor.allocate(device, (32, 48))) == (
        "ttl.Tensor.allocate: shape must have at least two dimensions, the last two multiples of 32 (whole tiles), "
        "got (32, 48)")
    buffer = tessel.Buffer(device, 4096, 1024)
    assert message(ValueError, lambda: ttl.Tensor(buffer, (32, 64))) == (
        "ttl.Tensor: a (32, 64) Float16_b tensor is 2 tiles of 2048 B, one per page; the buffer has 4 pages of "
        "1024 B")
    assert message(TypeError, lambda: ttl.Tensor("buffer", (32, 32))) == (
        "ttl.Tensor.buffer must be a tessel.Buffer, got 'buffer' (str)")
    assert message(ValueError, lambda: ttl.Tensor.allocate(device, (32, 32)).write(np.zeros((32, 64)))) == (
        "ttl.Tensor.write: the array's shape is (32, 64), the tensor's (32, 32)")


# ---- emitted runners ----

@pytest.fixture(scope="module")
def runner(device, operation_with, tmp_path_factory):
    op, tensors, _ = operation_with
    path = ttl.emit_runner(op, tmp_path_factory.mktemp("runner") / "op")
    return ttl.load_runner(path), op, tensors


def test_runner_needs_the_factory(runner, device):
    r, _, tensors = runner
    assert message(TypeError, lambda: r.run(tensors, runtime_resource_factory=None, device=device)) == (
        f"Runner '{r.directory}' (operation 'op'): run needs runtime_resource_factory on every call; the runner holds "
        "no dispatch values or owners")
    assert message(TypeError, lambda: r.run(tensors, device=device)) == (
        "Runner.run() missing 1 required keyword-only argument: 'runtime_resource_factory'")


def test_runner_checks_the_tensor_layouts(runner, device):
    r, op, tensors = runner
    sharded = ttl.Tensor.allocate(device, (32, 64), buffer_type="l1", shard=ttl.ShardSpec((1, 2), (1, 1), (0, 1)))
    factory = op.runtime_resource_factory
    prefix = f"Runner '{r.directory}' (operation 'op'): run: "
    assert message(tessel.ValidationError, lambda: r.run((sharded,) + tensors[1:], runtime_resource_factory=factory,
                                                         device=device)) == (
        prefix + "tensors[0] (a) is a L1 sharded tensor whose accessor takes 10 compile-time args, with 2048 B "
        "pages; the runner's kernels were generated for a DRAM interleaved tensor with 2 and 2048 B pages (emit a "
        "runner for this layout)")
    assert message(tessel.ValidationError, lambda: r.run(tensors[:2], runtime_resource_factory=factory,
                                                         device=device)) == (
        prefix + "got 2 tensors; the runner's kernels were generated for 3 (a, b, out)")
    assert message(TypeError, lambda: r.run(tensors[0], runtime_resource_factory=factory, device=device)).startswith(
        prefix + "tensors must be a list or tuple of ttl.Tensor, got ttl.Tensor((32, 64)")


def test_runner_finds_kernels_by_name(runner, device):
    r, _, tensors = runner

    def with_kernel(kernel):
        def make_resources(*, tensors, core_ranges, first_free_semaphore_id):
            return resources(entry(kernel=kernel))

        return make_resources

    prefix = f"Runner '{r.directory}' (operation 'op'): runtime resources: kernel_resources[0]: "
    assert message(tessel.ValidationError, lambda: r.run(tensors, runtime_resource_factory=with_kernel(STRAY),
                                                         device=device)) == (
        prefix + "ttl.Kernel((unnamed), ttl.KernelKind.DATA_MOVEMENT) has no name, so the runner cannot find its "
        "logical kernel; capture it in the operation (or name it: ttl.Kernel(kind, name=...))")
    assert message(tessel.ValidationError, lambda: r.run(tensors, runtime_resource_factory=with_kernel(OTHER),
                                                         device=device)) == (
        prefix + "ttl.Kernel('OTHER', ttl.KernelKind.DATA_MOVEMENT, operation 'elsewhere') belongs to operation "
        "'elsewhere', not 'op'")
    named = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT, "reader")
    assert message(tessel.ValidationError, lambda: r.run(tensors, runtime_resource_factory=with_kernel(named),
                                                         device=device)) == (
        prefix + f"Runner '{r.directory}/operation': operation 'op' has no captured Kernel named 'reader' (it "
        "declares: Kernel 'SENDER' (DataMovement))")
    compute = ttl.Kernel(ttl.KernelKind.COMPUTE, "SENDER")
    assert message(tessel.ValidationError, lambda: r.run(tensors, runtime_resource_factory=with_kernel(compute),
                                                         device=device)) == (
        prefix + "ttl.Kernel('SENDER', ttl.KernelKind.COMPUTE) is COMPUTE, but the runner's kernel 'SENDER' is "
        "DATA_MOVEMENT")
    # A Kernel named like the runner's works, as does the runner's own handle.
    for kernel in (ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT, "SENDER"), r.kernel("SENDER")):
        r.run(tensors, runtime_resource_factory=with_kernel(kernel), device=device)


def test_emit_runner_errors(tmp_path, device):
    @ttl.operation(grid=(1, 1))
    def fresh(t):
        ttl.call_extern_func(PAGES, "f", func_args=[t])

    assert message(tessel.ValidationError, lambda: ttl.emit_runner(fresh, tmp_path / "r")) == (
        "ttl.emit_runner: operation 'fresh' has not run yet, and its kernels depend on its tensors' layouts; run it "
        "once or pass tensors=[...]")
    assert message(TypeError, lambda: ttl.emit_runner(lambda t: None, tmp_path / "r")).startswith(
        "ttl.emit_runner: op must be a @ttl.operation, got <function")
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "notes.txt").write_text("mine")
    t = ttl.Tensor.allocate(device, (32, 32))
    assert message(tessel.ValidationError, lambda: ttl.emit_runner(fresh, occupied, tensors=[t])) == (
        f"ttl.emit_runner: '{occupied}' exists and is not an emitted tessel.ttl runner (no ttl-runner.json); "
        "expected a new path, an empty directory or an earlier runner to replace")
    assert sorted(os.listdir(occupied)) == ["notes.txt"]


def test_load_runner_errors(tmp_path, runner):
    r = runner[0]
    assert message(tessel.ValidationError, lambda: ttl.load_runner(tmp_path)) == (
        f"ttl.load_runner: no ttl-runner.json in '{tmp_path}'; expected a directory written by ttl.emit_runner")
    with open(os.path.join(r.directory, "ttl-runner.json")) as f:
        manifest = json.load(f)
    cases = [
        ({"version": 1}, "version 1; this tessel reads version 2"),
        ({"format": "other"}, 'not a tessel.ttl runner manifest (expected "format": "tessel.ttl runner")'),
        ({"grid": [2]}, "'grid' must be [x, y], two positive integers, got [2]"),
        ({"launch": []}, "'launch' must be a non-empty list of [x0, y0, x1, y1] core rectangles, got []"),
        ({"tensors": [{"name": "a", "layout": "L1 sharded", "compile_time_args": -1}]},
         "tensors[0]: 'compile_time_args' must be a non-negative integer, got -1"),
        ({"tensors": [{"name": "a"}]}, "tensors[0]: 'layout' must be a string, got null"),
        ({"tensors": [dict(t, same_as=1) for t in manifest["tensors"]]},
         "tensors[0]: 'same_as' must be null or the index of an earlier tensor that is not itself the same as "
         "another, got 1"),
        ({"tensors": [{k: v for k, v in t.items() if k != "same_as"} for t in manifest["tensors"]]},
         "tensors[0]: 'same_as' must be null or the index of an earlier tensor that is not itself the same as "
         "another, it is missing"),
        ({"tensors": [dict(t, same_as=[None, 0, 1][i]) for i, t in enumerate(manifest["tensors"])]},
         "tensors[2]: 'same_as' must be null or the index of an earlier tensor that is not itself the same as "
         "another, got 1"),
    ]
    for change, expected in cases:
        broken = tmp_path / "broken"
        os.makedirs(broken, exist_ok=True)
        with open(broken / "ttl-runner.json", "w") as f:
            json.dump({**manifest, **change}, f)
        assert message(tessel.ValidationError, lambda b=broken: ttl.load_runner(b)) == (
            f"ttl.load_runner: {broken / 'ttl-runner.json'}: {expected}")
