"""The host API from Python: devices, buffers, programs, queues, events,
traces, the program cache, core types; errors carry the C++ message."""

import numpy as np
import pytest

import tessel

COPY = """#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  // args: src L1 address, dst L1 address, words (on this core); CB 0 is scratch
  const uint32_t src = get_arg_val<uint32_t>(0), dst = get_arg_val<uint32_t>(1), n = get_arg_val<uint32_t>(2);
  const uint32_t scratch = get_write_ptr(0);
  noc_async_read(get_noc_addr(src), scratch, n * 4);
  noc_async_read_barrier();
  auto* w = reinterpret_cast<volatile uint32_t*>(scratch);
  for (uint32_t i = 0; i < n; ++i) w[i] += get_common_arg_val<uint32_t>(0);
  noc_async_write(scratch, get_noc_addr(dst), n * 4);
  noc_async_write_barrier();
}
"""

PRODUCER = """#include "api/dataflow/dataflow_api.h"
void kernel_main() { cb_wait_front(0, 1); }
"""


def test_device_properties():
    with tessel.Device.open(arch="wormhole_b0", grid=(3, 2), policy="random:5") as d:
        assert d.arch == "wormhole_b0"
        assert d.grid == tessel.CoreCoord(3, 2) == (3, 2)
        assert d.policy == "random:5"
        assert d.dram_banks == 12
        assert d.num_cb_indices == 32
        assert d.is_open
    assert not d.is_open
    with pytest.raises(tessel.ValidationError) as e:
        tessel.Buffer(d, 64, 64)
    assert "closed" in str(e.value)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int32, np.float32, np.float64])
def test_buffer_roundtrip(device, dtype):
    data = (np.arange(4096) % 251).astype(dtype)
    for kind in (tessel.BufferType.DRAM, tessel.BufferType.L1, "l1"):
        b = tessel.Buffer(device, data.nbytes, 1024, kind)
        b.write(data)
        assert np.array_equal(b.read(dtype), data)
        out = np.zeros_like(data)
        assert b.read(out=out) is out and np.array_equal(out, data)
        q = device.command_queue
        q.enqueue_write_buffer(b, data[::-1].copy())
        assert np.array_equal(q.enqueue_read_buffer(b, dtype=dtype), data[::-1])


def test_sharded_buffer_places_pages_by_the_spec(device):
    spec = tessel.ShardSpec((4, 4), (2, 2), banks=(0, 1, 2, 3))
    b = tessel.Buffer(device, 16 * 64, 64, tessel.BufferType.L1, shard=spec)
    assert b.is_sharded
    # Page 2 (row 0, column 2) is in shard 1, slot 0, at in-shard position 0.
    bank, addr = b.page_location(2)
    assert bank == 1 and addr == b.address
    bank, addr = b.page_location(5)  # row 1, column 1: shard 0, position 3
    assert bank == 0 and addr == b.address + 3 * b.aligned_page_size
    data = np.arange(16 * 16, dtype=np.uint32)
    b.write(data)
    assert np.array_equal(b.read(np.uint32), data)
    assert len(tessel.TensorAccessorArgs(b).get_compile_time_args()) == 4 + 2 * 2 + 4


def test_program_runtime_and_common_args(device):
    src = tessel.Buffer(device, 64, 64, tessel.BufferType.L1)
    dst = tessel.Buffer(device, 64, 64, tessel.BufferType.L1)
    src.write(np.arange(16, dtype=np.uint32))
    p = tessel.Program()
    k = p.add_kernel_from_source(COPY, "copy.cpp", (1, 1), tessel.DataMovementConfig())
    # L1 buffers: bank b is core (b % grid_x, b / grid_x); core (1,1) is bank 5 of a 4x4 grid.
    assert src.page_location(0)[0] == 0
    with pytest.raises(tessel.ValidationError) as e:
        p.set_runtime_args(k, (0, 0), [src.address, dst.address, 16])
    assert str(e.value) == "set_runtime_args: core (0,0) is not one of the cores of kernel 'copy.cpp', {(1,1)}"
    p2 = tessel.Program()
    p2.add_circular_buffer((0, 0), tessel.CircularBufferConfig(64, {0: tessel.DataFormat.UInt32}).set_page_size(0, 64))
    k = p2.add_kernel_from_source(COPY, "copy.cpp", [(0, 0)], tessel.DataMovementConfig())
    p2.set_runtime_args(k, (0, 0), np.array([src.address, dst.address, 16], dtype=np.uint32))
    p2.set_common_runtime_args(k, (100,))
    q = device.command_queue
    q.enqueue_program(p2)
    assert np.array_equal(dst.read(np.uint32), np.arange(16) + 100)
    # Change words in place: the views write into the program.
    p2.common_runtime_args(k)[0] = 7
    p2.runtime_args(k, (0, 0))[2] = 8
    q.enqueue_program(p2)
    got = dst.read(np.uint32)
    assert np.array_equal(got[:8], np.arange(8) + 7) and np.array_equal(got[8:], np.arange(8, 16) + 100)


def test_errors_carry_the_cpp_message(device):
    p = tessel.Program()
    p.add_circular_buffer((0, 0), tessel.CircularBufferConfig(2048, {0: "bf16"}).set_page_size(0, 2048))
    p.add_kernel_from_source(PRODUCER, "waiter.cpp", (0, 0), tessel.DataMovementConfig())
    with pytest.raises(tessel.DeadlockError) as e:
        device.command_queue.enqueue_program(p)
    assert "core (0,0) BRISC at waiter.cpp:2 in cb_wait_front(cb=0, pages=1)" in str(e.value)
    assert "cb_wait_front" in str(e.value)
    bad = tessel.Program()
    bad.add_kernel_from_source("void kernel_main() { nope(); }\n", "broken.cpp", (0, 0), tessel.DataMovementConfig())
    with pytest.raises(tessel.ProgramError) as e:
        device.command_queue.enqueue_program(bad)
    assert "broken.cpp" in str(e.value) and "nope" in str(e.value)
    # The device is still usable.
    b = tessel.Buffer(device, 64, 64)
    b.write(np.ones(16, np.uint32))
    assert b.read(np.uint32).sum() == 16


# Builds only when the config reaches the compiler: OPT names the level's
# predefined macros (-Os and -Oz: __OPTIMIZE_SIZE__, -Ofast: __FAST_MATH__)
# and SET whether bfp8_pack_precise and enable_trisc2_rvv were given.
BUILD_CHECK = """#if defined(__OPTIMIZE_SIZE__) != WANT_SIZE || defined(__FAST_MATH__) != WANT_FAST
#error not built at the level asked for
#endif
#if TESSEL_BFP8_PACK_PRECISE + 0 != SET || TESSEL_TRISC2_RVV + 0 != SET
#error the compute options did not reach the kernel
#endif
void kernel_main() {}
"""


@pytest.mark.parametrize("level,size,fast", [("O2", 0, 0), ("Os", 1, 0), ("Ofast", 0, 1), ("Oz", 1, 0),
                                             (tessel.OptLevel.Oz, 1, 0), (1, 0, 0)])
@pytest.mark.parametrize("options", [False, True], ids=["no-options", "options"])
def test_compute_config_level_and_options_reach_the_build(device, level, size, fast, options):
    defines = {"WANT_SIZE": size, "WANT_FAST": fast, "SET": int(options)}
    p = tessel.Program()
    p.add_kernel_from_source(BUILD_CHECK, "check.cpp", (0, 0), tessel.ComputeConfig(
        opt_level=level, bfp8_pack_precise=options, enable_trisc2_rvv=options, defines=defines))
    p.add_kernel_from_source(BUILD_CHECK, "check_dm.cpp", (0, 0), tessel.DataMovementConfig(
        opt_level=level, defines=dict(defines, SET=0)))
    device.command_queue.enqueue_program(p)


def test_events_traces_and_the_program_cache(device):
    q = device.command_queue
    ev = tessel.Event()
    assert not ev.is_recorded
    q.enqueue_record_event(ev)
    assert ev.is_recorded and ev.completed() and q.query(ev)
    tessel.event_synchronize(ev)
    q.enqueue_wait_for_event(ev)

    p = tessel.Program()
    p.add_kernel_from_source("void kernel_main() {}\n", "nop.cpp", (0, 0), tessel.DataMovementConfig())
    q.enqueue_program(p)
    before = q.programs_run
    tid = q.begin_trace_capture()
    q.enqueue_program(p)
    q.enqueue_program(p)
    q.end_trace_capture(tid)
    assert q.programs_run == before
    assert q.trace_launch_count(tid) == 2
    q.replay_trace(tid)
    assert q.programs_run == before + 2
    q.release_trace(tid)
    with pytest.raises(tessel.ValidationError):
        q.replay_trace(tid)
    stats = device.program_cache
    assert stats.entries >= 0 and stats.hits >= 0 and stats.misses >= 0


def test_core_types_accept_tuples():
    r = tessel.CoreRange((2, 3), (0, 1))
    assert r.start_coord == (0, 1) and r.end_coord == (2, 3) and r.num_cores() == 9
    s = tessel.CoreRangeSet([(0, 0), ((1, 1), (2, 2))])
    assert s.num_cores() == 5 and s.contains((2, 1)) and not s.contains((0, 1))
    assert tessel.CoreRangeSet(((0, 0), (1, 1))).num_cores() == 4
    assert tessel.CoreRangeSet([(0, 0), (1, 1)]).num_cores() == 2


MARK = """#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  // Common arg 0: an L1-interleaved buffer, one page per core, so this core's
  // page is at that address in its own L1. Runtime arg 0: a semaphore id.
  // The core writes its semaphore's value plus its own x + 16 * y there.
  const uint32_t scratch = get_write_ptr(0);
  *reinterpret_cast<volatile uint32_t*>(scratch) =
      *reinterpret_cast<volatile uint32_t*>(get_semaphore(get_arg_val<uint32_t>(0))) + get_absolute_logical_x() +
      16 * get_absolute_logical_y();
  noc_async_write(scratch, get_noc_addr(get_common_arg_val<uint32_t>(0)), 4);
  noc_async_write_barrier();
}
"""

TWO_RANGES = (tessel.CoreRange((0, 0), (1, 0)), tessel.CoreRange((3, 3), (3, 2)))
TWO_RANGE_FORMS = {
    "list": lambda: list(TWO_RANGES),
    "tuple": lambda: TWO_RANGES,
    "set-of-list": lambda: tessel.CoreRangeSet(list(TWO_RANGES)),
    "set-of-tuple": lambda: tessel.CoreRangeSet(TWO_RANGES),
}


@pytest.mark.parametrize("form", TWO_RANGE_FORMS)
def test_two_core_ranges_are_two_ranges(device, form):
    # A pair of ranges is two ranges, never an (x, y) pair, in every call that takes cores.
    cores = TWO_RANGE_FORMS[form]()
    s = tessel.CoreRangeSet(cores)
    assert s.ranges == TWO_RANGES and s.num_cores() == 4
    marks = tessel.Buffer(device, 16 * 64, 64, tessel.BufferType.L1)  # page b on core (b % 4, b // 4)
    marks.write(np.zeros(16 * 16, np.uint32))
    p = tessel.Program()
    p.add_circular_buffer(cores, tessel.CircularBufferConfig(64, {0: tessel.DataFormat.UInt32}).set_page_size(0, 64))
    semaphore = p.add_semaphore(cores, 1000)
    k = p.add_kernel_from_source(MARK, "mark.cpp", cores, tessel.DataMovementConfig())
    p.set_runtime_args(k, cores, [semaphore])
    p.set_common_runtime_args(k, [marks.address])
    device.command_queue.enqueue_program(p)
    got = marks.read(np.uint32).reshape(16, 16)[:, 0]
    want = [1000 + x + 16 * y if any(r.contains((x, y)) for r in TWO_RANGES) else 0
            for y in range(4) for x in range(4)]
    assert got.tolist() == want


def test_core_and_range_pairs_mix():
    r = tessel.CoreRange((0, 0), (1, 1))
    assert tessel.CoreRangeSet([r, (3, 3)]).ranges == (r, tessel.CoreRange((3, 3)))
    assert tessel.CoreRangeSet(((2, 2), r)).ranges == (tessel.CoreRange((2, 2)), r)
    assert tessel.CoreRangeSet([r, ((2, 2), (3, 3))]).num_cores() == 8
    assert tessel.CoreRangeSet([tessel.CoreCoord(0, 0), r]).num_cores() == 5


BOUND_COPY = """#include "api/dataflow/dataflow_buffer.h"
#include "experimental/kernel_args.h"
void kernel_main() {
  // The COPY kernel's work, with its arguments and scratch CB read by name.
  DataflowBuffer scratch_dfb(dfb::scratch);
  const uint32_t scratch = scratch_dfb.get_write_ptr(), n = get_arg(args::words);
  noc_async_read(get_noc_addr(get_arg(args::src)), scratch, n * 4);
  noc_async_read_barrier();
  auto* w = reinterpret_cast<volatile uint32_t*>(scratch);
  for (uint32_t i = 0; i < n; ++i) w[i] += get_arg(args::add) + get_common_vararg(0);
  noc_async_write(scratch, get_noc_addr(get_arg(args::dst)), n * 4);
  noc_async_write_barrier();
}
"""


def test_kernel_bindings_name_the_arguments(device):
    src = tessel.Buffer(device, 64, 64, tessel.BufferType.L1)
    dst = tessel.Buffer(device, 64, 64, tessel.BufferType.L1)
    src.write(np.arange(16, dtype=np.uint32))
    p = tessel.Program()
    p.add_circular_buffer((0, 0), tessel.CircularBufferConfig(64, {5: tessel.DataFormat.UInt32}).set_page_size(5, 64))
    bindings = tessel.KernelBindings(runtime_args=["src", "dst", "words"], common_runtime_args=["add"],
                                     dataflow_buffers={"scratch": 5})
    k = p.add_kernel_from_source(BOUND_COPY, "bound_copy.cpp", (0, 0),
                                 tessel.DataMovementConfig(bindings=bindings))
    p.set_runtime_args(k, (0, 0), [src.address, dst.address, 16])
    p.set_common_runtime_args(k, [100, 1000])
    device.command_queue.enqueue_program(p)
    assert np.array_equal(dst.read(np.uint32), np.arange(16) + 1100)
    with pytest.raises(tessel.ValidationError) as e:
        tessel.Program().add_kernel_from_source(BOUND_COPY, "bound_copy.cpp", (0, 0), tessel.DataMovementConfig(
            bindings=tessel.KernelBindings(runtime_args=["src", "src"])))
    assert str(e.value) == ("add_kernel: kernel 'bound_copy.cpp': kernel bindings: args::src is bound twice "
                            "(runtime argument and an earlier binding); expected each name once in args::")
    with pytest.raises(TypeError, match=r"KernelBindings: dataflow_buffers must be a dict of name \(str\) to a number"):
        tessel.KernelBindings(dataflow_buffers=["scratch"])
    with pytest.raises(TypeError, match=r"ComputeConfig: bindings must be a tessel.KernelBindings or None"):
        tessel.ComputeConfig(bindings={"runtime_args": ["a"]})


BOUND_SCRATCHPAD = """#include "api/scratchpad.h"
#include "experimental/kernel_args.h"
void kernel_main() {
  // Fills scratch::pad with its indices plus the first common vararg, then copies it out.
  Scratchpad<uint32_t> pad(scratch::pad);
  for (uint32_t i = 0; i < pad.size(); ++i) pad[i] = i + get_common_vararg(0);
  pad[0] = uint32_t(pad.get_dataformat());
  noc_async_write(pad.get_base_address(), get_noc_addr(get_arg(args::dst)), pad.size_in_bytes());
  noc_async_write_barrier();
}
"""


def test_kernel_bindings_name_scratchpads(device):
    region = tessel.Buffer(device, 64, 64, tessel.BufferType.L1)
    dst = tessel.Buffer(device, 64, 64, tessel.BufferType.L1)
    p = tessel.Program()
    bindings = tessel.KernelBindings(runtime_args=["dst"], scratchpads=[("pad", 64, "uint32")])
    k = p.add_kernel_from_source(BOUND_SCRATCHPAD, "bound_scratchpad.cpp", (0, 0),
                                 tessel.DataMovementConfig(bindings=bindings))
    p.set_runtime_args(k, (0, 0), [dst.address])
    p.set_common_runtime_args(k, [region.address, 500])
    device.command_queue.enqueue_program(p)
    assert dst.read(np.uint32).tolist() == [int(tessel.DataFormat.UInt32)] + list(range(501, 516))
    assert tessel.KernelBindings(scratchpads=[("a", 8)]).scratchpads == (("a", 8),)
    with pytest.raises(TypeError, match=r"KernelBindings: scratchpads\[0\] must be \(name, bytes per core\[, data "
                                        r"format\]\), got"):
        tessel.KernelBindings(scratchpads=[("a",)])
    with pytest.raises(tessel.ValidationError) as e:
        tessel.Program().add_kernel_from_source(BOUND_SCRATCHPAD, "bound_scratchpad.cpp", (0, 0),
                                                tessel.DataMovementConfig(bindings=tessel.KernelBindings(
                                                    scratchpads=[("pad", 0)])))
    assert str(e.value) == ("add_kernel: kernel 'bound_scratchpad.cpp': kernel bindings: scratchpad 'pad' has a size "
                            "of 0 bytes; expected its bytes per core, at least 1")
