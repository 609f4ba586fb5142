// The event trace's recorder (trace.hpp): the per-RISC state machine of
// pending spans, and the JSON of every event kind.
#include "sim/trace.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "base/trace_file.hpp"
#include "sim/chip.hpp"
#include "sim/kernel_api_support.hpp"
#include "sim/timing.hpp"

namespace tessel::sim {

namespace {

constexpr uint32_t kTracksPerCore = 4; // BRISC, NCRISC, COMPUTE, L1
constexpr uint32_t kL1Track = 3;
constexpr const char* kComputeKindNames[] = {"matmul_tiles", "eltwise_tiles", "sfpu_tiles", "pack_tiles",
                                             "unpack_tiles"};
static_assert(sizeof kComputeKindNames / sizeof kComputeKindNames[0] == size_t(ComputeKind::Count));

uint32_t core_tid(uint32_t core_index, uint32_t track) { return 1 + core_index * kTracksPerCore + track; }
uint32_t dram_tid(const Chip& chip, uint32_t bank) { return 1 + chip.core_count() * kTracksPerCore + bank; }

uint32_t risc_index(const tessel_kernel_ctx& k) {
  return static_cast<const Core*>(k.sim_core)->index * TESSEL_RISC_COUNT + k.risc;
}

// `{"name":<name>,"cat":<cat>,"ph":"X","ts":..,"dur":..,"pid":..,"tid":..` (no closing brace).
// `cat` is the literal ,"cat":"<kind>","ph":"X" (kSpanNoc, ...).
JsonText& span_head(JsonText& j, std::string_view cat, uint64_t begin, uint64_t end, uint32_t pid, uint32_t tid,
                    uint64_t per_us) {
  j.raw(cat).raw(",\"ts\":").micros(begin, per_us).raw(",\"dur\":").micros(end - begin, per_us);
  return j.raw(",\"pid\":").u64(pid).raw(",\"tid\":").u64(tid);
}
constexpr std::string_view kSpanNoc = ",\"cat\":\"noc\",\"ph\":\"X\"";
constexpr std::string_view kSpanWait = ",\"cat\":\"wait\",\"ph\":\"X\"";
constexpr std::string_view kSpanCompute = ",\"cat\":\"compute\",\"ph\":\"X\"";
constexpr std::string_view kSpanKernel = ",\"cat\":\"kernel\",\"ph\":\"X\"";
constexpr std::string_view kSpanCommand = ",\"cat\":\"command\",\"ph\":\"X\"";

void end_event(RiscTrace& r, JsonText& j) {
  j.raw("},\n");
  r.out.commit(j.size());
}

// "core (x,y) L1" or "DRAM bank b", as a JSON string.
void endpoint_text(JsonText& j, const Chip& chip, int core_index, int bank) {
  if (core_index >= 0) {
    const Core& c = const_cast<Chip&>(chip).core(uint32_t(core_index));
    j.raw("\"core (").u64(c.logical_x).ch(',').u64(c.logical_y).raw(") L1\"");
  } else {
    j.raw("\"DRAM bank ").u64(uint64_t(bank)).ch('"');
  }
}

// What the wait's `what` says, as Chip::describe_wait words it: the state is
// taken when the wait begins and put into words only when the span is written.
void capture(PendingWait& w, const Fiber& f) {
  const WaitInfo& i = f.wait;
  if (i.kind == WaitKind::CbFront || i.kind == WaitKind::CbBack) {
    const tessel_cb_iface& q = f.core->cbs[i.cb];
    w.visible = uint16_t(q.received - q.acked);
    w.reserved = q.reserved_pages;
    w.num_pages = q.num_pages;
  } else if (i.kind == WaitKind::SemEqual || i.kind == WaitKind::SemAtLeast) {
    w.sem_value = __atomic_load_n(i.sem, __ATOMIC_RELAXED); // another thread may increment it (parallel)
  }
}

void describe(JsonText& j, const PendingWait& w) {
  j.ch('"');
  switch (WaitKind(w.kind)) {
  case WaitKind::CbFront:
  case WaitKind::CbBack:
    j.raw(WaitKind(w.kind) == WaitKind::CbFront ? "cb_wait_front(cb=" : "cb_reserve_back(cb=").u64(w.cb);
    j.raw(", pages=").u64(w.pages).raw("): CB ").u64(w.cb).raw(" has ").u64(w.visible).raw(" visible, ");
    j.u64(w.reserved).raw(" reserved, ").u64(w.num_pages - w.visible).raw(" free of ").u64(w.num_pages);
    j.raw(" pages");
    break;
  case WaitKind::SemEqual:
  case WaitKind::SemAtLeast:
    j.raw(WaitKind(w.kind) == WaitKind::SemEqual ? "noc_semaphore_wait(L1 " : "noc_semaphore_wait_min(L1 ");
    j.hex(w.sem_offset).raw("): value ").u64(w.sem_value).raw(", waiting for ");
    j.raw(WaitKind(w.kind) == WaitKind::SemEqual ? "== " : ">= ").u64(w.value);
    break;
  case WaitKind::Card: j.raw("its next command (the card's mailbox)"); break;
  default: j.raw("(not waiting)"); break;
  }
  j.ch('"');
}

bool same_wait(const PendingWait& w, const WaitInfo& i, uint32_t sem_offset) {
  return w.kind == uint8_t(i.kind) && w.cb == i.cb && w.pages == i.pages && w.value == i.value &&
         w.sem_offset == sem_offset && w.file == i.file && w.line == i.line;
}

// The file's name after its last '/': kernels are built from long cache paths.
const char* short_file(const char* file) {
  if (!file) return "";
  const char* slash = std::strrchr(file, '/');
  return slash ? slash + 1 : file;
}

} // namespace

// ---------------------------------------------------------------------------

Tracer::Tracer(Chip& chip, TraceOptions options)
    : chip_(chip), file_(std::move(options.file)), ring_events_(options.ring_events), pid_(file_->next_process_id()),
      label_(std::move(options.label)) {
  if (chip.timing()) stamps_per_us_ = 1000000;
  riscs_.reserve(size_t(chip.core_count()) * TESSEL_RISC_COUNT);
  for (uint32_t c = 0; c < chip.core_count(); ++c)
    for (uint32_t risc = 0; risc < TESSEL_RISC_COUNT; ++risc) {
      auto r = std::make_unique<RiscTrace>(file_.get(), ring_events_);
      r->tid = core_tid(c, risc);
      if (chip.timing()) r->last_sub = kTimedSubSteps - 1;
      std::snprintf(r->name, sizeof r->name, "core (%u,%u) %s", chip.core(c).logical_x, chip.core(c).logical_y,
                    Chip::risc_name(risc));
      riscs_.push_back(std::move(r));
    }
  write_metadata();
}

Tracer::~Tracer() { finish(); }

RiscTrace& Tracer::risc(const tessel_kernel_ctx& k) { return *riscs_[risc_index(k)]; }

void Tracer::write_metadata() {
  // Names for every track, written at once: they are small, and a track's
  // name must not depend on which RISC happens to record first.
  std::string text;
  char buf[kMaxEventBytes];
  const auto add = [&](const char* what, uint32_t tid, const char* key, const std::string& value, bool number) {
    JsonText j(buf, sizeof buf);
    j.raw("{\"name\":\"").raw(what).raw("\",\"ph\":\"M\",\"pid\":").u64(pid_);
    if (tid) j.raw(",\"tid\":").u64(tid);
    j.raw(",\"args\":{\"").raw(key).raw("\":");
    if (number)
      j.raw(value);
    else
      j.str(value);
    j.raw("}},\n");
    text.append(buf, j.size());
  };
  const bool estimated = stamps_per_us_ != 1000;
  char cycle_ns[32];
  std::snprintf(cycle_ns, sizeof cycle_ns, "%.3f", 1e3 / chip_.arch().clock_mhz);
  add("process_name", 0, "name",
      "tessel device #" + std::to_string(pid_) + ": " + label_ +
          (estimated ? std::string(" (time: estimated cycles, shown as 1 ns each; a cycle is ") + cycle_ns +
                           " ns, docs/timing.md)"
                     : std::string(" (time: logical steps, shown as 1 us each)")),
      false);
  add("process_sort_index", 0, "sort_index", std::to_string(pid_), true);
  {
    JsonText j(buf, sizeof buf);
    j.raw("{\"name\":\"tessel_trace\",\"ph\":\"M\",\"pid\":").u64(pid_).raw(",\"args\":{\"version\":1");
    j.key("label").str(label_).key("time_base").str(estimated ? "estimated" : "logical").key("ns_per_step");
    j.u64(estimated ? 1 : kSubSteps);
    if (estimated) j.key("cycle_ns").raw(cycle_ns);
    j.key("ring_events").u64(ring_events_).key("cores").u64(chip_.core_count());
    j.key("grid").str(std::to_string(chip_.arch().grid_x) + "x" + std::to_string(chip_.arch().grid_y));
    j.raw("}},\n");
    text.append(buf, j.size());
  }
  for (uint32_t c = 0; c < chip_.core_count(); ++c) {
    for (uint32_t risc = 0; risc < TESSEL_RISC_COUNT; ++risc)
      add("thread_name", core_tid(c, risc), "name", riscs_[c * TESSEL_RISC_COUNT + risc]->name, false);
    const Core& core = chip_.core(c);
    add("thread_name", core_tid(c, kL1Track), "name",
        "core (" + std::to_string(core.logical_x) + "," + std::to_string(core.logical_y) + ") L1", false);
  }
  for (uint32_t b = 0; b < chip_.arch().dram_banks; ++b)
    add("thread_name", dram_tid(chip_, b), "name", "DRAM bank " + std::to_string(b), false);
  file_->write(text.data(), text.size());
}

uint64_t Tracer::next_flow_id(RiscTrace& r, uint32_t index) {
  return uint64_t(pid_) << 52 | uint64_t(index) << 32 | (++r.flow_sequence & 0xFFFFFFFFu);
}

// ---------------------------------------------------------------------------
// Pending spans

// A RISC records nothing while it is blocked, so the pending wait, if any,
// has ended here (kernel_begin and finish() close one a stopped run left open).
void Tracer::flush_pending(RiscTrace& r) {
  if (r.pending == RiscTrace::Pending::Wait) write_wait(r);
  if (r.pending == RiscTrace::Pending::Compute) write_compute(r);
  r.pending = RiscTrace::Pending::None;
}

void Tracer::write_wait(RiscTrace& r) {
  const PendingWait& w = r.wait;
  JsonText j(r.out.reserve(), kMaxEventBytes);
  j.raw("{\"name\":\"wait ");
  switch (WaitKind(w.kind)) {
  case WaitKind::CbFront: j.raw("CB").u64(w.cb).raw(" front"); break;
  case WaitKind::CbBack: j.raw("CB").u64(w.cb).raw(" back"); break;
  case WaitKind::SemEqual:
  case WaitKind::SemAtLeast: j.raw("semaphore ").hex(w.sem_offset); break;
  case WaitKind::Card: j.raw("command"); break;
  default: j.raw("?"); break;
  }
  j.ch('"');
  span_head(j, kSpanWait, w.begin, w.end, pid_, r.tid, stamps_per_us_);
  j.raw(",\"args\":{\"what\":");
  describe(j, w);
  if (w.file) j.key("file").str(short_file(w.file)).key("line").u64(w.line);
  if (w.kind == uint8_t(WaitKind::CbFront) || w.kind == uint8_t(WaitKind::CbBack))
    j.key("cb").u64(w.cb).key("pages").u64(w.pages);
  if (w.stopped) j.key("stopped").raw("true");
  j.ch('}');
  end_event(r, j);
}

void Tracer::write_compute(RiscTrace& r) {
  const PendingCompute& c = r.compute;
  JsonText j(r.out.reserve(), kMaxEventBytes);
  j.raw("{\"name\":\"");
  for (uint32_t i = 0; i < c.name_count; ++i)
    j.raw(i ? ", " : "").raw(c.names[i]);
  if (c.more_names) j.raw(", ...");
  j.ch('"');
  span_head(j, kSpanCompute, c.begin, c.end, pid_, r.tid, stamps_per_us_);
  j.raw(",\"args\":{\"calls\":").u64(c.calls);
  for (size_t k = 0; k < size_t(ComputeKind::Count); ++k)
    if (c.tiles[k]) j.key(kComputeKindNames[k]).u64(c.tiles[k]);
  j.ch('}');
  end_event(r, j);
  r.pending = RiscTrace::Pending::None;
}

void Tracer::write_kernel(RiscTrace& r, uint64_t end, bool ended) {
  const KernelTotals& t = r.totals;
  JsonText j(r.out.reserve(), kMaxEventBytes);
  j.raw("{\"name\":").str(short_file(r.kernel_path));
  span_head(j, kSpanKernel, r.kernel_begin, std::max(end, r.kernel_begin), pid_, r.tid, stamps_per_us_);
  j.raw(",\"args\":{\"path\":").str(r.kernel_path).key("run").u64(r.kernel_run);
  j.key("wait_steps").u64(t.wait).key("waits").u64(t.waits);
  j.key("noc_read_bytes").u64(t.noc_read_bytes).key("noc_write_bytes").u64(t.noc_write_bytes);
  j.key("noc_transfers").u64(t.noc_transfers);
  j.key("cb_pages_pushed").u64(t.cb_pages_pushed).key("cb_pages_popped").u64(t.cb_pages_popped);
  for (size_t k = 0; k < size_t(ComputeKind::Count); ++k)
    j.key(kComputeKindNames[k]).u64(t.tiles[k]);
  if (t.commands) j.key("commands").u64(t.commands);
  if (t.dprints) j.key("dprints").u64(t.dprints);
  if (!ended) j.key("ended").str("no: the run stopped first (a deadlock, a fault or error, or an interrupt)");
  j.ch('}');
  end_event(r, j);
  r.in_kernel = false;
  r.last_end = std::max(r.last_end, end);
}

// ---------------------------------------------------------------------------
// Hooks

void Tracer::kernel_begin(Fiber& f) {
  tessel_kernel_ctx& k = f.core->ctx[f.risc];
  RiscTrace& r = risc(k);
  if (r.in_kernel) { // the run before stopped this kernel: close what it left
    flush_pending(r);
    write_kernel(r, r.last_end, false);
  }
  r.pending = RiscTrace::Pending::None;
  r.in_kernel = true;
  r.kernel_begin = r.last_end = r.stamp(trace_clock(k));
  r.kernel_run = chip_.run_count();
  r.totals = {};
  const char* path = f.kernel_name ? f.kernel_name : "kernel";
  const size_t n = std::min(std::strlen(path), sizeof r.kernel_path - 1);
  std::memcpy(r.kernel_path, path, n);
  r.kernel_path[n] = '\0';
}

void Tracer::kernel_end(Fiber& f) {
  tessel_kernel_ctx& k = f.core->ctx[f.risc];
  RiscTrace& r = risc(k);
  if (!r.in_kernel) return;
  flush_pending(r);
  write_kernel(r, r.stamp(trace_clock(k)), true);
}

void Tracer::wait_begin(Fiber& f) {
  tessel_kernel_ctx& k = f.core->ctx[f.risc];
  RiscTrace& r = risc(k);
  const uint64_t now = trace_clock(k);
  const uint32_t sem_offset = uint32_t(reinterpret_cast<uintptr_t>(f.wait.sem)) & TESSEL_L1_SLOT_MASK;
  ++r.totals.waits;
  if (r.pending == RiscTrace::Pending::Wait && same_wait(r.wait, f.wait, sem_offset) && r.wait.end_clock == now) {
    r.wait.blocked_clock = now; // the same wait again (its loop found the condition still false)
    r.wait.ended = false;
    return;
  }
  flush_pending(r);
  PendingWait& w = r.wait;
  w.kind = uint8_t(f.wait.kind);
  w.cb = f.wait.cb;
  w.pages = f.wait.pages;
  w.value = f.wait.value;
  w.sem_offset = sem_offset;
  w.file = f.wait.file;
  w.line = f.wait.line;
  w.begin = w.end = r.last_end = r.stamp(now); // a kernel the run stops in this wait closes after it
  w.blocked_clock = w.end_clock = now;
  w.ended = w.stopped = false;
  capture(w, f);
  r.pending = RiscTrace::Pending::Wait;
}

void Tracer::wait_end(Fiber& f) {
  tessel_kernel_ctx& k = f.core->ctx[f.risc];
  RiscTrace& r = risc(k);
  if (r.pending != RiscTrace::Pending::Wait) return;
  end_wait(r, std::max(trace_clock(k), r.wait.blocked_clock));
}

void Tracer::end_wait(RiscTrace& r, uint64_t clock) {
  r.totals.wait += clock - r.wait.blocked_clock;
  r.wait.end_clock = clock;
  r.wait.end = r.last_end = r.stamp(clock);
  r.wait.ended = true;
}

void Tracer::noc_unicast(tessel_kernel_ctx& k, const char* call, uint64_t begin, uint64_t noc_addr, uint32_t bytes,
                         bool read) {
  RiscTrace& r = risc(k);
  flush_pending(r);
  const uint32_t x = uint32_t((noc_addr >> TESSEL_NOC_LOCAL_BITS) & TESSEL_NOC_COORD_MASK);
  const uint32_t y = uint32_t((noc_addr >> (TESSEL_NOC_LOCAL_BITS + TESSEL_NOC_COORD_BITS)) & TESSEL_NOC_COORD_MASK);
  const int core = chip_.core_at_noc(x, y);
  const int bank = core >= 0 ? -1 : chip_.dram_bank_at_noc(x, y);
  const uint64_t b = r.stamp(begin), now = r.stamp(trace_clock(k));
  const uint64_t flow = next_flow_id(r, risc_index(k));
  ++r.totals.noc_transfers;
  (read ? r.totals.noc_read_bytes : r.totals.noc_write_bytes) += bytes;
  // The arrow starts at the issuer, whatever way the data goes: Perfetto
  // takes a flow's start before its end only if it sorts first (at one time,
  // the longer span first, then the file's order), so the issuer's span,
  // never shorter than the far end's, comes first in the file too.
  {
    JsonText j(r.out.reserve(), kMaxEventBytes);
    j.raw("{\"name\":\"").raw(call).ch('"');
    span_head(j, kSpanNoc, b, now, pid_, r.tid, stamps_per_us_);
    j.raw(",\"bind_id\":\"").hex(flow).raw("\",\"flow_out\":true");
    j.raw(",\"args\":{\"bytes\":").u64(bytes).raw(read ? ",\"from\":" : ",\"to\":");
    endpoint_text(j, chip_, core, bank);
    j.raw("}");
    end_event(r, j);
  }
  JsonText j(r.out.reserve(), kMaxEventBytes);
  j.raw(read ? "{\"name\":\"NoC read\"" : "{\"name\":\"NoC write\"");
  span_head(j, kSpanNoc, b, b, pid_, core >= 0 ? core_tid(uint32_t(core), kL1Track) : dram_tid(chip_, uint32_t(bank)),
            stamps_per_us_);
  j.raw(",\"bind_id\":\"").hex(flow).raw("\",\"flow_in\":true");
  j.raw(",\"args\":{\"bytes\":").u64(bytes).raw(read ? ",\"by\":" : ",\"from\":").str(r.name).raw("}");
  end_event(r, j);
  r.last_end = now;
}

namespace {
constexpr std::string_view kSpanFabric = ",\"cat\":\"fabric\",\"ph\":\"X\"";
const char* const kLinkDirections[4] = {"East", "West", "North", "South"};
// A chip's link tracks come after its DRAM banks: 4 directions x 4 links.
uint32_t link_tid(const Chip& chip, uint32_t direction, uint32_t link) {
  return dram_tid(chip, chip.arch().dram_banks) + direction * 4 + (link & 3);
}
} // namespace

void Tracer::fabric_packet(tessel_kernel_ctx& k, uint64_t begin, uint32_t bytes, std::span<const LinkCrossing> links,
                           const std::string& to) {
  RiscTrace& r = risc(k);
  flush_pending(r);
  const uint64_t b = r.stamp(begin), now = r.stamp(trace_clock(k));
  {
    JsonText j(r.out.reserve(), kMaxEventBytes);
    j.raw("{\"name\":\"fabric packet\"");
    span_head(j, kSpanFabric, b, now, pid_, r.tid, stamps_per_us_);
    j.raw(",\"args\":{\"bytes\":").u64(bytes).raw(",\"hops\":").u64(links.size()).raw(",\"to\":").str(to).raw("}");
    end_event(r, j);
  }
  for (const LinkCrossing& c : links) {
    Tracer* t = c.from ? c.from->tracer() : nullptr;
    if (!t) continue;
    const uint32_t tid = link_tid(*c.from, c.direction, c.link);
    const uint32_t bit = 1u << ((c.direction & 3) * 4 + (c.link & 3));
    if (!(t->named_links_ & bit)) {
      t->named_links_ |= bit;
      JsonText j(r.out.reserve(), kMaxEventBytes);
      j.raw("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":").u64(t->pid_).raw(",\"tid\":").u64(tid);
      j.raw(",\"args\":{\"name\":\"link ").raw(kLinkDirections[c.direction & 3]).ch(' ').u64(c.link).raw("\"}");
      end_event(r, j);
    }
    JsonText j(r.out.reserve(), kMaxEventBytes);
    j.raw("{\"name\":\"packet\"");
    // Link spans sit at their own times (timed: when the link carried the
    // packet), not on the sender's stamp sequence.
    const uint64_t lb = c.begin * kSubSteps, le = std::max(c.end, c.begin) * kSubSteps;
    span_head(j, kSpanFabric, lb, le, t->pid_, tid, stamps_per_us_);
    j.raw(",\"args\":{\"bytes\":").u64(bytes).raw(",\"from\":").str(r.name).raw(",\"to\":").str(to).raw("}");
    end_event(r, j);
  }
  r.last_end = now;
}

void Tracer::noc_multicast(tessel_kernel_ctx& k, const char* call, uint64_t begin, uint64_t mcast, uint32_t bytes,
                           bool loopback) {
  RiscTrace& r = risc(k);
  flush_pending(r);
  const auto field = [&](uint32_t i) {
    return uint32_t((mcast >> (TESSEL_NOC_LOCAL_BITS + i * TESSEL_NOC_COORD_BITS)) & TESSEL_NOC_COORD_MASK);
  };
  const uint32_t x0 = std::min(field(0), field(2)), x1 = std::max(field(0), field(2));
  const uint32_t y0 = std::min(field(1), field(3)), y1 = std::max(field(1), field(3));
  const Core& me = core_of(&k);
  const uint64_t b = r.stamp(begin), now = r.stamp(trace_clock(k));
  const uint64_t flow = next_flow_id(r, risc_index(k));
  const auto each_destination = [&](auto&& visit) {
    for (uint32_t y = y0; y <= y1; ++y)
      for (uint32_t x = x0; x <= x1; ++x) {
        const int c = chip_.core_at_noc(x, y);
        if (c >= 0 && (uint32_t(c) != me.index || loopback)) visit(uint32_t(c));
      }
  };
  uint32_t dests = 0;
  each_destination([&](uint32_t) { ++dests; });
  ++r.totals.noc_transfers;
  r.totals.noc_write_bytes += uint64_t(bytes) * dests;
  // The issuer first, as for unicasts.
  {
    JsonText j(r.out.reserve(), kMaxEventBytes);
    j.raw("{\"name\":\"").raw(call).ch('"');
    span_head(j, kSpanNoc, b, now, pid_, r.tid, stamps_per_us_);
    j.raw(",\"bind_id\":\"").hex(flow).raw("\",\"flow_out\":true");
    j.raw(",\"args\":{\"bytes\":").u64(bytes).raw(",\"destinations\":").u64(dests);
    j.raw(",\"to\":\"cores (").u64(x0 - me.noc_x + me.logical_x).ch(',').u64(y0 - me.noc_y + me.logical_y);
    j.raw(")-(").u64(x1 - me.noc_x + me.logical_x).ch(',').u64(y1 - me.noc_y + me.logical_y).raw(")\"}");
    end_event(r, j);
  }
  each_destination([&](uint32_t c) {
    JsonText j(r.out.reserve(), kMaxEventBytes);
    j.raw("{\"name\":\"NoC write\"");
    span_head(j, kSpanNoc, b, b, pid_, core_tid(c, kL1Track), stamps_per_us_);
    j.raw(",\"bind_id\":\"").hex(flow).raw("\",\"flow_in\":true");
    j.raw(",\"args\":{\"bytes\":").u64(bytes).raw(",\"from\":").str(r.name).raw(",\"multicast\":true}");
    end_event(r, j);
  });
  r.last_end = now;
}

void Tracer::compute_call(tessel_kernel_ctx& k, const char* call, ComputeKind kind, uint64_t tiles, uint64_t begin) {
  RiscTrace& r = risc(k);
  r.totals.tiles[size_t(kind)] += tiles;
  if (r.pending != RiscTrace::Pending::Compute) {
    flush_pending(r);
    r.compute = {};
    r.compute.begin = r.stamp(begin);
    r.pending = RiscTrace::Pending::Compute;
  }
  PendingCompute& c = r.compute;
  ++c.calls;
  c.tiles[size_t(kind)] += tiles;
  c.end = r.last_end = r.stamp(trace_clock(k));
  for (uint32_t i = 0; i < c.name_count; ++i)
    if (c.names[i] == call) return;
  if (c.name_count < 4)
    c.names[c.name_count++] = call;
  else
    c.more_names = true;
}

void Tracer::cb_pages(tessel_kernel_ctx& k, uint32_t cb, uint32_t pages, bool pushed) {
  RiscTrace& r = risc(k);
  if (pushed) {
    r.totals.cb_pages_pushed += pages;
  } else {
    r.totals.cb_pages_popped += pages;
    if (cb < 64) r.popped[cb] = r.stamp(trace_clock(k));
  }
}

void Tracer::dprint(tessel_kernel_ctx& k, const char* text, uint32_t length) {
  static const char* const kThreads[] = {"TR0", "TR1", "TR2"};
  RiscTrace& r = risc(k);
  flush_pending(r);
  ++r.totals.dprints;
  const uint64_t now = r.last_end = r.stamp(trace_clock(k));
  JsonText j(r.out.reserve(), kMaxEventBytes);
  j.raw("{\"name\":\"DPRINT\",\"cat\":\"dprint\",\"ph\":\"i\",\"s\":\"t\",\"ts\":").micros(now, stamps_per_us_);
  j.raw(",\"pid\":").u64(pid_).raw(",\"tid\":").u64(r.tid).raw(",\"args\":{\"text\":").str(text, length);
  if (k.risc == TESSEL_RISC_COMPUTE)
    j.key("thread").str(k.dprint_thread <= TESSEL_DPRINT_THREAD_PACK ? kThreads[k.dprint_thread] : "all");
  j.ch('}');
  end_event(r, j);
}

void Tracer::command_taken(tessel_kernel_ctx& k) {
  RiscTrace& r = risc(k);
  r.taken = r.stamp(trace_clock(k));
}

void Tracer::command_done(tessel_kernel_ctx& k, uint32_t handler, uint32_t sequence, uint32_t slot, uint32_t token_cb) {
  RiscTrace& r = risc(k);
  const uint64_t begin = token_cb < 64 ? r.popped[token_cb] : r.taken;
  flush_pending(r);
  ++r.totals.commands;
  const uint64_t now = r.stamp(trace_clock(k));
  JsonText j(r.out.reserve(), kMaxEventBytes);
  j.raw("{\"name\":\"handler ").u64(handler).ch('"');
  span_head(j, kSpanCommand, std::min(begin, now), now, pid_, r.tid, stamps_per_us_);
  j.raw(",\"args\":{\"handler\":").u64(handler).key("sequence").u64(sequence).key("slot").u64(slot).raw("}");
  end_event(r, j);
  r.last_end = now;
}

void Tracer::run_stopped(std::span<Fiber* const> fibers) {
  // A wait the run stopped in lasts until the run stopped: the latest clock
  // of its RISCs (and a stamp at least, as a wait of no time).
  uint64_t stop_clock = 0;
  for (Fiber* f : fibers)
    stop_clock = std::max(stop_clock, trace_clock(f->core->ctx[f->risc]));
  for (Fiber* f : fibers) {
    RiscTrace& r = risc(f->core->ctx[f->risc]);
    if (!r.in_kernel) continue;
    if (r.pending == RiscTrace::Pending::Wait && f->state == FiberState::Blocked) {
      end_wait(r, std::max(stop_clock, r.wait.blocked_clock));
      r.wait.stopped = true;
    } else if (r.pending == RiscTrace::Pending::Wait && f->state == FiberState::Ready && !r.wait.ended) {
      // Woken before the stop, not yet run: its wait ended at the clock its
      // waker gave it, as wait_end would have written.
      wait_end(*f);
    }
    flush_pending(r);
    write_kernel(r, r.last_end, false);
  }
}

void Tracer::finish() {
  if (finished_) return;
  finished_ = true;
  for (auto& rp : riscs_) {
    RiscTrace& r = *rp;
    flush_pending(r);
    if (r.in_kernel) write_kernel(r, r.last_end, false);
    r.out.flush();
    r.out.write_ring();
  }
}

// ---------------------------------------------------------------------------

void Chip::set_tracer(std::unique_ptr<Tracer> tracer) {
  tracer_ = std::move(tracer);
  refresh_api_table();
}

void Chip::refresh_api_table() {
  const tessel_sim_api* api = tracer_   ? (timing_ ? traced_timed_api_table() : traced_api_table())
                              : timing_ ? timed_api_table()
                                        : kernel_api_table();
  for (auto& c : cores_)
    for (tessel_kernel_ctx& k : c->ctx) {
      k.api = api;
      // Traced, every core's DPRINT lines reach the simulator (the trace
      // keeps them all; the console still shows TESSEL_DPRINT_CORES').
      k.dprint_enabled = tracer_ ? 1u : dprint_cores_[c->index];
    }
}

void set_chip_trace(Chip& chip, TraceOptions options) {
  if (chip.tracer()) chip.tracer()->finish();
  chip.set_tracer(options.file ? std::make_unique<Tracer>(chip, std::move(options)) : nullptr);
}

} // namespace tessel::sim
