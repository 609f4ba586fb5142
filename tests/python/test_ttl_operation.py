"""tessel.ttl operations on the simulator: tensor accessors at the offsets of
each tensor's real accessor-arg count, dispatch words and defines through the
program cache and its fast path, lifetimes, several logical kernels, fabric
claims, and the records themselves.

The external functions are data/pages.hpp (its comment has the L1 layout
the checks rely on) and data/compute_word.hpp; the device is a 2x1 grid.
"""

import dataclasses
import os

import numpy as np
import pytest
import tessel
import tessel.ttl as ttl
import tessel.ttnn as ttnn
from tessel.ttl.operation import lower_resources

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
PAGES = os.path.join(DATA, "pages.hpp")
COMPUTE_WORD = os.path.join(DATA, "compute_word.hpp")
CORES = (ttnn.CoreCoord(0, 0), ttnn.CoreCoord(1, 0))

# Two-tile (32, 64) tensors in each layout; the sharded ones put page 0 on
# the second bank, so a mis-read bank list moves the page.
LAYOUTS = {
    "dram": {"buffer_type": "dram"},
    "l1": {"buffer_type": "l1"},
    "l1_sharded": {"buffer_type": "l1", "shard": ttl.ShardSpec((1, 2), (1, 1), (1, 0))},
    "dram_sharded": {"buffer_type": "dram", "shard": ttl.ShardSpec((2,), (1,), (5, 2))},
}
ACCESSOR_ARGS = {"dram": 2, "l1": 2, "l1_sharded": 4 + 2 * 2 + 2, "dram_sharded": 4 + 2 * 1 + 2}


@pytest.fixture
def device():
    with tessel.Device.open(grid=(2, 1)) as d:
        yield d


def tensor(device, layout, seed):
    values = np.random.default_rng(seed).integers(-120, 120, size=(32, 64)).astype(np.float32)  # exact in bf16
    return ttl.Tensor.from_numpy(device, values, **LAYOUTS[layout]), values


def output(device):
    return ttl.Tensor.from_numpy(device, np.full((64, 64), -1.0, np.float32), buffer_type="l1")


def tile(values, page):
    return values[:, 32 * page:32 * page + 32]


def expected(a, b, words):
    """out's four tiles: core x's slot 0 is page x, slot 1 page x + 2 (pages.hpp)."""
    (a0, b0), (a1, b1) = words
    top = np.concatenate([tile(a, a0), tile(a, a1)], axis=1)
    bottom = np.concatenate([tile(b, b0), tile(b, b1)], axis=1)
    return np.concatenate([top, bottom], axis=0)


class Words:
    """A factory whose per-core words the test changes between runs."""

    def __init__(self, kernel, words, defines=()):
        self.kernel, self.words, self.defines, self.calls = kernel, words, defines, 0

    def __call__(self, *, tensors, core_ranges, first_free_semaphore_id):
        self.calls += 1
        args = tuple(ttl.CoreRuntimeArgs(c, w) for c, w in zip(CORES, self.words))
        return ttl.ProgramRuntimeResources(kernel_resources=(
            ttl.KernelRuntimeResources(self.kernel, runtime_args=args, defines=self.defines),))


def copy_pages_operation(factory):
    @ttl.operation(grid=(2, 1), runtime_resource_factory=factory)
    def copy_pages(a, b, out):
        ttl.call_extern_func(PAGES, "copy_pages", func_args=[a, b, out])

    return copy_pages


@pytest.mark.parametrize("b_layout", LAYOUTS)
@pytest.mark.parametrize("a_layout", LAYOUTS)
def test_accessors_sit_at_each_tensors_real_arg_count(device, a_layout, b_layout):
    factory = Words(ttl.KernelKind.DATA_MOVEMENT, ((1, 0), (0, 1)))
    op = copy_pages_operation(factory)
    (a, a_values), (b, b_values), out = tensor(device, a_layout, 1), tensor(device, b_layout, 2), output(device)
    op(a, b, out)
    np.testing.assert_array_equal(out.to_numpy(), expected(a_values, b_values, factory.words))

    # The generated offsets are where the C++ planner put each tensor's accessor args.
    counts = [ACCESSOR_ARGS[a_layout], ACCESSOR_ARGS[b_layout], 2]
    offsets = [0, counts[0], counts[0] + counts[1]]
    source = op.generated_kernels(a, b, out)[ttl.KernelKind.DATA_MOVEMENT]
    for i, at in enumerate(offsets):
        assert f"constexpr auto tensor{i}_args = TensorAccessorArgs<{at}, 3>();" in source
    lowered = lower_resources(factory(tensors=(), core_ranges=op.launch, first_free_semaphore_id=0),
                              lambda k, w: k.value, None, "")
    (descriptor,) = op._cpp.plan([t.buffer._b for t in (a, b, out)], op._launch_rects, lowered)
    _, _, compile_args, common_args, _, _ = descriptor
    assert len(compile_args) == sum(counts)
    for t, at, n in zip((a, b, out), offsets, counts):
        assert compile_args[at:at + n] == ttnn.TensorAccessorArgs(t).get_compile_time_args()
    assert common_args == [a.buffer.address, b.buffer.address, out.buffer.address]


def test_new_words_reach_a_cached_program_through_the_fast_path(device):
    factory = Words(ttl.KernelKind.DATA_MOVEMENT, ((0, 0), (1, 1)))
    op = copy_pages_operation(factory)
    (a, av), (b, bv), out = tensor(device, "dram", 3), tensor(device, "l1_sharded", 4), output(device)
    op(a, b, out)
    np.testing.assert_array_equal(out.to_numpy(), expected(av, bv, factory.words))
    for words in (((1, 1), (0, 0)), ((1, 0), (1, 0)), ((0, 1), (0, 1))):
        factory.words = words
        op(a, b, out)
        np.testing.assert_array_equal(out.to_numpy(), expected(av, bv, words))
    cache = device.program_cache
    assert (cache.entries, cache.misses, cache.hits, factory.calls) == (1, 1, 3, 4)
    # A hit on a structure seen before builds no descriptor: far below a build.
    assert op.last_timings["plan"] < 0.01


def test_defines_are_structure_and_words_are_not(device):
    factory = Words(ttl.KernelKind.DATA_MOVEMENT, ((0, 0), (0, 0)))
    op = copy_pages_operation(factory)
    (a, av), (b, bv), out = tensor(device, "dram", 5), tensor(device, "dram", 6), output(device)
    op(a, b, out)
    factory.defines = (ttl.KernelDefine("ADD_TO_PAGE_A", "1"),)
    op(a, b, out)
    np.testing.assert_array_equal(out.to_numpy(), expected(av, bv, ((1, 0), (1, 0))))
    factory.defines = ()
    factory.words = ((1, 1), (1, 1))
    op(a, b, out)
    np.testing.assert_array_equal(out.to_numpy(), expected(av, bv, factory.words))
    cache = device.program_cache
    assert (cache.entries, cache.misses, cache.hits) == (2, 2, 1)


def test_other_tensor_layouts_generate_other_kernels_and_reuse_the_cache(device):
    factory = Words(ttl.KernelKind.DATA_MOVEMENT, ((1, 0), (0, 1)))
    op = copy_pages_operation(factory)
    (b, bv), out = tensor(device, "dram", 8), output(device)
    for layout in ("dram", "l1_sharded", "dram"):
        a, av = tensor(device, layout, 7)
        op(a, b, out)
        np.testing.assert_array_equal(out.to_numpy(), expected(av, bv, factory.words))
    cache = device.program_cache
    assert (cache.entries, cache.misses, cache.hits) == (2, 2, 1)


def test_an_operation_without_a_factory(device):
    @ttl.operation(grid=(2, 1))
    def own_pages(src, out):
        ttl.call_extern_func(PAGES, "copy_own_page", func_args=[src, out])

    (src, values), out = tensor(device, "l1_sharded", 9), output(device)
    own_pages(src, out)
    got = out.to_numpy()
    np.testing.assert_array_equal(got[:32], values)
    assert own_pages.lifetimes == ()


def test_a_failed_execution_keeps_the_previous_lifetimes(device):
    class Owner:
        pass

    state = {"owner": Owner(), "fail": None}
    sender = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)

    def make_resources(*, tensors, core_ranges, first_free_semaphore_id):
        if state["fail"] == "raise":
            raise RuntimeError("factory failed")
        core = ttnn.CoreCoord(5, 0) if state["fail"] == "outside" else CORES[0]
        return ttl.ProgramRuntimeResources(
            kernel_resources=(ttl.KernelRuntimeResources(sender, (ttl.CoreRuntimeArgs(core, (0, 0)),
                                                                  ttl.CoreRuntimeArgs(CORES[1], (1, 1)))),),
            lifetimes=(state["owner"],))

    @ttl.operation(grid=(2, 1), runtime_resource_factory=make_resources)
    def op(a, b, out):
        ttl.call_extern_func(PAGES, "copy_pages", func_args=[a, b, out], kernel=sender)

    (a, _), (b, _), out = tensor(device, "dram", 10), tensor(device, "dram", 11), output(device)
    first = state["owner"]
    op(a, b, out)
    assert op.lifetimes == (first,)
    state["owner"] = Owner()
    for failure, error in (("raise", RuntimeError), ("outside", tessel.ValidationError)):
        state["fail"] = failure
        with pytest.raises(error):
            op(a, b, out)
        assert op.lifetimes == (first,)
        assert op._cpp.lifetimes() == [first]
    state["fail"] = None
    op(a, b, out)
    assert op.lifetimes == (state["owner"],)
    assert device.program_cache.entries == 1


def test_two_data_movement_kernels_and_a_compute_kernel(device):
    reader = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)

    def make_resources(*, tensors, core_ranges, first_free_semaphore_id):
        return ttl.ProgramRuntimeResources(kernel_resources=(
            ttl.KernelRuntimeResources(ttl.KernelKind.DATA_MOVEMENT,
                                       tuple(ttl.CoreRuntimeArgs(c, (x, 1 - x)) for x, c in enumerate(CORES))),
        ))

    @ttl.operation(grid=(2, 1), runtime_resource_factory=make_resources)
    def three(a, b, out, pages):
        ttl.call_extern_func(PAGES, "copy_own_page", func_args=[a, out], kernel=reader)  # out's slot 0
        ttl.call_extern_func(COMPUTE_WORD, "write_word", func_args=[ttl.raw_addr(out), 2048 + 4, 0x1234],
                             kernel=ttl.KernelKind.COMPUTE)  # a word of out's slot 1
        ttl.call_extern_func(PAGES, "copy_pages", func_args=[b, b, pages])

    (a, av), (b, bv), out, pages = tensor(device, "dram", 12), tensor(device, "dram", 13), output(device), output(device)
    three(a, b, out, pages)
    assert list(three.generated_kernels(a, b, out, pages)) == [reader, ttl.KernelKind.COMPUTE,
                                                               ttl.KernelKind.DATA_MOVEMENT]
    np.testing.assert_array_equal(out.to_numpy()[:32], av)
    words = out.buffer.read(np.uint32).reshape(4, 512)  # four bf16 tiles, page order
    assert words[2:, 1].tolist() == [0x1234, 0x1234]
    np.testing.assert_array_equal(pages.to_numpy(), expected(bv, bv, ((0, 1), (1, 0))))


def test_compute_kernel_writes_through_a_raw_address(device):
    @ttl.operation(grid=(2, 1))
    def mark(flags):
        ttl.call_extern_func(COMPUTE_WORD, "write_word", func_args=[ttl.raw_addr(flags), 8, 4294967295],
                             kernel=ttl.KernelKind.COMPUTE)

    flags = ttl.Tensor.from_numpy(device, np.zeros((64, 64), np.uint32), ttl.DataFormat.UInt32, buffer_type="l1")
    mark(flags)
    words = flags.buffer.read(np.uint32).reshape(4, 1024)
    # Each core wrote word 2 of its slot 0: pages 0 and 1.
    assert words[:, 2].tolist() == [0xFFFFFFFF, 0xFFFFFFFF, 0, 0]
    assert words.sum(dtype=np.uint64) == 2 * 0xFFFFFFFF


def test_fabric_bindings_are_validated_keyed_and_retained(device, tmp_path):
    sender = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)
    claim = ttl.FabricManagerClaim("edm", sender)
    topology = ttl.FabricTopology(2, links=(ttl.FabricLink(0, 1, 0), ttl.FabricLink(1, 0, 0), ttl.FabricLink(0, 1, 1)),
                                  generated=(ttl.FabricLink(0, 1, 1),))
    state = {"abi": "edm-v1", "owner": object()}

    def make_resources(*, tensors, core_ranges, first_free_semaphore_id):
        binding = ttl.FabricConnectionBinding(
            claim,
            (ttl.FabricConnectionRequirement(0, 1, core_ranges, 0), ttl.FabricConnectionRequirement(1, 0, core_ranges, 0)),
            state["abi"], lifetimes=(state["owner"],))
        return ttl.ProgramRuntimeResources(
            kernel_resources=(ttl.KernelRuntimeResources(sender, tuple(ttl.CoreRuntimeArgs(c, (0, 0)) for c in CORES)),),
            lifetimes=("resources",), fabric_connections=(binding,))

    @ttl.operation(grid=(2, 1), runtime_resource_factory=make_resources, fabric_topology=topology)
    def op(a, b, out):
        with claim.scoped():
            ttl.call_extern_func(PAGES, "copy_pages", func_args=[a, b, out], kernel=sender)

    assert op.claims == (claim,) and claim.operation == "op"
    (a, av), (b, bv), out = tensor(device, "dram", 14), tensor(device, "dram", 15), output(device)
    op(a, b, out)
    assert (claim.held, claim.uses) == (False, 1)  # the body ran once, inside the claim's scope
    assert op.lifetimes == ("resources", state["owner"])
    op(a, b, out)
    state["abi"] = "edm-v2"  # ABI identity is structure: a new cache entry
    op(a, b, out)
    cache = device.program_cache
    assert (cache.entries, cache.misses, cache.hits) == (2, 2, 1)
    np.testing.assert_array_equal(out.to_numpy(), expected(av, bv, ((0, 0), (0, 0))))

    # An emitted runner rebuilds the claim and the topology, and finds the factory's claim by name.
    runner = ttl.load_runner(ttl.emit_runner(op, tmp_path / "op"))
    out = output(device)
    runner.run([a, b, out], runtime_resource_factory=make_resources, device=device)
    np.testing.assert_array_equal(out.to_numpy(), expected(av, bv, ((0, 0), (0, 0))))
    assert runner.lifetimes == ("resources", state["owner"])


def test_fabric_claim_ownership():
    claim = ttl.FabricManagerClaim("mgr", ttl.KernelKind.DATA_MOVEMENT)
    claim.acquire()
    claim.use()
    claim.use()
    assert (claim.held, claim.uses) == (True, 2)
    claim.release()
    assert claim.scoped(lambda x: x + 1, 41) == 42
    with pytest.raises(ZeroDivisionError):
        claim.scoped(lambda: 1 / 0)
    assert (claim.held, claim.uses) == (False, 4)
    with pytest.raises(tessel.ValidationError, match=r"release\(\) while not held"):
        claim.release()


def test_records_are_frozen_with_tuple_fields():
    args = ttl.CoreRuntimeArgs(ttnn.CoreCoord(1, 0), (np.int32(7), np.uint64(8), 9))
    assert args.values == (7, 8, 9) and all(type(v) is int for v in args.values)
    with pytest.raises(dataclasses.FrozenInstanceError):
        args.values = (1,)
    k = ttl.Kernel(ttl.KernelKind.COMPUTE, name="math")
    r = ttl.KernelRuntimeResources(k, (args,), (ttl.KernelDefine("X", "1"),))
    assert r == ttl.KernelRuntimeResources(k, (args,), (ttl.KernelDefine("X", "1"),))
    assert hash(r) == hash(ttl.KernelRuntimeResources(k, (args,), (ttl.KernelDefine("X", "1"),)))
    p = ttl.ProgramRuntimeResources()
    assert (p.semaphore_descriptors, p.kernel_resources, p.lifetimes, p.fabric_connections) == ((), (), (), ())
    sem = ttnn.SemaphoreDescriptor(3, core_ranges=ttnn.CoreRange((0, 0), (1, 0)))
    assert sem.core_ranges == ttnn.CoreRangeSet([ttnn.CoreRange((0, 0), (1, 0))]) and sem.initial_value == 0
    assert repr(k) == "ttl.Kernel('math', ttl.KernelKind.COMPUTE)"


def test_kernels_are_bound_under_their_captured_names():
    reader, writer = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT), ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT, "out")

    @ttl.operation(grid=(1, 1))
    def op(t):
        ttl.call_extern_func(PAGES, "f", func_args=[t], kernel=reader)
        ttl.call_extern_func(PAGES, "g", func_args=[t], kernel=writer)

    assert (reader.name, reader.operation) == ("reader", "op")
    assert (writer.name, writer.operation) == ("out", "op")
    assert op.kernels == (reader, writer)
    assert repr(reader) == "ttl.Kernel('reader', ttl.KernelKind.DATA_MOVEMENT, operation 'op')"


def test_tensors_that_differ_only_in_their_sharding(device, tmp_path):
    # Same accessor-arg count and page size, other banks: the kernels' source
    # is the same, their compile args are not.
    factory = Words(ttl.KernelKind.DATA_MOVEMENT, ((0, 1), (1, 0)))
    op = copy_pages_operation(factory)
    (b, bv), out = tensor(device, "dram", 16), output(device)
    values = np.random.default_rng(17).integers(-120, 120, size=(32, 64)).astype(np.float32)
    sharded = [ttl.Tensor.from_numpy(device, values, buffer_type="l1", shard=ttl.ShardSpec((1, 2), (1, 1), banks))
               for banks in ((1, 0), (0, 1))]
    for a in sharded + sharded[:1]:
        op(a, b, out)
        np.testing.assert_array_equal(out.to_numpy(), expected(values, bv, factory.words))
    runner = ttl.load_runner(ttl.emit_runner(op, tmp_path / "copy_pages"))
    for a in sharded + sharded[:1]:
        out = output(device)
        runner.run([a, b, out], runtime_resource_factory=factory, device=device)
        np.testing.assert_array_equal(out.to_numpy(), expected(values, bv, factory.words))


# ---- one tensor in two parameters ----

def copy_own_pages_operation():
    @ttl.operation(grid=(2, 1))
    def copy_own(src, dst):
        ttl.call_extern_func(PAGES, "copy_own_page", func_args=[src, dst])

    return copy_own


def l1_tensor(device, seed):
    values = np.random.default_rng(seed).integers(-120, 120, size=(64, 64)).astype(np.float32)
    return ttl.Tensor.from_numpy(device, values, buffer_type="l1"), values


def test_one_tensor_in_two_parameters_is_its_own_plan(device):
    # copy_own writes dst. Called first as copy_own(x, x), its kernel reads and
    # writes parameter 0: a later call with distinct tensors of the same
    # layout must still write its dst.
    op = copy_own_pages_operation()
    for aliased in (True, False, True, False):
        (a, av), (b, bv) = l1_tensor(device, 18), l1_tensor(device, 19)
        if aliased:
            op(a, a)
            np.testing.assert_array_equal(a.to_numpy(), av)  # core x copies page x onto itself
        else:
            op(a, b)
            want = bv.copy()
            want[:32] = av[:32]  # pages 0 and 1: core x's slot 0
            np.testing.assert_array_equal(b.to_numpy(), want)
            np.testing.assert_array_equal(a.to_numpy(), av)
    assert len(op._plans) == 2
    sources = [op.generated_kernels(a, a), op.generated_kernels(a, b)]
    assert "copy_own_page(tensor0, tensor0);" in sources[0][ttl.KernelKind.DATA_MOVEMENT]
    assert "copy_own_page(tensor0, tensor1);" in sources[1][ttl.KernelKind.DATA_MOVEMENT]


@pytest.mark.parametrize("aliased_first", [True, False], ids=["aliased-first", "distinct-first"])
def test_one_tensor_read_through_two_parameters(device, aliased_first):
    factory = Words(ttl.KernelKind.DATA_MOVEMENT, ((1, 0), (0, 1)))
    op = copy_pages_operation(factory)
    (x, xv), (a, av), (b, bv) = tensor(device, "dram", 20), tensor(device, "dram", 21), tensor(device, "dram", 22)
    calls = [((x, x), (xv, xv)), ((a, b), (av, bv))]
    for (first, second), (first_values, second_values) in (calls if aliased_first else calls[::-1]) * 2:
        out = output(device)
        op(first, second, out)
        np.testing.assert_array_equal(out.to_numpy(), expected(first_values, second_values, factory.words))


def test_a_runner_emitted_after_an_aliased_call(device, tmp_path):
    factory = Words(ttl.KernelKind.DATA_MOVEMENT, ((1, 0), (0, 1)))
    op = copy_pages_operation(factory)
    (x, xv), (a, av), (b, bv) = tensor(device, "dram", 23), tensor(device, "dram", 24), tensor(device, "dram", 25)
    out = output(device)
    op(x, x, out)
    runner = ttl.load_runner(ttl.emit_runner(op, tmp_path / "aliased"))
    # Its kernels read x for b: a call that passes other tensors there is refused before anything runs.
    out = output(device)
    with pytest.raises(tessel.ValidationError) as e:
        runner.run([a, b, out], runtime_resource_factory=factory, device=device)
    assert str(e.value) == (
        f"Runner '{runner.directory}' (operation 'copy_pages'): run: tensors[1] (b) must be the same tensor as "
        "tensors[0] (a): the runner's kernels were generated for a call that passed one tensor as both, and read "
        "tensors[0] in its place; emit the runner from a call with distinct tensors (ttl.emit_runner(op, path, "
        "tensors=[...]))")
    np.testing.assert_array_equal(out.to_numpy(), np.full((64, 64), -1.0, np.float32))
    runner.run([a, a, out], runtime_resource_factory=factory, device=device)
    np.testing.assert_array_equal(out.to_numpy(), expected(av, av, factory.words))

    # Emitted for distinct tensors (explicitly, or after a distinct call), a
    # runner takes distinct and aliased tensors alike.
    explicit = ttl.emit_runner(op, tmp_path / "explicit", tensors=[a, b, out])
    op(a, b, out)
    after_a_distinct_call = ttl.emit_runner(op, tmp_path / "distinct")
    for path in (explicit, after_a_distinct_call):
        runner = ttl.load_runner(path)
        for first, second, fv, sv in ((a, b, av, bv), (x, x, xv, xv), (b, a, bv, av)):
            out = output(device)
            runner.run([first, second, out], runtime_resource_factory=factory, device=device)
            np.testing.assert_array_equal(out.to_numpy(), expected(fv, sv, factory.words))


@pytest.mark.parametrize("form", [list, tuple])
def test_fabric_worker_nodes_on_a_set_of_two_ranges(device, form):
    sender = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)
    claim = ttl.FabricManagerClaim("edm", sender)
    topology = ttl.FabricTopology(2, links=(ttl.FabricLink(0, 1, 0), ttl.FabricLink(1, 0, 0)))
    workers = ttnn.CoreRangeSet(form([ttnn.CoreRange((0, 0)), ttnn.CoreRange((1, 0))]))
    assert workers.ranges == (ttnn.CoreRange((0, 0), (0, 0)), ttnn.CoreRange((1, 0), (1, 0)))

    def make_resources(*, tensors, core_ranges, first_free_semaphore_id):
        requirements = tuple(ttl.FabricConnectionRequirement(src, dst, workers, 0) for src, dst in ((0, 1), (1, 0)))
        binding = ttl.FabricConnectionBinding(claim, requirements, "edm-v1")
        args = tuple(ttl.CoreRuntimeArgs(c, (1, 0)) for c in CORES)
        return ttl.ProgramRuntimeResources(kernel_resources=(ttl.KernelRuntimeResources(sender, args),),
                                           fabric_connections=(binding,))

    @ttl.operation(grid=(2, 1), runtime_resource_factory=make_resources, fabric_topology=topology)
    def op(a, b, out):
        with claim.scoped():
            ttl.call_extern_func(PAGES, "copy_pages", func_args=[a, b, out], kernel=sender)

    (a, av), (b, bv), out = tensor(device, "dram", 26), tensor(device, "l1", 27), output(device)
    op(a, b, out)
    np.testing.assert_array_equal(out.to_numpy(), expected(av, bv, ((1, 0), (1, 0))))
    result = make_resources(tensors=(), core_ranges=op.launch, first_free_semaphore_id=0)
    _, _, _, fabric = lower_resources(result, lambda k, w: k._cpp(), lambda c, w: c._cpp(), "")
    assert [c[2] for c in fabric[0][1]] == [[(0, 0, 0, 0), (1, 0, 1, 0)]] * 2
