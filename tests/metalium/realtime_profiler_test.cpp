// The real-time profiler as Metalium's realtime-profiler example uses it:
// a callback per batch (or per record) receives each program run's runtime id,
// chip, start and end cycles, clock and kernel sources.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "tt-metalium/distributed.hpp"
#include "tt-metalium/experimental/realtime_profiler.hpp"

using namespace tt::tt_metal;
namespace rt = tt::tt_metal::experimental;

namespace {

struct Seen {
  uint32_t runtime_id, chip_id;
  uint64_t start, end;
  double frequency;
  std::vector<std::string> sources;
};

void run(distributed::MeshDevice& mesh, uint64_t runtime_id) {
  Program program = CreateProgram();
  CreateKernelFromString(program, "void kernel_main() {}\n", CoreCoord{0, 0}, DataMovementConfig{});
  CreateKernelFromString(program, "void kernel_main() {}\n", CoreCoord{1, 0}, ComputeConfig{});
  program.set_runtime_id(runtime_id);
  distributed::MeshWorkload workload;
  workload.add_program(distributed::MeshCoordinateRange(mesh.shape()), std::move(program));
  distributed::EnqueueMeshWorkload(mesh.mesh_command_queue(), workload, false);
}

TEST(RealtimeProfilerTest, EachProgramRunIsReportedToEveryCallbackInOrder) {
  setenv("TESSEL_TIMING", "1", 1);
  auto mesh = distributed::MeshDevice::create_unit_mesh(0);
  unsetenv("TESSEL_TIMING");
  std::vector<Seen> batches, records;
  uint64_t dropped = 0;
  const auto keep = [](std::vector<Seen>& into, const rt::ProgramRealtimeRecord& r) {
    Seen s{r.runtime_id, r.chip_id, r.start_timestamp, r.end_timestamp, r.frequency, {}};
    for (std::string_view source : r.kernel_sources)
      s.sources.emplace_back(source);
    into.push_back(std::move(s));
  };
  const rt::ProgramRealtimeProfilerCallbackHandle by_batch =
      rt::RegisterProgramRealtimeProfilerCallback([&](const rt::ProgramRealtimeRecordBatch& batch) {
        for (const rt::ProgramRealtimeRecord& r : batch.records)
          keep(batches, r);
        dropped += batch.dropped;
      });
  const rt::ProgramRealtimeProfilerCallbackHandle by_record =
      rt::RegisterProgramRealtimeProfilerCallback([&](const rt::ProgramRealtimeRecord& r) { keep(records, r); });
  EXPECT_TRUE(rt::IsProgramRealtimeProfilerActive());
  for (uint64_t id : {1u, 2u, 0x12345u})
    run(*mesh, id);
  mesh->quiesce_devices();
  ASSERT_EQ(batches.size(), 3u);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(dropped, 0u);
  const double cycles_per_ns = mesh->native_device(0).clock_mhz() / 1000.0;
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(batches[i].runtime_id, (std::vector<uint32_t>{1, 2, 0x2345})[i]) << "16 bits, as Metalium's";
    EXPECT_EQ(records[i].runtime_id, batches[i].runtime_id);
    EXPECT_EQ(batches[i].chip_id, 0u);
    EXPECT_DOUBLE_EQ(batches[i].frequency, cycles_per_ns);
    EXPECT_LT(batches[i].start, batches[i].end) << "a run takes estimated cycles";
    EXPECT_EQ(batches[i].sources.size(), 2u);
    if (i > 0) {
      EXPECT_EQ(batches[i].start, batches[i - 1].end) << "estimated runs follow each other";
    }
  }
  rt::UnregisterProgramRealtimeProfilerCallback(by_batch);
  rt::UnregisterProgramRealtimeProfilerCallback(by_record);
  run(*mesh, 4);
  EXPECT_EQ(batches.size(), 3u) << "nothing is reported after unregistering";
  try {
    rt::UnregisterProgramRealtimeProfilerCallback(by_batch);
    ADD_FAILURE() << "a second unregister was accepted";
  } catch (const tessel::ValidationError& e) {
    EXPECT_EQ(std::string(e.what()), "UnregisterProgramRealtimeProfilerCallback: callback " + std::to_string(by_batch) +
                                         " is not registered (never, or already unregistered)");
  }
  EXPECT_TRUE(mesh->close());
}

} // namespace
