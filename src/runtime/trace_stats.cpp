// Reading a trace's statistics back (tessel/trace_stats.hpp). The trace's
// events are those src/sim/trace.cpp writes; their microsecond fields are
// read back as clock steps (the tessel_trace event's ns_per_step, 1000: a
// step is shown as 1 us), the sub-step stamps dropped.
#include "tessel/trace_stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "base/json_reader.hpp"
#include "tessel/error.hpp"

namespace tessel {

namespace {

using base::JsonValue;

// The step a time falls in: sub-step stamps (at most 999 ns into a step) drop.
uint64_t steps(double micros, double ns_per_step) {
  const double s = std::floor(micros * 1000.0 / ns_per_step + 1e-6);
  return s > 0 ? uint64_t(std::min(s, 0x1p62)) : 0; // (NaN and negative: 0)
}

struct Track {
  std::string name;
  TraceRiscStats stats;
  std::set<std::string> kernels;
  bool has_kernel = false;
};

// "core (x,y) RISC" -> x, y, RISC.
bool parse_track_name(const std::string& name, CoreCoord& core, std::string& risc) {
  unsigned x = 0, y = 0;
  char rest[32] = {};
  if (std::sscanf(name.c_str(), "core (%u,%u) %31s", &x, &y, rest) != 3) return false;
  core = {x, y};
  risc = rest;
  return true;
}

uint64_t arg(const JsonValue& args, const char* key) { return uint64_t(std::max(0.0, args.number_at(key))); }

std::string bytes_text(uint64_t b) {
  char buf[32];
  if (b == 0) return "-";
  if (b < 10 * 1024)
    std::snprintf(buf, sizeof buf, "%llu B", (unsigned long long)b);
  else if (b < 10ull * 1024 * 1024)
    std::snprintf(buf, sizeof buf, "%.1f KiB", double(b) / 1024);
  else
    std::snprintf(buf, sizeof buf, "%.1f MiB", double(b) / (1024.0 * 1024));
  return buf;
}

std::string count_text(uint64_t n) { return n ? std::to_string(n) : "-"; }

std::string percent(uint64_t part, uint64_t whole) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f", whole ? 100.0 * double(part) / double(whole) : 0.0);
  return buf;
}

// Rows of the waits runs stopped in that the report shows per device.
constexpr size_t kStoppedWaitsShown = 24;

} // namespace

TraceStats read_trace_stats(const std::string& path, uint32_t longest_waits) {
  TraceStats out;
  out.path = path;
  std::map<uint32_t, TraceDeviceStats> devices;
  std::map<uint32_t, std::pair<uint64_t, uint64_t>> timeline; // pid -> first and last time
  std::map<uint32_t, double> ns_per_step;                     // pid -> the file's ns per clock step
  std::map<std::pair<uint32_t, uint32_t>, Track> tracks;      // (pid, tid)
  struct Wait {
    TraceWait wait;
    uint32_t tid;
  };
  std::vector<Wait> waits, stopped;
  const auto keep_wait = [&](Wait w) {
    if (w.wait.stopped) {
      if (stopped.size() < TraceStats::kMaxStoppedWaits)
        stopped.push_back(w);
      else
        ++devices[w.wait.process_id].stopped_waits_left_out;
    }
    if (longest_waits == 0 || w.wait.duration == 0) return; // (a wait of no time is no "longest")
    if (waits.size() == longest_waits && w.wait.duration <= waits.back().wait.duration) return;
    const auto at = std::upper_bound(waits.begin(), waits.end(), w,
                                     [](const Wait& a, const Wait& b) { return a.wait.duration > b.wait.duration; });
    waits.insert(at, std::move(w));
    if (waits.size() > longest_waits) waits.pop_back();
  };

  const base::JsonArrayRead read = base::read_json_array_elements(path, [&](const JsonValue& e) {
    if (e.type != JsonValue::Type::Object) return;
    ++out.events;
    const std::string_view ph = e.text_at("ph");
    const std::string_view name = e.text_at("name");
    const uint32_t pid = uint32_t(e.number_at("pid")), tid = uint32_t(e.number_at("tid"));
    static const JsonValue kNoArgs;
    const JsonValue* args_p = e.find("args");
    const JsonValue& args = args_p ? *args_p : kNoArgs;
    if (ph == "M") {
      if (name == "tessel_trace") {
        TraceDeviceStats& d = devices[pid];
        d.process_id = pid;
        d.label = std::string(args.text_at("label"));
        d.time_base = std::string(args.text_at("time_base", "logical"));
        d.ring_events = arg(args, "ring_events");
        // 1 in estimated traces (a cycle shown as 1 ns; traces of earlier
        // versions: 0.741 on Blackhole); the floor is the file's resolution
        // (a picosecond), and keeps a damaged value finite.
        ns_per_step[pid] = std::max(0.001, args.number_at("ns_per_step", 1000));
      } else if (name == "thread_name") {
        tracks[{pid, tid}].name = std::string(args.text_at("name"));
      }
      return;
    }
    if (ph != "X" && ph != "i") return;
    const auto unit = ns_per_step.find(pid);
    const double ns = unit == ns_per_step.end() ? 1000.0 : unit->second;
    const double ts_us = e.number_at("ts"), dur_us = e.number_at("dur");
    const uint64_t ts = steps(ts_us, ns), dur = steps(ts_us + dur_us, ns) - ts;
    auto [it, fresh] = timeline.try_emplace(pid, ts, ts + dur);
    it->second.first = std::min(it->second.first, ts);
    it->second.second = std::max(it->second.second, ts + dur);
    const std::string_view cat = e.text_at("cat");
    if (cat == "kernel") {
      Track& t = tracks[{pid, tid}];
      TraceRiscStats& s = t.stats;
      t.has_kernel = true;
      t.kernels.insert(std::string(name));
      ++s.kernel_runs;
      s.kernel_time += dur;
      s.wait_time += std::min(dur, arg(args, "wait_steps"));
      s.waits += arg(args, "waits");
      s.noc_read_bytes += arg(args, "noc_read_bytes");
      s.noc_write_bytes += arg(args, "noc_write_bytes");
      s.noc_transfers += arg(args, "noc_transfers");
      s.cb_pages_pushed += arg(args, "cb_pages_pushed");
      s.cb_pages_popped += arg(args, "cb_pages_popped");
      s.commands += arg(args, "commands");
      s.tiles.matmul += arg(args, "matmul_tiles");
      s.tiles.eltwise += arg(args, "eltwise_tiles");
      s.tiles.sfpu += arg(args, "sfpu_tiles");
      s.tiles.pack += arg(args, "pack_tiles");
      s.tiles.unpack += arg(args, "unpack_tiles");
    } else if (cat == "wait") {
      Wait w;
      w.tid = tid;
      w.wait.process_id = pid;
      w.wait.name = std::string(name);
      w.wait.what = std::string(args.text_at("what"));
      w.wait.file = std::string(args.text_at("file"));
      w.wait.line = uint32_t(arg(args, "line"));
      w.wait.begin = ts;
      w.wait.duration = dur;
      const JsonValue* stopped_arg = args.find("stopped");
      w.wait.stopped = stopped_arg && stopped_arg->type == JsonValue::Type::Bool && stopped_arg->boolean;
      keep_wait(std::move(w));
    }
  });
  out.complete = read.closed;

  for (auto& [pid, t] : timeline)
    devices[pid].process_id = pid;
  for (auto& [pid, d] : devices) {
    if (auto t = timeline.find(pid); t != timeline.end()) d.begin = t->second.first, d.end = t->second.second;
    out.devices.push_back(d);
  }
  std::vector<std::tuple<uint32_t, uint32_t, uint32_t, TraceRiscStats>> rows; // pid, y, x order
  for (auto& [key, t] : tracks) {
    if (!t.has_kernel) continue;
    TraceRiscStats s = t.stats;
    s.process_id = key.first;
    if (!parse_track_name(t.name, s.core, s.risc))
      s.risc = t.name.empty() ? "tid " + std::to_string(key.second) : t.name;
    for (const std::string& k : t.kernels)
      s.kernels += (s.kernels.empty() ? "" : ", ") + k;
    rows.emplace_back(key.first, s.core.y, s.core.x, std::move(s));
  }
  // Tracks are numbered core by core, RISC by RISC: the map's order is already
  // device, core index, RISC; sorted again by (device, y, x) for clarity.
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a), std::get<2>(a)) <
           std::tie(std::get<0>(b), std::get<1>(b), std::get<2>(b));
  });
  for (auto& r : rows)
    out.riscs.push_back(std::move(std::get<3>(r)));
  const auto placed = [&](Wait& w) {
    const Track& t = tracks[{w.wait.process_id, w.tid}];
    if (!parse_track_name(t.name, w.wait.core, w.wait.risc)) w.wait.risc = t.name;
    return std::move(w.wait);
  };
  for (Wait& w : waits)
    out.longest_waits.push_back(placed(w));
  for (Wait& w : stopped)
    out.stopped_waits.push_back(placed(w));
  return out;
}

std::string format_trace_stats(const TraceStats& s) {
  std::string o;
  char line[512];
  std::snprintf(line, sizeof line, "trace %s: %zu device%s, %llu events%s\n", s.path.c_str(), s.devices.size(),
                s.devices.size() == 1 ? "" : "s", (unsigned long long)s.events,
                s.complete ? "" : " (no closing bracket: the trace was cut short, or its device is still open)");
  o += line;
  for (const TraceDeviceStats& d : s.devices) {
    const uint64_t span = d.end - d.begin;
    std::snprintf(line, sizeof line, "\ndevice #%u: %s; time %s (%s), %llu .. %llu (%llu)%s\n", d.process_id,
                  d.label.empty() ? "?" : d.label.c_str(), d.time_base.c_str(),
                  d.time_base == "logical" ? "steps: one per simulated kernel API call" : "estimated cycles",
                  (unsigned long long)d.begin, (unsigned long long)d.end, (unsigned long long)span,
                  d.ring_events ? ("; ring of the last " + std::to_string(d.ring_events) + " events per RISC").c_str()
                                : "");
    o += line;
    std::snprintf(line, sizeof line, "  %-7s %-8s %-24s %10s %10s %10s %6s %6s %10s %10s %9s %8s %8s %8s\n", "core",
                  "RISC", "kernel", "busy", "waiting", "idle", "busy%", "wait%", "NoC read", "NoC write", "transfers",
                  "CB pages", "math", "packed");
    o += line;
    TraceRiscStats total;
    const auto row = [&](const std::string& core, const std::string& risc, const std::string& kernels,
                         const TraceRiscStats& r, uint64_t idle, uint64_t whole) {
      const std::string k = kernels.size() > 24 ? kernels.substr(0, 21) + "..." : kernels;
      std::snprintf(line, sizeof line, "  %-7s %-8s %-24s %10llu %10llu %10llu %6s %6s %10s %10s %9s %8s %8s %8s\n",
                    core.c_str(), risc.c_str(), k.c_str(), (unsigned long long)r.busy_time(),
                    (unsigned long long)r.wait_time, (unsigned long long)idle, percent(r.busy_time(), whole).c_str(),
                    percent(r.wait_time, whole).c_str(), bytes_text(r.noc_read_bytes).c_str(),
                    bytes_text(r.noc_write_bytes).c_str(), count_text(r.noc_transfers).c_str(),
                    count_text(r.cb_pages_pushed).c_str(), count_text(r.tiles.math()).c_str(),
                    count_text(r.tiles.pack).c_str());
      o += line;
    };
    uint32_t riscs = 0;
    for (const TraceRiscStats& r : s.riscs) {
      if (r.process_id != d.process_id) continue;
      ++riscs;
      const std::string core = "(" + std::to_string(r.core.x) + "," + std::to_string(r.core.y) + ")";
      row(core, r.risc, r.kernels, r, span > r.kernel_time ? span - r.kernel_time : 0, span);
      total.kernel_time += r.kernel_time;
      total.wait_time += r.wait_time;
      total.noc_read_bytes += r.noc_read_bytes;
      total.noc_write_bytes += r.noc_write_bytes;
      total.noc_transfers += r.noc_transfers;
      total.cb_pages_pushed += r.cb_pages_pushed;
      total.tiles.matmul += r.tiles.matmul;
      total.tiles.eltwise += r.tiles.eltwise;
      total.tiles.sfpu += r.tiles.sfpu;
      total.tiles.pack += r.tiles.pack;
      total.commands += r.commands;
    }
    const uint64_t whole = span * riscs;
    row("all", std::to_string(riscs) + " RISCs", "", total, whole > total.kernel_time ? whole - total.kernel_time : 0,
        whole);
    if (riscs == 0 && span > 0)
      o += "  (events but no kernel span: a kernel's span and its totals are written when it ends or its run stops, "
           "so a process that died mid-run leaves them out)\n";
    if (total.commands) o += "  dispatch commands run: " + std::to_string(total.commands) + " (RISC-command pairs)\n";
    // The list's rows of this device, `limit` at most, under `title`; then
    // how many more there are (`left_out` beside those the list holds).
    const auto wait_rows = [&](const std::vector<TraceWait>& list, const char* title, size_t limit, uint64_t left_out) {
      size_t shown = 0;
      uint64_t left = left_out;
      const auto header = [&] {
        std::snprintf(line, sizeof line, "\n  %s:\n  %10s %10s  %-7s %-8s %-28s %s\n", title, "length", "at", "core",
                      "RISC", "where", "what");
        o += line;
      };
      for (const TraceWait& w : list) {
        if (w.process_id != d.process_id) continue;
        if (shown == limit) {
          ++left;
          continue;
        }
        if (shown++ == 0) header();
        const std::string where = w.file.empty() ? "-" : w.file + ":" + std::to_string(w.line);
        const std::string core = "(" + std::to_string(w.core.x) + "," + std::to_string(w.core.y) + ")";
        std::snprintf(line, sizeof line, "  %10llu %10llu  %-7s %-8s %-28s %s\n", (unsigned long long)w.duration,
                      (unsigned long long)w.begin, core.c_str(), w.risc.c_str(), where.c_str(), w.what.c_str());
        o += line;
      }
      if (left == 0) return;
      if (shown == 0) header();
      o += "  ... and " + std::to_string(left) + " more\n";
    };
    wait_rows(s.longest_waits, "longest waits", s.longest_waits.size(), 0);
    wait_rows(s.stopped_waits, "waits a run stopped in (a deadlock, an error or an interrupt)", kStoppedWaitsShown,
              d.stopped_waits_left_out);
  }
  return o;
}

} // namespace tessel
