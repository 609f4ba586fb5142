// A hand-built passthrough design (the one tessel.iron resolves for IRON's
// passthrough_kernel): fill -> worker -> drain on one core, and the ways a
// sequence goes wrong.
#include <gtest/gtest.h>

#include <numeric>

#include "tessel/flow/loaded_design.hpp"

namespace tf = tessel::flow;

namespace {

constexpr uint32_t kBytes = 4096, kObject = 1024;

const char* kWorker = R"(#include "tessel/iron.h"
void kernel_main() {
  for (;;) {
    uint8_t* out = iron::acquire(1, 1);
    uint8_t* in = iron::acquire(0, 1);
    for (uint32_t i = 0; i < 1024; ++i) out[i] = in[i];
    iron::release(0, 1);
    iron::release(1, 1);
  }
}
)";

tf::Op push(uint32_t slot, uint32_t channel, uint32_t arg, bool wait, uint32_t line, uint32_t elements = kBytes,
            tf::Expr offset = {}) {
  tf::Op op;
  op.kind = tf::OpKind::Push;
  op.a = slot, op.b = channel, op.c = arg, op.wait = wait, op.line = line;
  op.sizes[3] = elements;
  op.strides[3] = 1;
  op.value = offset;
  return op;
}

tf::Op slot_op(tf::OpKind kind, uint32_t slot, uint32_t line) {
  tf::Op op;
  op.kind = kind, op.a = slot, op.line = line;
  return op;
}

tf::DesignSpec passthrough() {
  tf::DesignSpec s;
  s.name = "passthrough";
  s.pools = {{"of_in consumer on (0,0)", {0, 0}, 2, kObject, 1}, {"of_out producer on (0,0)", {0, 0}, 2, kObject, 1}};
  tf::WorkerSpec w;
  w.name = "worker0";
  w.core = {0, 0};
  w.source = kWorker;
  w.handles = {{0, false, "of_in.cons()"}, {1, true, "of_out.prod()"}};
  s.workers = {w};
  tf::ChannelSpec fill{"of_in fill", {-1, {0}, 0}, {{0, {0}, 0}}, kObject, 0, 0};
  tf::ChannelSpec drain{"of_out drain", {1, {0}, 0}, {{-1, {0}, 0}}, kObject, 0, 1};
  s.channels = {fill, drain};
  s.args = {{"a", kBytes, 1}, {"c", kBytes, 1}};
  s.sequence.file = "seq.py";
  s.sequence.slots = 2;
  s.sequence.ops = {push(0, 0, 0, false, 10), push(1, 1, 1, true, 11), slot_op(tf::OpKind::Await, 1, 12),
                    slot_op(tf::OpKind::Free, 0, 12), slot_op(tf::OpKind::Free, 1, 12)};
  return s;
}

std::shared_ptr<tessel::Device> open_device() {
  tessel::DeviceConfig c;
  c.grid_x = 4;
  c.grid_y = 4;
  return tessel::Device::open(c);
}

struct Io {
  std::vector<uint8_t> a = std::vector<uint8_t>(kBytes), c = std::vector<uint8_t>(kBytes, 0);
  std::vector<tf::HostSpan> spans() { return {{a.data(), a.size()}, {c.data(), c.size()}}; }
};

} // namespace

TEST(LoadedDesign, PassthroughMovesEveryByteOnEveryCall) {
  auto device = open_device();
  auto design = tf::LoadedDesign::load(device, passthrough());
  for (int call = 0; call < 3; ++call) {
    Io io;
    for (uint32_t i = 0; i < kBytes; ++i)
      io.a[i] = uint8_t(i * 7 + call);
    auto spans = io.spans();
    const tf::CallStats st = design->call(spans, {});
    EXPECT_EQ(io.c, io.a) << "call " << call;
    EXPECT_EQ(st.objects_moved, 8u); // 4 in, 4 out
    EXPECT_EQ(st.tasks, 2u);
  }
  EXPECT_EQ(design->launches(), 1u); // the workers persist between calls
}

TEST(LoadedDesign, ADrainNobodyFillsIsADeadlockNamingTheLineAndTheWaits) {
  auto device = open_device();
  tf::DesignSpec s = passthrough();
  s.sequence.ops.erase(s.sequence.ops.begin()); // no fill
  s.sequence.ops.pop_back();
  s.sequence.ops.back() = slot_op(tf::OpKind::Free, 1, 12);
  auto design = tf::LoadedDesign::load(device, s);
  Io io;
  auto spans = io.spans();
  try {
    design->call(spans, {});
    FAIL() << "no deadlock reported";
  } catch (const tessel::DeadlockError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("sequence waits at seq.py:12 (for the of_out drain task of seq.py:11 to finish)"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("worker 'worker0' on (0,0) waits for 1 full object(s) of of_in consumer on (0,0)"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("of_out drain waits for an object from of_out producer on (0,0)"), std::string::npos) << m;
  }
  // The design stays usable: the next call starts the grid afresh.
  EXPECT_THROW(design->call(spans, {}), tessel::DeadlockError);
  EXPECT_EQ(design->launches(), 2u);
}

TEST(LoadedDesign, DescriptorExhaustionNamesTheShimTileAndEveryHolder) {
  auto device = open_device();
  tf::DesignSpec s = passthrough();
  s.sequence.ops.clear();
  s.sequence.slots = 1;
  for (uint32_t k = 0; k < 9; ++k) { // one more pair than 16 descriptors hold
    s.sequence.ops.push_back(push(0, 0, 0, false, 20 + 2 * k, kObject));
    s.sequence.ops.push_back(push(0, 1, 1, false, 21 + 2 * k, kObject));
  }
  auto design = tf::LoadedDesign::load(device, s);
  Io io;
  auto spans = io.spans();
  try {
    design->call(spans, {});
    FAIL() << "no error";
  } catch (const tf::FlowError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("of_in fill task at seq.py:36: shim tile (0,0) has no free descriptor: all 16 are held"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("of_in fill task at seq.py:20, not awaited"), std::string::npos) << m;
    EXPECT_NE(m.find("of_out drain task at seq.py:35, not awaited"), std::string::npos) << m;
  }
}

TEST(LoadedDesign, AFillWithoutItsDrainEndsWithWhatItLeftOnTheGrid) {
  auto device = open_device();
  tf::DesignSpec s = passthrough();
  s.sequence.ops = {push(0, 0, 0, true, 30, kObject), slot_op(tf::OpKind::Await, 0, 31),
                    slot_op(tf::OpKind::Free, 0, 31)};
  auto design = tf::LoadedDesign::load(device, s);
  Io io;
  auto spans = io.spans();
  // Silicon ends the call: what is left is reported with it, for the caller to warn about.
  const std::string m = design->call(spans, {}).leftovers;
  EXPECT_NE(m.find("of_out producer on (0,0): 1 object(s) filled and never taken"), std::string::npos) << m;
  EXPECT_EQ(m.find("holds"), std::string::npos) << m; // a producer's empty object is its place in the loop
}

TEST(LoadedDesign, ALoopOverADispatchValueChunksTheTransfers) {
  auto device = open_device();
  tf::DesignSpec s = passthrough();
  s.sequence.parameters = 1;
  s.sequence.parameter_names = {"count"};
  s.sequence.registers = 2;
  tf::Op begin;
  begin.kind = tf::OpKind::LoopBegin, begin.a = 1, begin.b = 5, begin.line = 40;
  begin.value = tf::Expr{0, {{0, 1}}};
  tf::Op end;
  end.kind = tf::OpKind::LoopEnd, end.a = 1, end.b = 0, end.line = 40;
  const tf::Expr offset{0, {{1, int64_t(kObject)}}};
  s.sequence.ops = {begin,
                    push(0, 0, 0, false, 41, kObject, offset),
                    push(1, 1, 1, true, 42, kObject, offset),
                    slot_op(tf::OpKind::Await, 1, 43),
                    slot_op(tf::OpKind::Free, 0, 43),
                    end};
  s.sequence.ops.insert(s.sequence.ops.begin() + 5, slot_op(tf::OpKind::Free, 1, 43));
  s.sequence.ops[0].b = 6;
  s.sequence.ops[6].b = 0;
  auto design = tf::LoadedDesign::load(device, s);
  for (int64_t count : {4, 2}) {
    Io io;
    std::iota(io.a.begin(), io.a.end(), uint8_t(count));
    auto spans = io.spans();
    const int64_t params[] = {count};
    design->call(spans, params);
    for (uint32_t i = 0; i < kBytes; ++i)
      ASSERT_EQ(io.c[i], i < count * kObject ? io.a[i] : 0) << "count " << count << " byte " << i;
  }
}

namespace {
// A loop over `span` (an Expr) with `step`, around the ops given; fixes up the loop's indices.
std::vector<tf::Op> loop(uint32_t reg, tf::Expr span, uint32_t step, std::vector<tf::Op> body) {
  tf::Op begin;
  begin.kind = tf::OpKind::LoopBegin, begin.a = reg, begin.c = step, begin.line = 50;
  begin.value = std::move(span);
  begin.b = uint32_t(body.size() + 1);
  tf::Op end;
  end.kind = tf::OpKind::LoopEnd, end.a = reg, end.b = 0, end.line = 50;
  std::vector<tf::Op> ops{begin};
  ops.insert(ops.end(), body.begin(), body.end());
  ops.push_back(end);
  return ops;
}
} // namespace

TEST(LoadedDesign, ADesignWithNoWorkersAndNoChannelsRunsItsLoopsWithoutAGrid) {
  auto device = open_device();
  tf::DesignSpec s;
  s.name = "gridless";
  s.args = {{"a", kBytes, 1}};
  s.sequence.parameters = 2;
  s.sequence.parameter_names = {"baz", "bar"};
  s.sequence.registers = 3;
  s.sequence.ops = loop(2, tf::Expr{0, {{0, 1}}}, 1, {}); // range_(baz)
  auto design = tf::LoadedDesign::load(device, s);
  std::vector<uint8_t> a(kBytes, 7);
  const tf::HostSpan spans[] = {{a.data(), a.size()}};
  for (int64_t baz : {3, 0, 5}) {
    const int64_t params[] = {baz, 11};
    const tf::CallStats st = design->call(spans, params);
    EXPECT_EQ(st.ops, uint64_t(1 + baz)) << baz; // LoopBegin once, LoopEnd per iteration
    EXPECT_EQ(st.tasks, 0u);
  }
  EXPECT_EQ(design->calls(), 3u);
  EXPECT_EQ(design->launches(), 0u);
  EXPECT_EQ(a, std::vector<uint8_t>(kBytes, 7));
}

TEST(LoadedDesign, ALoopStepDividesItsSpanRoundingUp) {
  auto device = open_device();
  tf::DesignSpec s = passthrough();
  s.sequence.parameters = 1;
  s.sequence.parameter_names = {"stop"};
  s.sequence.registers = 2;
  // for i in range_(1, stop, 2): objects 1, 3, ... (offset (1 + 2 i) objects)
  const tf::Expr offset{int64_t(kObject), {{1, 2 * int64_t(kObject)}}};
  s.sequence.ops =
      loop(1, tf::Expr{-1, {{0, 1}}}, 2,
           {push(0, 0, 0, false, 41, kObject, offset), push(1, 1, 1, true, 42, kObject, offset),
            slot_op(tf::OpKind::Await, 1, 43), slot_op(tf::OpKind::Free, 0, 43), slot_op(tf::OpKind::Free, 1, 43)});
  auto design = tf::LoadedDesign::load(device, s);
  for (int64_t stop : {4, 3, 1}) {
    Io io;
    std::iota(io.a.begin(), io.a.end(), uint8_t(stop));
    auto spans = io.spans();
    const int64_t params[] = {stop};
    design->call(spans, params);
    for (uint32_t i = 0; i < kBytes; ++i) {
      const uint32_t object = i / kObject;
      const bool moved = object % 2 == 1 && object < stop;
      ASSERT_EQ(io.c[i], moved ? io.a[i] : 0) << "stop " << stop << " byte " << i;
    }
  }
}
