// The event trace's statistics (tessel/trace_stats.hpp), as plain tuples the
// Python package turns into records (tessel/trace.py).
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "tessel/device.hpp"
#include "tessel/trace_stats.hpp"

namespace tessel::python {

void bind_trace(nb::module_& m) {
  m.attr("MAX_TRACE_RING_EVENTS") = kMaxTraceRingEvents;
  m.def("trace_stats", [](const std::string& path, uint32_t longest_waits) {
    const TraceStats s = read_trace_stats(path, longest_waits);
    std::vector<std::tuple<uint32_t, std::string, std::string, uint64_t, uint64_t, uint64_t, uint64_t>> devices;
    for (const TraceDeviceStats& d : s.devices)
      devices.emplace_back(d.process_id, d.label, d.time_base, d.begin, d.end, d.ring_events, d.stopped_waits_left_out);
    using Risc = std::tuple<uint32_t, uint32_t, uint32_t, std::string, std::string, uint64_t, uint64_t, uint64_t,
                            uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
                            std::tuple<uint64_t, uint64_t, uint64_t, uint64_t, uint64_t>>;
    std::vector<Risc> riscs;
    for (const TraceRiscStats& r : s.riscs)
      riscs.emplace_back(r.process_id, r.core.x, r.core.y, r.risc, r.kernels, r.kernel_runs, r.kernel_time, r.wait_time,
                         r.waits, r.noc_read_bytes, r.noc_write_bytes, r.noc_transfers, r.cb_pages_pushed,
                         r.cb_pages_popped, r.commands,
                         std::make_tuple(r.tiles.matmul, r.tiles.eltwise, r.tiles.sfpu, r.tiles.pack, r.tiles.unpack));
    using Wait = std::tuple<uint32_t, uint32_t, uint32_t, std::string, std::string, std::string, std::string, uint32_t,
                            uint64_t, uint64_t, bool>;
    const auto waits = [](const std::vector<TraceWait>& list) {
      std::vector<Wait> out;
      for (const TraceWait& w : list)
        out.emplace_back(w.process_id, w.core.x, w.core.y, w.risc, w.name, w.what, w.file, w.line, w.begin, w.duration,
                         w.stopped);
      return out;
    };
    return std::make_tuple(s.events, s.complete, devices, riscs, waits(s.longest_waits), format_trace_stats(s),
                           waits(s.stopped_waits));
  });
}

} // namespace tessel::python
