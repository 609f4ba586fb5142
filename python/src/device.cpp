// Device, Buffer, Event and CommandQueue.
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "tessel/buffer.hpp"
#include "tessel/command_queue.hpp"
#include "tessel/device.hpp"
#include "tessel/error.hpp"
#include "tessel/event.hpp"
#include "tessel/profiler.hpp"
#include "tessel/program.hpp"
#include "tessel/program_cache.hpp"

namespace tessel::python {

namespace {

using Bytes = nb::ndarray<nb::c_contig, nb::device::cpu>;
using Coord = std::pair<uint32_t, uint32_t>;

std::optional<bool> tristate(int v) { return v < 0 ? std::nullopt : std::optional<bool>(v != 0); }

// A fresh numpy array of `bytes` bytes (uint8) the caller fills.
nb::ndarray<nb::numpy, uint8_t, nb::ndim<1>> new_bytes(size_t bytes) {
  auto* data = new uint8_t[bytes];
  nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<uint8_t*>(p); });
  return nb::ndarray<nb::numpy, uint8_t, nb::ndim<1>>(data, {bytes}, owner);
}

void check_size(const Buffer& b, size_t bytes, const char* call) {
  if (bytes != b.size())
    throw ValidationError(std::string(call) + ": the array holds " + std::to_string(bytes) + " bytes, the buffer " +
                          std::to_string(b.size()) + " (expected an array of exactly the buffer's size)");
}

} // namespace

void bind_device(nb::module_& m) {
  nb::class_<Device>(m, "Device")
      .def_static("open",
                  [](const std::string& arch, uint32_t gx, uint32_t gy, const std::string& policy,
                     const std::string& cache, int check_memory, int profiler, std::optional<std::string> trace,
                     std::optional<uint64_t> trace_ring, std::optional<std::string> noc, int timing) {
                    DeviceConfig c;
                    c.arch = arch;
                    c.grid_x = gx;
                    c.grid_y = gy;
                    c.policy = policy;
                    c.kernel_cache_dir = cache;
                    c.check_memory = tristate(check_memory);
                    c.profiler = tristate(profiler);
                    c.trace_path = std::move(trace);
                    c.trace_ring_events = trace_ring;
                    c.noc = std::move(noc);
                    c.timing = tristate(timing);
                    return Device::open(c);
                  })
      .def("timing_enabled", &Device::timing_enabled)
      .def("last_run_timing",
           [](const Device& d) {
             const TimingReport r = d.last_run_timing();
             nb::list riscs;
             for (const RiscTiming& x : r.riscs)
               riscs.append(nb::make_tuple(x.core.x, x.core.y, x.risc, x.busy_cycles, x.wait_cycles));
             return nb::make_tuple(r.clock_mhz, r.kernel_cycles, r.dispatch_cycles, r.device_cycles, r.runs, riscs,
                                   r.stopped);
           })
      .def("close", &Device::close)
      .def("trace_path", &Device::trace_path)
      .def("trace_ring_events", &Device::trace_ring_events)
      .def("is_open", &Device::is_open)
      .def("arch", &Device::arch_name)
      .def("grid",
           [](const Device& d) {
             return Coord{d.grid().x, d.grid().y};
           })
      .def("worker_core",
           [](const Device& d, uint32_t x, uint32_t y) {
             const CoreCoord c = d.worker_core_from_logical_core({x, y});
             return Coord{c.x, c.y};
           })
      .def("l1_size", &Device::l1_size)
      .def("l1_alignment", &Device::l1_alignment)
      .def("dram_alignment", &Device::dram_alignment)
      .def("dram_banks", &Device::dram_banks)
      .def("dram_bank_size", &Device::dram_bank_size)
      .def("num_cb_indices", &Device::num_cb_indices)
      .def("clock_mhz", &Device::clock_mhz)
      .def("policy", &Device::policy)
      .def("set_policy", &Device::set_policy)
      .def("check_memory", &Device::check_memory)
      .def("noc_mode", &Device::noc_mode)
      .def("memory_statistics",
           [](const Device& d, int type) {
             const auto s = d.memory_statistics(BufferType(type));
             return std::make_tuple(s.begin, s.end, s.allocated_bytes, s.largest_free_bytes, s.lowest_allocated);
           })
      .def("profiler_records",
           [](const Device& d) {
             // (x, y, risc, type, name, time, data, run, file, line) per record.
             std::vector<std::tuple<uint32_t, uint32_t, std::string, std::string, std::string, uint64_t, uint64_t,
                                    uint32_t, std::string, uint32_t>>
                 out;
             for (const ProfilerRecord& r : d.profiler_records())
               out.emplace_back(r.core.x, r.core.y, profiler_risc_name(r.risc), profiler_marker_type_name(r.type),
                                r.zone_name, r.time_cycles, r.data, r.run_host_id, r.source_file, r.source_line);
             return out;
           })
      .def("clear_profiler_records", &Device::clear_profiler_records)
      .def("profiler_enabled", &Device::profiler_enabled)
      .def("set_profiler_enabled", &Device::set_profiler_enabled)
      .def("program_cache_stats",
           [](Device& d) {
             ProgramCache& c = d.program_cache();
             return std::make_tuple(c.entries(), c.hits(), c.misses());
           })
      .def("clear_program_cache", [](Device& d) { d.program_cache().clear(); })
      .def("command_queue", &Device::command_queue, nb::rv_policy::reference_internal);

  nb::class_<Buffer>(m, "Buffer")
      .def_static(
          "create",
          [](const std::shared_ptr<Device>& device, uint64_t size, uint32_t page_size, int type,
             std::optional<std::tuple<std::vector<uint32_t>, std::vector<uint32_t>, std::vector<uint32_t>>> shard) {
            BufferConfig c{size, page_size, BufferType(type), std::nullopt};
            if (shard) c.shard = ShardSpec{std::get<0>(*shard), std::get<1>(*shard), std::get<2>(*shard)};
            return Buffer::create(device, c);
          })
      .def("address", &Buffer::address)
      .def("size", &Buffer::size)
      .def("page_size", &Buffer::page_size)
      .def("num_pages", &Buffer::num_pages)
      .def("type", [](const Buffer& b) { return int(b.type()); })
      .def("is_sharded", &Buffer::is_sharded)
      .def("is_allocated", &Buffer::is_allocated)
      .def("num_banks", &Buffer::num_banks)
      .def("aligned_page_size", &Buffer::aligned_page_size)
      .def("bytes_per_bank", &Buffer::bytes_per_bank)
      .def("page_location",
           [](const Buffer& b, uint32_t page) {
             const auto l = b.page_location(page);
             return std::make_pair(l.bank, l.address);
           })
      .def("deallocate", &Buffer::deallocate)
      // Straight from / into the array's memory: no intermediate copy.
      .def("write",
           [](Buffer& b, Bytes src) {
             check_size(b, src.nbytes(), "Buffer.write");
             nb::gil_scoped_release release;
             b.write(src.data(), src.nbytes());
           })
      .def("read_into",
           [](const Buffer& b, Bytes dst) {
             check_size(b, dst.nbytes(), "Buffer.read");
             nb::gil_scoped_release release;
             b.read(dst.data(), dst.nbytes());
           })
      .def("read", [](const Buffer& b) {
        auto out = new_bytes(b.size());
        {
          nb::gil_scoped_release release;
          b.read(out.data(), b.size());
        }
        return out;
      });

  nb::class_<Event>(m, "Event")
      .def_static("create", [] { return std::make_shared<Event>(); })
      .def("id", &Event::id)
      .def("is_recorded", &Event::is_recorded)
      .def("completed", &Event::completed)
      .def("synchronize", [](const Event& e) { event_synchronize(e); })
      .def("query", [](const Event& e) { return event_query(e); });

  nb::class_<CommandQueue>(m, "CommandQueue")
      .def("enqueue_write_buffer",
           [](CommandQueue& q, Buffer& b, Bytes src, bool blocking_) {
             check_size(b, src.nbytes(), "CommandQueue.enqueue_write_buffer");
             nb::gil_scoped_release release;
             q.enqueue_write_buffer(b, src.data(), src.nbytes(), blocking_);
           })
      .def("enqueue_read_buffer",
           [](CommandQueue& q, Buffer& b, Bytes dst, bool blocking_) {
             check_size(b, dst.nbytes(), "CommandQueue.enqueue_read_buffer");
             nb::gil_scoped_release release;
             q.enqueue_read_buffer(b, dst.data(), dst.nbytes(), blocking_);
           })
      .def("enqueue_program",
           [](CommandQueue& q, Program& p, bool blocking_) { blocking([&] { q.enqueue_program(p, blocking_); }); })
      .def("compile_program", [](CommandQueue& q, Program& p) { blocking([&] { q.compile_program(p); }); })
      .def("finish", &CommandQueue::finish)
      .def("enqueue_record_event", &CommandQueue::enqueue_record_event)
      .def("enqueue_wait_for_event", &CommandQueue::enqueue_wait_for_event)
      .def("synchronize", &CommandQueue::synchronize)
      .def("query", &CommandQueue::query)
      .def("begin_trace_capture", &CommandQueue::begin_trace_capture)
      .def("end_trace_capture", &CommandQueue::end_trace_capture)
      .def("replay_trace",
           [](CommandQueue& q, uint32_t id, bool blocking_) { blocking([&] { q.replay_trace(id, blocking_); }); })
      .def("release_trace", &CommandQueue::release_trace)
      .def("trace_launch_count", &CommandQueue::trace_launch_count)
      .def("programs_run", &CommandQueue::programs_run)
      // The re-dispatch loop in C++, for `python -m tessel bench`'s comparison.
      .def("enqueue_program_loop", [](CommandQueue& q, Program& p, uint32_t times) {
        blocking([&] {
          for (uint32_t i = 0; i < times; ++i)
            q.enqueue_program(p);
        });
      });
}

} // namespace tessel::python
