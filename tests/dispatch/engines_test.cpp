// Engines end to end: streams and graphs uploaded, started, restarted,
// cancelled and released; their events; run_hostfed against the card; the
// one sequence numbering with engines submitting between host commands.
#include <gtest/gtest.h>

#include "kernels/basic.hpp"
#include "tessel/dispatch/engines.hpp"
#include "tessel/dispatch/errors.hpp"
#include "tessel/dispatch/run.hpp"
#include "tessel/dispatch/session.hpp"
#include "tessel/engine_abi.h"

using namespace tessel;
using namespace tessel::dispatch;

namespace {
const std::string kKernels = TESSEL_DISPATCH_TEST_KERNELS "/basic/";

ProgramSpec basic_program() {
  ProgramSpec p;
  p.name = "basic";
  p.reader_path = kKernels + "reader.cpp";
  p.writer_path = kKernels + "writer.cpp";
  p.compute_path = kKernels + "compute.cpp";
  p.buffers = {BufferSpec{kScratchCb, "uint32", 64, 1}};
  p.depth = 4;
  p.handlers = {{"fill", kHandlerFill}, {"result", kHandlerResult}, {"count", kHandlerCount}};
  return p;
}

struct Loaded {
  std::unique_ptr<Session> session;
  Run* run;
};

Loaded load(const LoadOptions& o = {}) {
  DeviceConfig dc;
  dc.grid_x = 4;
  dc.grid_y = 2;
  SessionConfig sc;
  sc.device = Device::open(dc);
  Loaded l{Session::open(sc), nullptr};
  l.run = &l.session->load(basic_program(), o);
  return l;
}

using R = Stream::Reg;
using A = Stream::Arg;

// r0 counts to r3 (a binding); each pass SUBMITs `result` (2 * r0 + index) into r1 and posts it.
Stream counting_stream(uint32_t req) {
  Stream s(req);
  const R i = Stream::reg(0), out = Stream::reg(1), more = Stream::reg(2), n = Stream::reg(3);
  s.li(i, 0);
  Stream::Label top = s.label();
  s.place(top);
  s.submit(kHandlerResult, {false, 2, 3}, {A::reg(i)}, 0, out);
  s.event(out);
  s.alu_imm(KM_OP_ADD, i, i, 1);
  s.alu(KM_OP_LT, more, i, n);
  s.bnz(more, top);
  s.halt(i);
  return s;
}

// A graph looping while its counter is below a limit: `result` on (1, 2) writes 2 * counter.
std::shared_ptr<Graph> counting_graph(uint32_t req, bool keep, uint32_t max_runs = 100) {
  auto g = std::make_shared<Graph>(0, max_runs, req, keep);
  const Graph::Value counter = g->binding("counter"), limit = g->binding("limit");
  const Graph::Value doubled = g->add_register();
  const Graph::Node cmd = g->command(kHandlerResult, {1, 2}, {counter}, {}, doubled);
  const Graph::Node cpu = g->cpu({cmd});
  g->op_imm(cpu, KM_OP_ADD, counter, counter, 1);
  g->op(cpu, KM_OP_LT, g->again(), counter, limit);
  return g;
}

} // namespace

TEST(Engines, StreamSubmitsPostsAndHalts) {
  Loaded l = load();
  Stream s = counting_stream(3);
  auto up = l.run->upload(s.encode(), "stream");
  EXPECT_EQ(up->offset, 0u);
  EXPECT_EQ(up->req, 3u);
  auto h = l.run->start(up, {0, 0, 0, 5});
  const EngineEvent end = l.run->wait_engine(h, 10.0);
  EXPECT_EQ(end.kind, "end");
  EXPECT_EQ(end.value, 5u);
  ASSERT_EQ(h->events.size(), 6u);
  for (uint32_t i = 0; i < 5; ++i) {
    EXPECT_EQ(h->events[i].kind, "event");
    EXPECT_EQ(h->events[i].value, 2 * i); // the leader (index 0) of group (2, 3)
  }
  EXPECT_EQ(up->state, "loaded");
  // The stream's commands took sequence numbers 0..4: the host's next one is 5.
  const uint64_t host = l.run->submit(0, Group{0, 1});
  l.run->wait(std::vector<uint64_t>{host});
  EXPECT_EQ(l.run->result().commands, 0u); // not read back before the stop
  l.run->stop();
  EXPECT_EQ(l.run->result().commands, 6u);
}

TEST(Engines, GraphRoundsKeptRestartRelease) {
  Loaded l = load();
  auto g = counting_graph(6, true);
  auto up = l.run->upload(g->encode(), "graph", g);
  EXPECT_EQ(g->register_of(g->binding_names().empty() ? Graph::Value{} : Graph::Value{0}), 0u); // counter: written
  auto h = l.run->start(up, g->binding_values({{"counter", 0}, {"limit", 4}}));
  EngineEvent end = l.run->wait_engine(h, 10.0);
  EXPECT_EQ(end.kind, "end");
  EXPECT_EQ(end.registers.first, 4u);  // counter
  EXPECT_EQ(end.registers.second, 6u); // doubled: 2 * 3 (the last round's counter before its increment)
  ASSERT_EQ(h->events.size(), 4u);     // rounds 1, 2, 3, then the end
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(h->events[i].kind, "round");
    EXPECT_EQ(h->events[i].value, i + 1);
  }
  EXPECT_EQ(up->state, "kept");
  EXPECT_THROW(l.run->start(up, {}), ValidationError); // kept: restart it
  auto again = l.run->restart(6, g->binding_values({{"counter", 10}, {"limit", 12}}));
  end = l.run->wait_engine(again, 10.0);
  EXPECT_EQ(end.registers.first, 12u);
  EXPECT_EQ(end.registers.second, 22u);
  l.run->release(up);
  EXPECT_EQ(up->state, "released");
  EXPECT_THROW(l.run->restart(6, {}), ValidationError);
  // Its lines are free again: the next upload takes offset 0.
  auto next = l.run->upload(counting_stream(7).encode(), "stream");
  EXPECT_EQ(next->offset, 0u);
  l.run->stop();
}

TEST(Engines, HostfedMatchesTheCard) {
  Loaded l = load();
  auto g = counting_graph(9, false);
  const std::vector<uint32_t> b = g->binding_values({{"counter", 2}, {"limit", 7}});
  auto h = l.run->start(l.run->upload(g->encode(), "graph", g), b);
  const EngineEvent card = l.run->wait_engine(h, 10.0);
  const HostfedResult host = l.run->run_hostfed(g->encode(), b, 10.0);
  EXPECT_EQ(host.status, "end");
  EXPECT_EQ(host.runs, 5u);
  EXPECT_EQ(host.registers[0], card.registers.first);
  EXPECT_EQ(host.registers[1], card.registers.second);
  ASSERT_EQ(host.events.size(), h->events.size());
  for (size_t i = 0; i < host.events.size(); ++i) {
    EXPECT_EQ(host.events[i].kind, h->events[i].kind);
    EXPECT_EQ(host.events[i].value, h->events[i].value);
  }
  ASSERT_EQ(host.commands.size(), 5u);
  EXPECT_EQ(host.commands[0].args, std::vector<uint32_t>{2});
  EXPECT_EQ(host.commands[4].result, 12u);
  // A stream both ways.
  Stream s = counting_stream(10);
  auto sh = l.run->start(l.run->upload(s.encode(), "stream"), {0, 0, 0, 3});
  l.run->wait_engine(sh);
  const HostfedResult hs = l.run->run_hostfed(s.encode(), {0, 0, 0, 3});
  ASSERT_EQ(hs.events.size(), sh->events.size());
  for (size_t i = 0; i < hs.events.size(); ++i)
    EXPECT_EQ(hs.events[i].value, sh->events[i].value);
  EXPECT_EQ(hs.commands[1].node, 2u); // the SUBMIT's pc (after LI's two words)
  l.run->stop();
}

TEST(Engines, RejectionsAndErrors) {
  Loaded l = load();
  // Four streams running in ALU loops: a fifth RUN is rejected.
  std::vector<std::shared_ptr<EngineHandle>> spinning;
  for (uint32_t req = 1; req <= 5; ++req) {
    Stream s(req);
    Stream::Label top = s.label();
    s.place(top);
    s.alu_imm(KM_OP_ADD, Stream::reg(0), Stream::reg(0), 1);
    s.jmp(top);
    auto up = l.run->upload(s.encode(), "stream");
    EXPECT_EQ(up->offset, (req - 1) * 128u); // side by side, two lines each
    if (req < 5) {
      spinning.push_back(l.run->start(up));
    } else {
      try {
        l.run->start(up);
        FAIL() << "a fifth stream started";
      } catch (const EngineRejected& e) {
        EXPECT_EQ(e.reason, KMD_REJECT_ENGINES);
        EXPECT_EQ(e.reason_name, "engines");
      }
    }
  }
  l.run->cancel(spinning[0]);
  try {
    l.run->wait_engine(spinning[0]);
    FAIL() << "a cancelled stream ended cleanly";
  } catch (const EngineError& e) {
    EXPECT_EQ(e.event.reason_name, "cancelled");
  }
  // A bad upload is the kernel's to reject, with its error event.
  std::vector<uint8_t> junk(64, 0);
  junk[12] = 42; // req 42, no magic
  auto bad = l.run->start(l.run->upload(junk, "stream"));
  try {
    l.run->wait_engine(bad);
    FAIL();
  } catch (const EngineError& e) {
    EXPECT_EQ(e.event.reason, KM_STREAM_ERROR_HEADER);
  }
  // A stream that sends a group outside the grid ends with `group` at the SUBMIT's pc.
  Stream g(20);
  g.nop();
  g.submit(kHandlerResult, {false, 6, 4}, {});
  g.halt(Stream::reg(0));
  // The region holds 5 uploads of 2 lines and the junk's line; this fits after them.
  auto gh = l.run->start(l.run->upload(g.encode(), "stream"));
  try {
    l.run->wait_engine(gh);
    FAIL();
  } catch (const EngineError& e) {
    EXPECT_EQ(e.event.reason_name, "group");
    EXPECT_EQ(e.event.pc, 1u);
  }
  // An upload larger than the region: ValueError before anything is written.
  EXPECT_THROW(l.run->upload(std::vector<uint8_t>(KM_UPLOAD_REGION_BYTES, 0), "stream"), ValidationError);
  // stop() cancels the three streams still running.
  l.run->stop();
  for (size_t i = 1; i < spinning.size(); ++i) {
    ASSERT_TRUE(spinning[i]->end);
    EXPECT_EQ(spinning[i]->end->reason_name, "cancelled");
  }
}

TEST(Engines, DeadlineStepsAndRuns) {
  Loaded l = load();
  Stream forever(1, 2000); // 2 ms
  Stream::Label top = forever.label();
  forever.place(top);
  forever.jmp(top);
  try {
    l.run->wait_engine(l.run->start(l.run->upload(forever.encode(), "stream")));
    FAIL();
  } catch (const EngineError& e) {
    EXPECT_EQ(e.event.reason_name, "deadline");
  }
  Stream bounded(2, 0, 100);
  Stream::Label t2 = bounded.label();
  bounded.place(t2);
  bounded.jmp(t2);
  try {
    l.run->wait_engine(l.run->start(l.run->upload(bounded.encode(), "stream")));
    FAIL();
  } catch (const EngineError& e) {
    EXPECT_EQ(e.event.reason_name, "steps");
  }
  auto g = counting_graph(3, false, 2); // wants 5 rounds, may run 2
  try {
    l.run->wait_engine(
        l.run->start(l.run->upload(g->encode(), "graph"), g->binding_values({{"counter", 0}, {"limit", 5}})));
    FAIL();
  } catch (const EngineError& e) {
    EXPECT_EQ(e.event.reason_name, "runs");
  }
  l.run->stop();
}

// Many events with a small event ring: the engine waits for room while
// wait_engine reads them, and host commands in flight keep theirs.
TEST(Engines, EventRoomWithHostCommands) {
  LoadOptions o;
  o.event_depth = 8;
  o.host_depth = 8;
  Loaded l = load(o);
  Stream s(4);
  const R i = Stream::reg(0), more = Stream::reg(1);
  Stream::Label top = s.label();
  s.place(top);
  s.event(i);
  s.alu_imm(KM_OP_ADD, i, i, 1);
  s.alu_imm(KM_OP_LT, more, i, 500);
  s.bnz(more, top);
  s.halt(i);
  auto h = l.run->start(l.run->upload(s.encode(), "stream"));
  std::vector<uint64_t> host;
  for (int k = 0; k < 20; ++k)
    host.push_back(l.run->submit(0, Group{0, 8}));
  l.run->wait(host);
  l.run->wait_engine(h, 10.0);
  ASSERT_EQ(h->events.size(), 501u);
  for (uint32_t k = 0; k < 500; ++k)
    EXPECT_EQ(h->events[k].value, k);
  l.run->stop();
}

// Engines' commands share the one sequence numbering: the host reads a
// sequence exactly across fewer than 32,768 engine commands, and raises for more.
TEST(Engines, SequenceGapWithEngineCommands) {
  LoadOptions o;
  o.trace = 1; // a traced run keeps its handles' sequences after wait()
  Loaded l = load(o);
  const auto nops = [&](uint32_t req, uint32_t n) {
    Stream s(req);
    const R i = Stream::reg(0), more = Stream::reg(1);
    Stream::Label top = s.label();
    s.place(top);
    s.submit(0, {false, 0, 1}, {}, 0, std::nullopt, true);
    s.alu_imm(KM_OP_ADD, i, i, 1);
    s.alu_imm(KM_OP_LT, more, i, n);
    s.bnz(more, top);
    s.wait();
    s.halt(i);
    auto up = l.run->upload(s.encode(), "stream");
    l.run->wait_engine(l.run->start(up), 60.0);
    l.run->release(up);
  };
  const uint64_t a = l.run->submit(0, Group{0, 1});
  l.run->wait(std::vector<uint64_t>{a});
  ASSERT_TRUE(l.run->sequence(a));
  const uint64_t first = *l.run->sequence(a);
  nops(1, 32767);
  const uint64_t b = l.run->submit(0, Group{0, 1});
  l.run->wait(std::vector<uint64_t>{b});
  ASSERT_TRUE(l.run->sequence(b));
  EXPECT_EQ(*l.run->sequence(b), first + 32768); // exact: 32,767 commands between
  nops(2, 32768);
  const uint64_t c = l.run->submit(0, Group{0, 1});
  // drain() raises as wait() does, naming the handle; sequence() never answers "not yet" for it.
  try {
    l.run->drain();
    ADD_FAILURE() << "drain() returned over a gap of 32,768 commands";
  } catch (const DispatchError& e) {
    EXPECT_EQ(std::string(e.what()), "handle " + std::to_string(c) +
                                         ": its event's 16-bit sequence field lies 32,768 or more commands from the "
                                         "host's previous command's (or more than 2,048 behind it): the sequence "
                                         "cannot be read");
  }
  EXPECT_THROW(l.run->sequence(c), DispatchError);
  EXPECT_THROW(l.run->wait(std::vector<uint64_t>{c}), DispatchError);
  l.run->stop();
}

// A RUN not answered in time leaves the handle unknown; cancel learns the
// RUN's answer (here: it ran) and stops it.
TEST(Engines, UnknownHandleSettledByCancel) {
  Loaded l = load();
  Stream s(5);
  Stream::Label top = s.label();
  s.place(top);
  s.jmp(top);
  auto up = l.run->upload(s.encode(), "stream");
  std::shared_ptr<EngineHandle> h;
  try {
    l.run->start(up, {}, std::nullopt, 0.0);
    FAIL() << "a RUN with no time to answer was answered";
  } catch (const EngineTimeout& e) {
    h = e.handle;
  }
  ASSERT_TRUE(h);
  EXPECT_TRUE(h->unknown);
  l.run->cancel(h, 10.0);
  EXPECT_FALSE(h->unknown);
  try {
    l.run->wait_engine(h);
    FAIL();
  } catch (const EngineError& e) {
    EXPECT_EQ(e.event.reason_name, "cancelled");
  }
  // A rejected RUN that timed out: cancel raises EngineRejected (it never ran).
  std::vector<std::shared_ptr<EngineHandle>> graphs;
  for (uint32_t req = 10; req < 12; ++req) {
    auto g = counting_graph(req, true);
    auto gh = l.run->start(l.run->upload(g->encode(), "graph", g), g->binding_values({{"counter", 0}, {"limit", 1}}));
    l.run->wait_engine(gh);
  }
  auto third = counting_graph(12, true);
  auto tu = l.run->upload(third->encode(), "graph", third);
  std::shared_ptr<EngineHandle> rejected;
  try {
    l.run->start(tu, third->binding_values({{"counter", 0}, {"limit", 1}}), std::nullopt, 0.0);
  } catch (const EngineTimeout& e) {
    rejected = e.handle;
  }
  ASSERT_TRUE(rejected);
  try {
    l.run->cancel(rejected);
    FAIL() << "the third kept graph ran";
  } catch (const EngineRejected& e) {
    EXPECT_EQ(e.reason_name, "engines");
  }
  EXPECT_EQ(tu->state, "loaded");
  l.run->stop();
}
