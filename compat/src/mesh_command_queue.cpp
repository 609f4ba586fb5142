// MeshCommandQueue: workloads, buffer transfers (replicated, per shard and
// split into shards), events and finish, each sent to the chips it names.
#include "tt-metalium/mesh_command_queue.hpp"

#include <cstring>
#include <string>

#include "mesh_checks.hpp"
#include "realtime_profiler.hpp"
#include "tessel/error.hpp"
#include "tessel/event.hpp"
#include "runtime/device_state.hpp"
#include "tessel/mesh.hpp"
#include "tt-metalium/mesh_device.hpp"

namespace tt::tt_metal::distributed {

namespace {

// Where one shard of a sharded buffer lives: its place in the global array
// (in shards) and the chips that store it.
struct ShardPlacement {
  size_t shard_row, shard_col;
  MeshCoordinateRange chips;
};

// The shards in row-major order over the global array, each with its chips
// (mesh_buffer.hpp describes the order). create() checked that they fit.
std::vector<ShardPlacement> shard_placements(const ShardedBufferConfig& config, const MeshShape& mesh) {
  const Shape2D shard = config.physical_shard_shape();
  const size_t shard_rows = config.global_buffer_shape.height() / shard.height();
  const size_t shard_cols = config.global_buffer_shape.width() / shard.width();
  const auto [height_replicated, width_replicated] = config.replicated_dims();
  const bool row_major = config.shard_orientation == ShardOrientation::ROW_MAJOR;
  const uint32_t rows = mesh[0], cols = mesh[1];
  std::vector<ShardPlacement> placements;
  placements.reserve(shard_rows * shard_cols);
  for (size_t r = 0; r < shard_rows; ++r)
    for (size_t c = 0; c < shard_cols; ++c) {
      const uint32_t k = uint32_t(placements.size());
      if (height_replicated && width_replicated)
        placements.push_back({r, c, MeshCoordinateRange(mesh)});
      else if (height_replicated || width_replicated)
        placements.push_back({r, c,
                              row_major ? MeshCoordinateRange(MeshCoordinate(0, k), MeshCoordinate(rows - 1, k))
                                        : MeshCoordinateRange(MeshCoordinate(k, 0), MeshCoordinate(k, cols - 1))});
      else
        placements.push_back(
            {r, c,
             MeshCoordinateRange(row_major ? MeshCoordinate(k / cols, k % cols) : MeshCoordinate(k % rows, k / rows))});
    }
  return placements;
}

// Calls copy_row(array_offset, shard_offset, row_bytes) for each row of
// shard `p`: where the row lies in the global array and in the packed shard.
template <typename CopyRow>
void for_each_shard_row(const ShardedBufferConfig& config, const ShardPlacement& p, CopyRow copy_row) {
  const Shape2D shape = config.physical_shard_shape();
  const size_t datum_bytes = config.compute_datum_size_bytes();
  const size_t row_bytes = shape.width() * datum_bytes;
  const size_t array_row_bytes = config.global_buffer_shape.width() * datum_bytes;
  for (size_t row = 0; row < shape.height(); ++row)
    copy_row((p.shard_row * shape.height() + row) * array_row_bytes + p.shard_col * row_bytes, row * row_bytes,
             row_bytes);
}

} // namespace

MeshCommandQueue::MeshCommandQueue(MeshDevice& device, uint8_t id) : device_(device), id_(id) {}

tessel::CommandQueue& MeshCommandQueue::chip_queue(size_t linear_index) const {
  return device_.native_device(linear_index).command_queue();
}

// ---- Workloads -------------------------------------------------------------

void MeshCommandQueue::enqueue_mesh_workload(MeshWorkload& mesh_workload, bool blocking) {
  const char* call = "EnqueueMeshWorkload";
  if (mesh_workload.ranges_in_order().empty())
    checks::fail(call, "the workload has no programs; add one with workload.add_program("
                       "MeshCoordinateRange(mesh_device->shape()), std::move(program))");
  for (const MeshCoordinateRange& range : mesh_workload.ranges_in_order())
    checks::range_in_mesh(device_, range, call);
  // Chips are alike, so a program the first chip of its range accepts (and
  // has built) runs on the others too. Under mpirun only this process's
  // chips run here (the others' ranks run theirs).
  for (const MeshCoordinateRange& range : mesh_workload.ranges_in_order())
    for (const MeshCoordinate& coord : range)
      if (device_.is_local(coord)) {
        chip_queue(coord.to_linear_index(device_.shape()))
            .compile_program(mesh_workload.get_programs().at(range).native());
        break;
      }
  // On a mesh with a fabric, chips whose programs are their own run together,
  // as one run (their kernels may wait for each other's packets). A program
  // given to a range of several chips runs on them one after another: one
  // program's plan serves one chip at a time.
  if (tessel::Mesh* mesh = device_.native_mesh()) {
    std::vector<tessel::Program*> together(device_.num_devices(), nullptr);
    bool shared = false;
    for (const MeshCoordinateRange& range : mesh_workload.ranges_in_order()) {
      shared |= range.size() > 1;
      for (const MeshCoordinate& coord : range)
        if (device_.is_local(coord))
          together[coord.to_linear_index(device_.shape())] = &mesh_workload.get_programs().at(range).native();
    }
    tessel::Device& first_chip = device_.native_device(device_.first_local_index());
    // Split over ranks, every rank runs its share as one run (collective).
    const bool split = mesh->local_chip_count() < mesh->size();
    if ((split || !shared) && !first_chip.state().capturing_trace_id) { // a trace records chip by chip
      const Program& first = mesh_workload.get_programs().at(mesh_workload.ranges_in_order().front());
      detail::run_and_report(first_chip, first, [&] { mesh->run(together); });
      return;
    }
  }
  for (const MeshCoordinateRange& range : mesh_workload.ranges_in_order()) {
    const Program& program = mesh_workload.get_programs().at(range);
    for (const MeshCoordinate& coord : range) {
      if (!device_.is_local(coord)) continue;
      tessel::CommandQueue& cq = chip_queue(coord.to_linear_index(device_.shape()));
      detail::run_and_report(cq.device(), program, [&] { cq.enqueue_program(program.native(), blocking); });
    }
  }
}

// ---- Writes ----------------------------------------------------------------

void MeshCommandQueue::enqueue_write_mesh_buffer(const std::shared_ptr<MeshBuffer>& mesh_buffer, const void* host_data,
                                                 bool blocking) {
  const MeshBuffer& buffer = checks::buffer_on(device_, mesh_buffer.get(), "enqueue_write_mesh_buffer");
  enqueue_write_shard_to_sub_grid(buffer, host_data, MeshCoordinateRange(device_.shape()), blocking);
}

void MeshCommandQueue::enqueue_write_shard_to_sub_grid(const MeshBuffer& mesh_buffer, const void* host_data,
                                                       const MeshCoordinateRange& device_range, bool) {
  const char* call = "enqueue_write_shard_to_sub_grid";
  checks::buffer_on(device_, &mesh_buffer, call);
  checks::range_in_mesh(device_, device_range, call);
  if (mesh_buffer.global_layout() == MeshBufferLayout::SHARDED) {
    if (!(device_range == MeshCoordinateRange(device_.shape()))) {
      const std::string message = std::string(call) + ": " + device_range.str() +
                                  " is part of the mesh, but a sharded buffer is written whole; pass "
                                  "MeshCoordinateRange(mesh_device->shape()), or WriteShard per device";
      throw tessel::ValidationError(message);
    }
    write_sharded(mesh_buffer, static_cast<const uint8_t*>(host_data));
    return;
  }
  for (const MeshCoordinate& coord : device_range)
    if (device_.is_local(coord))
      chip_queue(coord.to_linear_index(device_.shape()))
          .enqueue_write_buffer(mesh_buffer.get_device_buffer(coord)->native(), host_data,
                                mesh_buffer.device_local_size());
}

void MeshCommandQueue::enqueue_write_shards(const std::shared_ptr<MeshBuffer>& mesh_buffer,
                                            const std::vector<ShardDataTransfer>& shard_data_transfers, bool) {
  const char* call = "enqueue_write_shards";
  const MeshBuffer& buffer = checks::buffer_on(device_, mesh_buffer.get(), call);
  for (const ShardDataTransfer& transfer : shard_data_transfers)
    checks::chip_index(device_, transfer.shard_coord, call);
  for (const ShardDataTransfer& transfer : shard_data_transfers) // another rank writes its own shards
    if (device_.is_local(transfer.shard_coord))
      chip_queue(transfer.shard_coord.to_linear_index(device_.shape()))
          .enqueue_write_buffer(buffer.get_device_buffer(transfer.shard_coord)->native(), transfer.host_data,
                                buffer.device_local_size());
}

void MeshCommandQueue::write_sharded(const MeshBuffer& mesh_buffer, const uint8_t* host_data) {
  const ShardedBufferConfig& config = mesh_buffer.global_shard_spec();
  std::vector<uint8_t> shard(mesh_buffer.device_local_size()); // one staging copy, reused for every shard
  for (const ShardPlacement& placement : shard_placements(config, device_.shape())) {
    for_each_shard_row(config, placement, [&](size_t array_offset, size_t shard_offset, size_t bytes) {
      std::memcpy(shard.data() + shard_offset, host_data + array_offset, bytes);
    });
    for (const MeshCoordinate& coord : placement.chips)
      if (device_.is_local(coord))
        chip_queue(coord.to_linear_index(device_.shape()))
            .enqueue_write_buffer(mesh_buffer.get_device_buffer(coord)->native(), shard.data(), shard.size());
  }
}

// ---- Reads -----------------------------------------------------------------

void MeshCommandQueue::enqueue_read_mesh_buffer(void* host_data, const std::shared_ptr<MeshBuffer>& mesh_buffer, bool) {
  const char* call = "enqueue_read_mesh_buffer";
  const MeshBuffer& buffer = checks::buffer_on(device_, mesh_buffer.get(), call);
  if (buffer.global_layout() == MeshBufferLayout::SHARDED) {
    read_sharded(buffer, static_cast<uint8_t*>(host_data));
    return;
  }
  if (device_.num_devices() != 1) {
    const std::string message = std::string(call) + ": the buffer is replicated over " +
                                std::to_string(device_.num_devices()) +
                                " devices, so there is no one copy to read; read one device's with ReadShard";
    throw tessel::ValidationError(message);
  }
  chip_queue(device_.first_local_index())
      .enqueue_read_buffer(buffer.get_reference_buffer()->native(), host_data, buffer.device_local_size());
}

void MeshCommandQueue::enqueue_read_shards(const std::vector<ShardDataTransfer>& shard_data_transfers,
                                           const std::shared_ptr<MeshBuffer>& mesh_buffer, bool) {
  const char* call = "enqueue_read_shards";
  const MeshBuffer& buffer = checks::buffer_on(device_, mesh_buffer.get(), call);
  for (const ShardDataTransfer& transfer : shard_data_transfers)
    checks::chip_index(device_, transfer.shard_coord, call);
  for (const ShardDataTransfer& transfer : shard_data_transfers) // another rank reads its own shards
    if (device_.is_local(transfer.shard_coord))
      chip_queue(transfer.shard_coord.to_linear_index(device_.shape()))
          .enqueue_read_buffer(buffer.get_device_buffer(transfer.shard_coord)->native(), transfer.host_data,
                               buffer.device_local_size());
}

void MeshCommandQueue::read_sharded(const MeshBuffer& mesh_buffer, uint8_t* host_data) {
  const ShardedBufferConfig& config = mesh_buffer.global_shard_spec();
  const auto [height_replicated, width_replicated] = config.replicated_dims();
  if (height_replicated || width_replicated) {
    const std::string message = "enqueue_read_mesh_buffer: the buffer's shard_shape has a 0 dimension, so its "
                                "shards are replicated and there is no one array to assemble; read one device's "
                                "shard with ReadShard";
    throw tessel::ValidationError(message);
  }
  std::vector<uint8_t> shard(mesh_buffer.device_local_size()); // one staging copy, reused for every shard
  for (const ShardPlacement& placement : shard_placements(config, device_.shape())) {
    const MeshCoordinate& coord = placement.chips.start_coord();
    if (!device_.is_local(coord)) continue; // another rank's shard: its host reads it
    chip_queue(coord.to_linear_index(device_.shape()))
        .enqueue_read_buffer(mesh_buffer.get_device_buffer(coord)->native(), shard.data(), shard.size());
    for_each_shard_row(config, placement, [&](size_t array_offset, size_t shard_offset, size_t bytes) {
      std::memcpy(host_data + array_offset, shard.data() + shard_offset, bytes);
    });
  }
}

// ---- Events and finish -----------------------------------------------------

MeshEvent MeshCommandQueue::enqueue_record_event(std::span<const SubDeviceId> sub_device_ids,
                                                 const std::optional<MeshCoordinateRange>& device_range) {
  const char* call = "EnqueueRecordEvent";
  checks::no_sub_devices(sub_device_ids, call);
  const MeshCoordinateRange range = device_range.value_or(MeshCoordinateRange(device_.shape()));
  checks::range_in_mesh(device_, range, call);
  std::vector<std::shared_ptr<tessel::Event>> chip_events;
  chip_events.reserve(range.size());
  for (const MeshCoordinate& coord : range) {
    auto event = std::make_shared<tessel::Event>();
    if (device_.is_local(coord)) chip_queue(coord.to_linear_index(device_.shape())).enqueue_record_event(event);
    chip_events.push_back(std::move(event));
  }
  return MeshEvent(++last_event_id_, &device_, id(), range, std::move(chip_events));
}

MeshEvent MeshCommandQueue::enqueue_record_event_to_host(std::span<const SubDeviceId> sub_device_ids,
                                                         const std::optional<MeshCoordinateRange>& device_range) {
  return enqueue_record_event(sub_device_ids, device_range);
}

void MeshCommandQueue::enqueue_wait_for_event(const MeshEvent& sync_event) {
  if (sync_event.device() != &device_)
    throw tessel::ValidationError("EnqueueWaitForEvent: the event was recorded on another MeshDevice's queue; a mesh "
                                  "command queue waits only for events of its own mesh");
  size_t i = 0;
  for (const MeshCoordinate& coord : sync_event.device_range()) {
    if (device_.is_local(coord))
      chip_queue(coord.to_linear_index(device_.shape())).enqueue_wait_for_event(sync_event.chip_events()[i]);
    ++i;
  }
}

void MeshCommandQueue::finish(std::span<const SubDeviceId> sub_device_ids) {
  checks::no_sub_devices(sub_device_ids, "Finish");
  for (size_t i = 0; i < device_.num_devices(); ++i)
    if (device_.is_local_index(i)) chip_queue(i).finish();
}

} // namespace tt::tt_metal::distributed
