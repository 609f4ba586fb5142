"""The spec's make_collective example (spec/operation-runtime-resources,
"Typed Records"), as written there but for the imports, run on the simulator:
twice (the second run a program-cache hit that applies the new dispatch
words), and again from an emitted runner, in this process and in a fresh one.

collective_sender (data/collective.hpp): core (0, 0) copies input page 0 into
its output page and raises core (1, 0)'s semaphore; core (1, 0) waits, then
copies that page into its own. So the output is input page 0 twice, and a
receiver that ran before the sender (a semaphore or ordering bug) would copy
the poison the output starts with.
"""

import os
import subprocess
import sys

import numpy as np
import pytest
import tessel
import tessel.ttl as ttl
import tessel.ttnn as ttnn

HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "collective.hpp")
POLICIES = ["deterministic", "random:1", "random:29"]


# ---- the spec's example: only the imports above differ ----

def make_collective(runtime_owner):
    sender = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)

    def make_resources(*, tensors, core_ranges, first_free_semaphore_id):
        semaphore = ttnn.SemaphoreDescriptor(
            first_free_semaphore_id,
            core_ranges=core_ranges,
            initial_value=0,
        )
        return ttl.ProgramRuntimeResources(
            semaphore_descriptors=(semaphore,),
            kernel_resources=(
                ttl.KernelRuntimeResources(
                    kernel=sender,
                    runtime_args=(
                        ttl.CoreRuntimeArgs(
                            ttnn.CoreCoord(0, 0),
                            (first_free_semaphore_id, 0),
                        ),
                        ttl.CoreRuntimeArgs(
                            ttnn.CoreCoord(1, 0),
                            (first_free_semaphore_id, 1),
                        ),
                    ),
                    defines=(ttl.KernelDefine("FABRIC_2D", "1"),),
                ),
            ),
            lifetimes=(runtime_owner, semaphore),
        )

    @ttl.operation(grid=(2, 1), runtime_resource_factory=make_resources)
    def collective(input_tensor, output_tensor):
        ttl.call_extern_func(
            HEADER,
            "collective_sender",
            func_args=[input_tensor, output_tensor],
            kernel=sender,
        )

    return collective


# ---- helpers ----

class RuntimeOwner:
    """A host object the factory's resources keep alive."""


POISON = -77.0


def make_tensors(device, seed):
    """A (32, 64) bf16 input in DRAM (two tiles, distinct values per run) and
    an L1 output of the same shape, page i on core (i, 0), poisoned."""
    rng = np.random.default_rng(seed)
    values = rng.integers(-100, 100, size=(32, 64)).astype(np.float32)  # exact in bf16
    input_tensor = ttl.Tensor.from_numpy(device, values)
    output_tensor = ttl.Tensor.from_numpy(device, np.full((32, 64), POISON, np.float32), buffer_type="l1")
    return input_tensor, output_tensor, values


def expected(values):
    return np.concatenate([values[:, :32], values[:, :32]], axis=1)


# ---- tests ----

@pytest.mark.parametrize("policy", POLICIES)
def test_second_run_is_a_cache_hit_with_the_new_dispatch_words(policy):
    owner = RuntimeOwner()
    collective = make_collective(owner)
    with tessel.Device.open(grid=(2, 1), policy=policy) as device:
        in1, out1, values1 = make_tensors(device, 1)
        collective(in1, out1)
        cache = device.program_cache
        assert (cache.entries, cache.misses, cache.hits) == (1, 1, 0)
        np.testing.assert_array_equal(out1.to_numpy(), expected(values1))

        # New tensors: new addresses, the dispatch words of the second run.
        in2, out2, values2 = make_tensors(device, 2)
        assert {in2.buffer.address, out2.buffer.address}.isdisjoint({in1.buffer.address, out1.buffer.address})
        collective(in2, out2)
        assert (cache.entries, cache.misses, cache.hits) == (1, 1, 1)
        np.testing.assert_array_equal(out2.to_numpy(), expected(values2))
        # The second run used only its own words: the first output is untouched.
        np.testing.assert_array_equal(out1.to_numpy(), expected(values1))


def test_each_run_calls_the_factory_once_and_retains_its_lifetimes():
    owner = RuntimeOwner()
    collective = make_collective(owner)
    assert collective.lifetimes == ()
    with tessel.Device.open(grid=(2, 1)) as device:
        in1, out1, _ = make_tensors(device, 3)
        collective(in1, out1)
        first = collective.lifetimes
        assert first[0] is owner
        assert first[1] == ttnn.SemaphoreDescriptor(0, core_ranges=collective.launch, initial_value=0)
        # The C++ Operation holds the same owners (released when a later run replaces them).
        assert collective._cpp.lifetimes() == list(first)

        in2, out2, _ = make_tensors(device, 4)
        collective(in2, out2)
        second = collective.lifetimes
        assert second[0] is owner
        assert second[1] is not first[1]  # the factory result is not cached: a new descriptor each run
        assert collective._cpp.lifetimes()[1] is second[1]


def test_the_generated_kernel_calls_collective_sender_with_two_accessors():
    collective = make_collective(RuntimeOwner())
    with tessel.Device.open(grid=(2, 1)) as device:
        in1, out1, _ = make_tensors(device, 5)
        (kernel, source), = collective.generated_kernels(in1, out1).items()
        assert kernel.name == "sender" and kernel.operation == "collective"
        assert f'#include "{HEADER}"' in source
        assert "TensorAccessorArgs<0, 2>()" in source and "TensorAccessorArgs<2, 2>()" in source
        assert "  collective_sender(tensor0, tensor1);\n" in source


@pytest.mark.parametrize("policy", POLICIES[:2])
def test_emitted_runner_runs_with_the_factory_on_every_call(tmp_path, policy):
    collective = make_collective(RuntimeOwner())
    with tessel.Device.open(grid=(2, 1), policy=policy) as device:
        in0, out0, _ = make_tensors(device, 6)
        collective(in0, out0)
        path = ttl.emit_runner(collective, tmp_path / "collective")

        runner = ttl.load_runner(path)
        assert (runner.operation_name, runner.grid) == ("collective", (2, 1))
        assert runner.launch == collective.launch
        make_resources = collective.runtime_resource_factory
        misses = device.program_cache.misses
        for seed in (7, 8):
            in_, out, values = make_tensors(device, seed)
            runner.run(
                [in_, out],
                runtime_resource_factory=make_resources,
                device=device,
            )
            np.testing.assert_array_equal(out.to_numpy(), expected(values))
        # The runner's kernels are files in its directory: one more build, then hits.
        assert device.program_cache.misses == misses + 1
        assert runner.lifetimes[0] is collective.lifetimes[0]


def test_emitted_runner_runs_in_a_fresh_process(tmp_path):
    owner = RuntimeOwner()
    with tessel.Device.open(grid=(2, 1)) as device:
        collective = make_collective(owner)
        in0, out0, _ = make_tensors(device, 9)
        ttl.emit_runner(collective, tmp_path / "collective", tensors=[in0, out0])
    # A new process: the operation's module imported afresh, the runner loaded
    # from its directory, the factory a new make_collective's.
    script = f"""
import importlib.util, runpy, sys
import numpy as np
import tessel
spec = importlib.util.spec_from_file_location("collective_example", {os.path.abspath(__file__)!r})
example = importlib.util.module_from_spec(spec)
spec.loader.exec_module(example)
runner = runpy.run_path({str(tmp_path / "collective" / "runner.py")!r})
make_resources = example.make_collective(example.RuntimeOwner()).runtime_resource_factory
with tessel.Device.open(grid=(2, 1)) as device:
    tensors = example.make_tensors(device, 10)
    runner["run"](list(tensors[:2]), runtime_resource_factory=make_resources, device=device)
    assert np.array_equal(tensors[1].to_numpy(), example.expected(tensors[2]))
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


@pytest.mark.parametrize("form", [list, tuple])
def test_a_semaphore_on_a_set_of_two_ranges(form):
    # ttnn.CoreRangeSet of exactly two ranges: the semaphore is on both
    # cores, so the receiver sees the sender's increment.
    cores = ttnn.CoreRangeSet(form([ttnn.CoreRange(ttnn.CoreCoord(0, 0)), ttnn.CoreRange((1, 0), (1, 0))]))
    assert cores.num_cores() == 2 and len(cores) == 2
    sender = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)

    def make_resources(*, tensors, core_ranges, first_free_semaphore_id):
        semaphore = ttnn.SemaphoreDescriptor(first_free_semaphore_id, core_ranges=cores)
        args = tuple(ttl.CoreRuntimeArgs(ttnn.CoreCoord(x, 0), (first_free_semaphore_id, x)) for x in (0, 1))
        return ttl.ProgramRuntimeResources(
            semaphore_descriptors=(semaphore,),
            kernel_resources=(ttl.KernelRuntimeResources(sender, args, (ttl.KernelDefine("FABRIC_2D", "1"),)),))

    @ttl.operation(grid=(2, 1), runtime_resource_factory=make_resources)
    def collective(input_tensor, output_tensor):
        ttl.call_extern_func(HEADER, "collective_sender", func_args=[input_tensor, output_tensor], kernel=sender)

    with tessel.Device.open(grid=(2, 1)) as device:
        in_, out, values = make_tensors(device, 11)
        collective(in_, out)
        np.testing.assert_array_equal(out.to_numpy(), expected(values))
