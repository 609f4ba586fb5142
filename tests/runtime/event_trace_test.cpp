// The event trace (src/sim/trace.cpp) of real programs: a track per RISC,
// kernel spans with their totals, wait spans that say what for, compute
// spans, NoC transfers as flows from the issuing RISC to the right far end,
// DPRINT lines, the ring, the same totals under every policy, nothing when
// off, and the statistics read back (tessel/trace_stats.hpp).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/json_reader.hpp"
#include "example.hpp"
#include "runtime/device_state.hpp"
#include "sim/ops_kernel.hpp"
#include "sim/trace.hpp"

namespace tessel::test {
namespace {

using base::JsonValue;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("tessel_" + std::to_string(getpid()) + "_" + name)).string();
}

struct Trace {
  std::vector<JsonValue> events;
  std::map<uint64_t, std::string> threads; // tid -> name
  bool closed = false;

  std::vector<const JsonValue*> with(std::string_view cat) const {
    std::vector<const JsonValue*> out;
    for (const JsonValue& e : events)
      if (e.text_at("cat") == cat) out.push_back(&e);
    return out;
  }
  std::string thread_of(const JsonValue& e) const {
    auto it = threads.find(uint64_t(e.number_at("tid")));
    return it == threads.end() ? "?" : it->second;
  }
};

Trace read_trace(const std::string& path) {
  Trace t;
  t.closed = base::read_json_array_elements(path, [&](const JsonValue& e) {
               if (e.text_at("ph") == "M" && e.text_at("name") == "thread_name")
                 t.threads[uint64_t(e.number_at("tid"))] = std::string(e.find("args")->text_at("name"));
               t.events.push_back(e);
             }).closed;
  return t;
}

const JsonValue& args(const JsonValue& e) {
  static const JsonValue none;
  const JsonValue* a = e.find("args");
  return a ? *a : none;
}

DeviceConfig traced(const std::string& path, uint32_t gx, uint32_t gy, const std::string& policy = "deterministic") {
  DeviceConfig c;
  c.grid_x = gx;
  c.grid_y = gy;
  c.policy = policy;
  c.trace_path = path;
  return c;
}

// eltwise_binary's add on a 2x1 grid: 4 tiles per core.
void run_eltwise(const std::shared_ptr<Device>& device, uint32_t num_tiles = 8) {
  CommandQueue& cq = device->command_queue();
  const uint32_t tile = 2048;
  auto a = Buffer::create(device, {num_tiles * tile, tile, BufferType::DRAM});
  auto b = Buffer::create(device, {num_tiles * tile, tile, BufferType::DRAM});
  auto c = Buffer::create(device, {num_tiles * tile, tile, BufferType::DRAM});
  std::vector<uint8_t> zeros(num_tiles * tile, 0);
  cq.enqueue_write_buffer(*a, zeros);
  cq.enqueue_write_buffer(*b, zeros);
  Program p = examples::make_eltwise_binary_program(device->grid(), *a, *b, *c, num_tiles, "add_tiles");
  cq.enqueue_program(p);
}

TEST(EventTraceTest, AReaderComputeWriterPipeline) {
  const std::string path = temp_path("pipeline.json");
  {
    auto device = Device::open(traced(path, 2, 1));
    EXPECT_EQ(device->trace_path(), std::filesystem::weakly_canonical(path).string());
    run_eltwise(device);
  }
  const Trace t = read_trace(path);
  EXPECT_TRUE(t.closed);
  EXPECT_EQ(t.threads.at(1), "core (0,0) BRISC");
  EXPECT_EQ(t.threads.at(2), "core (0,0) NCRISC");
  EXPECT_EQ(t.threads.at(3), "core (0,0) COMPUTE");
  EXPECT_EQ(t.threads.at(4), "core (0,0) L1");
  EXPECT_EQ(t.threads.at(5), "core (1,0) BRISC");

  // One kernel span per RISC, named by its kernel, with its totals.
  std::map<std::string, const JsonValue*> kernels;
  for (const JsonValue* k : t.with("kernel"))
    kernels[t.thread_of(*k)] = k;
  ASSERT_EQ(kernels.size(), 6u);
  const JsonValue& reader = *kernels.at("core (1,0) BRISC");
  EXPECT_NE(reader.text_at("name").find("reader.cpp"), std::string::npos) << reader.text_at("name");
  EXPECT_EQ(args(reader).number_at("noc_read_bytes"), 2 * 4 * 2048);
  EXPECT_EQ(args(reader).number_at("noc_transfers"), 8);
  EXPECT_EQ(args(reader).number_at("cb_pages_pushed"), 8);
  const JsonValue& compute = *kernels.at("core (0,0) COMPUTE");
  EXPECT_EQ(args(compute).number_at("eltwise_tiles"), 4);
  EXPECT_EQ(args(compute).number_at("pack_tiles"), 4);
  EXPECT_EQ(args(*kernels.at("core (0,0) NCRISC")).number_at("noc_write_bytes"), 4 * 2048);

  // Waits say what for, and where.
  const auto waits = t.with("wait");
  ASSERT_FALSE(waits.empty());
  bool compute_waited_for_input = false;
  for (const JsonValue* w : waits) {
    EXPECT_GE(w->number_at("dur"), 0);
    if (t.thread_of(*w) == "core (0,0) COMPUTE" && w->text_at("name") == "wait CB0 front") {
      compute_waited_for_input = true;
      EXPECT_EQ(args(*w).text_at("what").substr(0, 26), "cb_wait_front(cb=0, pages=");
      EXPECT_EQ(args(*w).text_at("file"), "compute.cpp");
      EXPECT_GT(args(*w).number_at("line"), 0);
    }
  }
  EXPECT_TRUE(compute_waited_for_input);

  // Compute spans: the add and the pack of each tile.
  uint64_t eltwise = 0, pack = 0;
  for (const JsonValue* c : t.with("compute")) {
    EXPECT_EQ(t.thread_of(*c).substr(t.thread_of(*c).size() - 7), "COMPUTE");
    eltwise += uint64_t(args(*c).number_at("eltwise_tiles"));
    pack += uint64_t(args(*c).number_at("pack_tiles"));
  }
  EXPECT_EQ(eltwise, 8u);
  EXPECT_EQ(pack, 8u);

  // Every NoC transfer is a flow: the reads from a DRAM bank into a reader,
  // the writes from a writer into a DRAM bank.
  std::map<std::string, std::vector<const JsonValue*>> by_flow;
  for (const JsonValue* n : t.with("noc"))
    by_flow[std::string(n->text_at("bind_id"))].push_back(n);
  ASSERT_EQ(by_flow.size(), 8u * 2 + 8u);
  uint32_t reads = 0, writes = 0;
  for (const auto& [id, ends] : by_flow) {
    ASSERT_EQ(ends.size(), 2u) << id;
    const JsonValue* out = ends[0]->find("flow_out") ? ends[0] : ends[1];
    const JsonValue* in = out == ends[0] ? ends[1] : ends[0];
    ASSERT_TRUE(in->find("flow_in")) << id;
    const std::string from = t.thread_of(*out), to = t.thread_of(*in);
    if (out->text_at("name") == "noc_async_read") { // an arrow from the reader to where it read
      ++reads;
      EXPECT_EQ(from.substr(from.size() - 5), "BRISC") << from;
      EXPECT_EQ(to.rfind("DRAM bank ", 0), 0u) << to;
      EXPECT_EQ(args(*out).text_at("from"), to);
      EXPECT_EQ(in->text_at("name"), "NoC read");
      EXPECT_EQ(args(*in).text_at("by"), from);
    } else {
      ++writes;
      EXPECT_EQ(out->text_at("name"), "noc_async_write");
      EXPECT_EQ(from.substr(from.size() - 6), "NCRISC") << from;
      EXPECT_EQ(to.rfind("DRAM bank ", 0), 0u) << to;
    }
    EXPECT_EQ(args(*in).number_at("bytes"), 2048);
  }
  EXPECT_EQ(reads, 16u);
  EXPECT_EQ(writes, 8u);

  // The statistics read back the same totals.
  const TraceStats s = read_trace_stats(path);
  EXPECT_TRUE(s.complete);
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].label, "blackhole 2x1");
  EXPECT_EQ(s.devices[0].time_base, "logical");
  ASSERT_EQ(s.riscs.size(), 6u);
  EXPECT_EQ(s.riscs[0].core, (CoreCoord{0, 0}));
  uint64_t read_bytes = 0, math = 0;
  for (const TraceRiscStats& r : s.riscs) {
    read_bytes += r.noc_read_bytes;
    math += r.tiles.math();
    EXPECT_LE(r.wait_time, r.kernel_time);
    EXPECT_EQ(r.kernel_runs, 1u);
  }
  EXPECT_EQ(read_bytes, 16u * 2048);
  EXPECT_EQ(math, 8u);
  ASSERT_FALSE(s.longest_waits.empty());
  for (size_t i = 1; i < s.longest_waits.size(); ++i)
    EXPECT_GE(s.longest_waits[i - 1].duration, s.longest_waits[i].duration);
  for (const TraceWait& w : s.longest_waits)
    EXPECT_GT(w.duration, 0u); // a wait of no time is not listed
  const std::string report = format_trace_stats(s);
  EXPECT_NE(report.find("device #1: blackhole 2x1; time logical"), std::string::npos) << report;
  EXPECT_NE(report.find("longest waits:"), std::string::npos) << report;
  EXPECT_NE(report.find("(1,0)   COMPUTE"), std::string::npos) << report;
  std::filesystem::remove(path);
}

TEST(EventTraceTest, CoreToCoreTransfersAndSemaphoreWaitsGoToTheRightCores) {
  const std::string path = temp_path("cores.json");
  {
    auto device = Device::open(traced(path, 2, 1));
    Recorder rec(device);
    Program p;
    const CoreCoord a{0, 0}, b{1, 0};
    p.add_semaphore(CoreRange(a, b), 0);
    KernelHandle ka = add_ops(p, a), kb = add_ops(p, b);
    const CoreCoord a_noc = device->worker_core_from_logical_core(a);
    // (1,0) writes a word into (0,0)'s record area, then raises its semaphore; (0,0) waits for it.
    set_script(p, kb, b,
               Script()
                   .op(kInline, a_noc.x, a_noc.y, rec.buffer->address() + 4, 0x1234, 0xF)
                   .op(kSemInc, a_noc.x, a_noc.y, 0, 1),
               rec);
    set_script(p, ka, a, Script().op(kSemWait, 0, 1).op(kRecordValue, 0, 7), rec);
    device->command_queue().enqueue_program(p);
    EXPECT_EQ(rec.at(0), 7u);
    EXPECT_EQ(rec.at(1), 0x1234u);
  }
  const Trace t = read_trace(path);
  std::set<std::pair<std::string, std::string>> flows; // (issuer slice name @ thread, far end thread)
  std::map<std::string, const JsonValue*> out_of;
  for (const JsonValue* n : t.with("noc"))
    if (n->find("flow_out")) out_of[std::string(n->text_at("bind_id"))] = n;
  for (const JsonValue* n : t.with("noc"))
    if (n->find("flow_in"))
      flows.emplace(std::string(out_of.at(std::string(n->text_at("bind_id")))->text_at("name")) + " @ " +
                        t.thread_of(*out_of.at(std::string(n->text_at("bind_id")))),
                    t.thread_of(*n));
  EXPECT_TRUE(flows.count({"noc_inline_dw_write @ core (1,0) BRISC", "core (0,0) L1"}));
  EXPECT_TRUE(flows.count({"noc_semaphore_inc @ core (1,0) BRISC", "core (0,0) L1"}));
  EXPECT_TRUE(flows.count({"noc_inline_dw_write @ core (0,0) BRISC", "core (0,0) L1"})); // the record
  bool sem_wait = false;
  for (const JsonValue* w : t.with("wait"))
    if (t.thread_of(*w) == "core (0,0) BRISC") {
      sem_wait = true;
      EXPECT_EQ(w->text_at("name").substr(0, 14), "wait semaphore");
      EXPECT_NE(args(*w).text_at("what").find("noc_semaphore_wait(L1 0x"), std::string::npos);
      EXPECT_NE(args(*w).text_at("what").find("waiting for == 1"), std::string::npos);
      EXPECT_EQ(args(*w).text_at("file"), "ops.cpp");
      EXPECT_EQ(args(*w).number_at("line"), ops_line("sem_wait"));
    }
  // Under the deterministic policy (0,0) runs first and must wait.
  EXPECT_TRUE(sem_wait);
  std::filesystem::remove(path);
}

// A semaphore ping-pong between two cores, which parallel:2 puts on two
// threads: each round's wait ends at the other core's increment, so the
// waiting RISC's clock moves up to the writer's under every policy.
TEST(EventTraceTest, ASemaphoreWaitEndsAtTheWritersClockUnderEveryPolicy) {
  constexpr uint32_t kRounds = 6, kWork = 4; // (within a script's runtime args)
  for (const std::string& policy : policies()) {
    SCOPED_TRACE(policy);
    const std::string path = temp_path("pingpong.json");
    {
      auto device = Device::open(traced(path, 2, 1, policy));
      Recorder rec(device);
      Program p;
      const CoreCoord a{0, 0}, b{1, 0};
      p.add_semaphore(CoreRange(a, b), 0);
      KernelHandle ka = add_ops(p, a), kb = add_ops(p, b);
      const CoreCoord a_noc = device->worker_core_from_logical_core(a),
                      b_noc = device->worker_core_from_logical_core(b);
      Script sa, sb;
      // (1,0) makes kWork calls before each increment, so (0,0)'s clock
      // falls behind by at least that much every round.
      for (uint32_t i = 1; i <= kRounds; ++i) {
        for (uint32_t w = 0; w < kWork; ++w)
          sb.op(kRecordValue, 1, w);
        sb.op(kSemInc, a_noc.x, a_noc.y, 0, 1).op(kSemWait, 0, i);
        sa.op(kSemWait, 0, i).op(kSemInc, b_noc.x, b_noc.y, 0, 1);
      }
      sa.op(kRecordValue, 0, 7);
      set_script(p, ka, a, sa, rec);
      set_script(p, kb, b, sb, rec);
      device->command_queue().enqueue_program(p);
      EXPECT_EQ(rec.at(0), 7u);
    }
    const TraceStats stats = read_trace_stats(path);
    bool found = false;
    for (const TraceRiscStats& r : stats.riscs)
      if (r.core == CoreCoord{0, 0} && r.risc == "BRISC") {
        found = true;
        // (Under parallel a round whose increment lands before (0,0) has
        // parked may end its wait without the writer's clock, as a wait
        // already satisfied does under every policy: a lower bound.)
        EXPECT_GE(r.wait_time, kWork) << format_trace_stats(stats);
        EXPECT_GE(r.kernel_time, 2 * kRounds + kWork) << format_trace_stats(stats);
      }
    EXPECT_TRUE(found);
    std::filesystem::remove(path);
  }
}

// Under parallel:2 (the cores that run kernels, (0,0), (2,0) and (3,0), split
// into (0,0), (2,0) on the calling thread and (3,0) on the other, each thread
// running its cores in order) (0,0) waits at once for a semaphore that (3,0)
// raises at once, while (2,0), far ahead in steps, raises (0,0)'s other
// semaphore: the wait ends at the clock of the RISC that raised its own
// semaphore, never at the other's, whichever store the waiter's thread sees
// first (when (3,0)'s store lands while (2,0) runs, (2,0)'s store on the
// waiter's own thread is the one that finds the wait satisfied).
TEST(EventTraceTest, AWaitDoesNotTakeTheClockOfAnUnrelatedStore) {
  constexpr uint32_t kAhead = 40;
  for (int round = 0; round < 5; ++round) {
    const std::string path = temp_path("unrelated.json");
    {
      auto device = Device::open(traced(path, 4, 1, "parallel:2"));
      Recorder rec(device);
      Program p;
      const CoreCoord waiter{0, 0}, ahead{2, 0}, raiser{3, 0};
      p.add_semaphore(CoreRange(waiter, raiser), 0);
      p.add_semaphore(CoreRange(waiter, raiser), 0);
      KernelHandle ka = add_ops(p, ahead), kr = add_ops(p, raiser), kw = add_ops(p, waiter);
      const CoreCoord w_noc = device->worker_core_from_logical_core(waiter);
      Script sa;
      for (uint32_t i = 0; i < kAhead; ++i)
        sa.op(kRecordValue, 1, i);
      sa.op(kSemInc, w_noc.x, w_noc.y, 1, 1); // the other semaphore
      set_script(p, ka, ahead, sa, rec);
      set_script(p, kr, raiser, Script().op(kSemInc, w_noc.x, w_noc.y, 0, 1), rec);
      set_script(p, kw, waiter, Script().op(kSemWait, 0, 1), rec);
      device->command_queue().enqueue_program(p);
    }
    for (const TraceRiscStats& r : read_trace_stats(path).riscs)
      if (r.core == CoreCoord{0, 0} && r.risc == "BRISC") {
        EXPECT_LT(r.wait_time, kAhead / 2) << "round " << round;
      }
    std::filesystem::remove(path);
  }
}

// The same three cores, (2,0) now busy for milliseconds of host time (large
// DRAM reads) before it raises (0,0)'s other semaphore: (3,0)'s store on the
// other thread lands while (2,0) runs, so it is (2,0)'s store, on the
// waiter's own thread, that finds the wait satisfied. The wait still ends at
// (3,0)'s clock. (It took (2,0)'s, some 100 steps, in most runs before.)
TEST(EventTraceTest, AWaitSatisfiedByAnotherThreadWhileItsOwnThreadRunsTakesThatStoresClock) {
  constexpr uint32_t kReads = 36, kBytes = 512 * 1024;
  const std::string path = temp_path("other_thread.json");
  {
    auto device = Device::open(traced(path, 4, 1, "parallel:2"));
    Recorder rec(device);
    auto dram = Buffer::create(device, {kBytes, kBytes, BufferType::DRAM});
    auto l1 = Buffer::create(device, {4 * kBytes, kBytes, BufferType::L1}); // one page per core, same address
    Program p;
    const CoreCoord waiter{0, 0}, busy{2, 0}, raiser{3, 0};
    p.add_semaphore(CoreRange(waiter, raiser), 0);
    p.add_semaphore(CoreRange(waiter, raiser), 0);
    KernelHandle kb = add_ops(p, busy), kr = add_ops(p, raiser), kw = add_ops(p, waiter);
    const CoreCoord w_noc = device->worker_core_from_logical_core(waiter);
    Script sb;
    for (uint32_t i = 0; i < kReads; ++i)
      sb.op(kReadDram, 0, 0, uint32_t(dram->address()), uint32_t(l1->address()), kBytes);
    sb.op(kSemInc, w_noc.x, w_noc.y, 1, 1); // the other semaphore
    set_script(p, kb, busy, sb, rec);
    set_script(p, kr, raiser, Script().op(kSemInc, w_noc.x, w_noc.y, 0, 1), rec);
    set_script(p, kw, waiter, Script().op(kSemWait, 0, 1), rec);
    device->command_queue().enqueue_program(p);
  }
  const TraceStats s = read_trace_stats(path);
  for (const TraceRiscStats& r : s.riscs) {
    if (r.core == CoreCoord{2, 0} && r.risc == "BRISC") {
      EXPECT_GT(r.kernel_time, 2 * kReads);
    }
    if (r.core == CoreCoord{0, 0} && r.risc == "BRISC") {
      EXPECT_LT(r.wait_time, 10u);
    }
  }
  std::filesystem::remove(path);
}

// A run that deadlocks: the wait it stopped in is inside its kernel's span
// (Perfetto nests it there), and the kernel says it did not end.
TEST(EventTraceTest, TheWaitADeadlockStopsInIsInsideItsKernel) {
  const std::string path = temp_path("deadlock.json");
  {
    auto device = Device::open(traced(path, 1, 1));
    Recorder rec(device);
    Program p;
    const CoreCoord a{0, 0};
    p.add_semaphore(CoreRange(a, a), 0);
    KernelHandle ka = add_ops(p, a);
    set_script(p, ka, a, Script().op(kRecordValue, 0, 1).op(kRecordValue, 1, 2).op(kSemWait, 0, 1), rec);
    EXPECT_ANY_THROW(device->command_queue().enqueue_program(p));
  }
  const Trace t = read_trace(path);
  const std::vector<const JsonValue*> kernels = t.with("kernel"), waits = t.with("wait");
  ASSERT_EQ(kernels.size(), 1u);
  ASSERT_EQ(waits.size(), 1u);
  const JsonValue &k = *kernels[0], &w = *waits[0];
  EXPECT_NE(args(k).text_at("ended").find("deadlock"), std::string::npos);
  EXPECT_GE(w.number_at("ts"), k.number_at("ts"));
  EXPECT_LE(w.number_at("ts") + w.number_at("dur"), k.number_at("ts") + k.number_at("dur"));
  std::filesystem::remove(path);
}

// The waits a run stops in last until it stopped (the latest clock of its
// RISCs) and say so; `tessel stats` lists them. Core (1,0) blocks at once,
// core (0,0) after kSteps calls: (1,0)'s wait lasts about kSteps steps, and
// the deadlocked kernels are waiting, not busy.
TEST(EventTraceTest, TheWaitsADeadlockStopsInLastUntilItStoppedAndStatsListThem) {
  constexpr uint32_t kSteps = 30;
  const std::string path = temp_path("stopped_waits.json");
  {
    auto device = Device::open(traced(path, 2, 1));
    Recorder rec(device);
    Program p;
    const CoreCoord a{0, 0}, b{1, 0};
    p.add_semaphore(CoreRange(a, b), 0);
    KernelHandle ka = add_ops(p, a), kb = add_ops(p, b);
    Script sa;
    for (uint32_t i = 0; i < kSteps; ++i)
      sa.op(kRecordValue, 0, i);
    set_script(p, ka, a, sa.op(kSemWait, 0, 1), rec);
    set_script(p, kb, b, Script().op(kSemWait, 0, 1), rec);
    EXPECT_THROW(device->command_queue().enqueue_program(p), DeadlockError);
  }
  const Trace t = read_trace(path);
  const std::vector<const JsonValue*> waits = t.with("wait");
  ASSERT_EQ(waits.size(), 2u);
  for (const JsonValue* w : waits) {
    const JsonValue* stopped = args(*w).find("stopped");
    ASSERT_TRUE(stopped && stopped->boolean);
    EXPECT_GT(w->number_at("dur"), 0.0); // a stamp at least
  }
  const TraceStats s = read_trace_stats(path);
  ASSERT_EQ(s.stopped_waits.size(), 2u);
  for (const TraceWait& w : s.stopped_waits) {
    EXPECT_TRUE(w.stopped);
    EXPECT_EQ(w.risc, "BRISC");
    EXPECT_NE(w.what.find("noc_semaphore_wait"), std::string::npos) << w.what;
  }
  for (const TraceRiscStats& r : s.riscs)
    if (r.core == CoreCoord{1, 0} && r.risc == "BRISC") {
      EXPECT_GE(r.wait_time, kSteps);
      EXPECT_LT(r.busy_time(), r.wait_time);
    }
  ASSERT_FALSE(s.longest_waits.empty());
  EXPECT_TRUE(s.longest_waits[0].stopped);
  EXPECT_EQ(s.longest_waits[0].core, (CoreCoord{1, 0}));
  const std::string report = format_trace_stats(s);
  EXPECT_NE(report.find("waits a run stopped in (a deadlock, an error or an interrupt):"), std::string::npos) << report;
  std::filesystem::remove(path);
}

TEST(EventTraceTest, TotalsAreTheSameUnderEveryPolicy) {
  std::vector<std::vector<uint64_t>> totals;
  for (const std::string& policy : policies()) {
    SCOPED_TRACE(policy);
    const std::string path = temp_path("policy.json");
    {
      auto device = Device::open(traced(path, 2, 1, policy));
      run_eltwise(device);
    }
    std::vector<uint64_t> row;
    for (const TraceRiscStats& r : read_trace_stats(path).riscs)
      row.insert(row.end(), {r.noc_read_bytes, r.noc_write_bytes, r.cb_pages_pushed, r.cb_pages_popped, r.tiles.math(),
                             r.tiles.pack, r.kernel_runs});
    totals.push_back(row);
    std::filesystem::remove(path);
  }
  for (size_t i = 1; i < totals.size(); ++i)
    EXPECT_EQ(totals[i], totals[0]);
}

TEST(EventTraceTest, ARingKeepsTheLastEventsPerRiscAndEveryTotal) {
  const std::string path = temp_path("ring.json");
  {
    DeviceConfig c = traced(path, 2, 1);
    c.trace_ring_events = 3;
    auto device = Device::open(c);
    EXPECT_EQ(device->trace_ring_events(), 3u);
    run_eltwise(device, 32);
  }
  const Trace t = read_trace(path);
  for (const JsonValue* k : t.with("kernel"))
    EXPECT_EQ(args(*k).number_at("run"), 1);
  const TraceStats s = read_trace_stats(path);
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].ring_events, 3u);
  uint64_t pushed = 0;
  for (const TraceRiscStats& r : s.riscs)
    pushed += r.cb_pages_pushed;
  EXPECT_EQ(pushed, 32u * 2 + 32u); // the readers' two inputs and compute's output, all counted
  // 6 RISCs x at most 3 events, plus the metadata.
  size_t timed = 0;
  for (const JsonValue& e : t.events)
    if (e.text_at("ph") != "M") ++timed;
  EXPECT_LE(timed, 6u * 3);
  EXPECT_EQ(t.with("kernel").size(), 6u); // a kernel's span is its RISC's last event
  std::filesystem::remove(path);
}

TEST(EventTraceTest, OffByDefaultAndBadSettingsAreValidationErrors) {
  unsetenv("TESSEL_TRACE");
  auto device = open_device("blackhole", 1, 1);
  EXPECT_EQ(device->trace_path(), "");
  EXPECT_EQ(device->state().chip->tracer(), nullptr);
  EXPECT_EQ(device->state().chip->core(0).ctx[0].api, sim::kernel_api_table());

  DeviceConfig c = traced(temp_path("bad.json"), 1, 1);
  c.trace_ring_events = kMaxTraceRingEvents + 1;
  try {
    Device::open(c);
    FAIL();
  } catch (const ValidationError& e) {
    EXPECT_STREQ(e.what(), "Device::open: DeviceConfig::trace_ring_events is 10000001: expected a whole number of "
                           "events per RISC, 0 (write every event) to 10000000");
  }
  c.trace_ring_events.reset();
  setenv("TESSEL_TRACE_RING", "12k", 1);
  try {
    Device::open(c);
    FAIL();
  } catch (const ValidationError& e) {
    EXPECT_STREQ(e.what(), "TESSEL_TRACE_RING='12k' is not valid: expected a whole number of events per RISC, 0 "
                           "(write every event) to 10000000");
  }
  unsetenv("TESSEL_TRACE_RING");
  c.trace_path = "/nonexistent-dir/t.json";
  try {
    Device::open(c);
    FAIL();
  } catch (const ValidationError& e) {
    EXPECT_STREQ(e.what(), "Device::open: DeviceConfig::trace_path: cannot create the trace file "
                           "'/nonexistent-dir/t.json': No such file or directory; expected a path in a writable "
                           "directory");
  }
  setenv("TESSEL_TRACE", "/nonexistent-dir/t.json", 1);
  c.trace_path.reset();
  EXPECT_THROW(Device::open(c), ValidationError);
  c.trace_path = ""; // "" turns it off whatever TESSEL_TRACE says
  EXPECT_EQ(Device::open(c)->trace_path(), "");
  unsetenv("TESSEL_TRACE");
  // A ring asked for with no trace to keep it in.
  DeviceConfig no_trace;
  no_trace.trace_ring_events = 5;
  EXPECT_EQ(error_from<ValidationError>([&] { Device::open(no_trace); }),
            "Device::open: DeviceConfig::trace_ring_events is 5 but no trace is written: expected a trace file as "
            "well (DeviceConfig::trace_path or TESSEL_TRACE)");
  no_trace.trace_ring_events = 0; // every event: nothing asked
  EXPECT_EQ(Device::open(no_trace)->trace_path(), "");
}

// An open refused for a reason of its own (the checked NoC under parallel,
// a bad environment flag) leaves the trace file it would have written as it was.
TEST(EventTraceTest, AnOpenThatFailsLeavesAnExistingTraceFileAlone) {
  const std::string path = temp_path("kept.json");
  const std::string kept = "[{\"name\":\"an earlier run\"}]\n";
  for (int how = 0; how < 2; ++how) {
    SCOPED_TRACE(how);
    {
      std::ofstream out(path);
      out << kept;
    }
    DeviceConfig c = traced(path, 2, 1, how == 0 ? "parallel:2" : "deterministic");
    if (how == 0) c.noc = "checked";
    if (how == 1) setenv("TESSEL_CHECK_MEMORY", "maybe", 1);
    EXPECT_THROW(Device::open(c), ValidationError);
    unsetenv("TESSEL_CHECK_MEMORY");
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str(), kept);
  }
  std::filesystem::remove(path);
}

TEST(EventTraceTest, DevicesOpenedOneAfterAnotherShareTheFile) {
  const std::string path = temp_path("two_devices.json");
  for (int i = 0; i < 2; ++i) {
    auto device = Device::open(traced(path, 1, 1));
    expect_device_works(device);
  }
  const TraceStats s = read_trace_stats(path);
  EXPECT_TRUE(s.complete);
  ASSERT_EQ(s.devices.size(), 2u);
  EXPECT_EQ(s.devices[0].process_id, 1u);
  EXPECT_EQ(s.devices[1].process_id, 2u);
  std::filesystem::remove(path);
}

} // namespace
} // namespace tessel::test
