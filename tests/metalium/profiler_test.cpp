// The device profiler as Metalium programs use it: DeviceZoneScopedN and
// friends in kernels (no include: the prelude brings them in), the records
// through tessel's Device::profiler_records, and Metalium's
// ReadMeshDeviceProfilerResults / ReadDeviceProfilerResults writing
// profile_log_device.csv.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "tessel/device.hpp"
#include "tt-metalium/distributed.hpp"
#include "tt-metalium/host_api.hpp"
#include "tt-metalium/tt_metal_profiler.hpp"

using namespace tt::tt_metal;

namespace {

// Line numbers below are these sources' own (line 1 is the first).
// Both include Metalium's profiler header, under its two paths, as kernels
// may (the prelude has included it already).
constexpr const char* kZones = R"(#include "tools/profiler/kernel_profiler.hpp"
void kernel_main() {
  const uint32_t iterations = get_arg_val<uint32_t>(0);
  DeviceZoneScopedN("OUTER");
  for (uint32_t i = 0; i < iterations; ++i) {
    DeviceZoneScopedN("LOOP");
    {
      DeviceZoneScopedN("INNER");
      noc_async_read_barrier();
    }
  }
  DeviceTimestampedData("ITERATIONS", iterations);
  DeviceRecordEvent(42);
}
)";
constexpr uint32_t kOuterLine = 4, kLoopLine = 6, kInnerLine = 8, kDataLine = 12;

constexpr const char* kComputeZones = R"(#include "api/debug/kernel_profiler.hpp"
void kernel_main() {
  DeviceZoneScopedMainN("COMPUTE");
  for (int i = 0; i < 3; ++i) {
    DeviceZoneScopedSumN1("ACCUMULATED");
  }
}
)";

// A program with the zones kernel on BRISC (3 iterations) and NCRISC (2) of
// core (0,0), on BRISC of core (1,0) (`far_iterations`), and the compute
// kernel on core (0,0).
Program zones_program(uint32_t far_iterations = 1) {
  Program program = CreateProgram();
  const KernelHandle brisc = CreateKernelFromString(
      program, kZones, CoreRange({0, 0}, {1, 0}),
      DataMovementConfig{.processor = DataMovementProcessor::RISCV_0, .noc = NOC::RISCV_0_default});
  const KernelHandle ncrisc = CreateKernelFromString(
      program, kZones, CoreCoord{0, 0},
      DataMovementConfig{.processor = DataMovementProcessor::RISCV_1, .noc = NOC::RISCV_1_default});
  CreateKernelFromString(program, kComputeZones, CoreCoord{0, 0}, ComputeConfig{});
  SetRuntimeArgs(program, brisc, CoreCoord{0, 0}, {3});
  SetRuntimeArgs(program, brisc, CoreCoord{1, 0}, {far_iterations});
  SetRuntimeArgs(program, ncrisc, CoreCoord{0, 0}, {2});
  return program;
}

// A device with its profiler set from TESSEL_PROFILER as the test gives it.
IDevice* open_device(bool profiler) {
  if (profiler)
    setenv("TESSEL_PROFILER", "1", 1);
  else
    unsetenv("TESSEL_PROFILER");
  IDevice* device = CreateDevice(0);
  unsetenv("TESSEL_PROFILER");
  return device;
}

std::vector<tessel::ProfilerRecord> run_and_read(IDevice* device, Program& program) {
  EnqueueProgram(device->command_queue(), program, true);
  std::vector<tessel::ProfilerRecord> records = device->native().profiler_records();
  device->native().clear_profiler_records();
  return records;
}

std::vector<tessel::ProfilerRecord> of(const std::vector<tessel::ProfilerRecord>& records, tessel::CoreCoord core,
                                       tessel::ProfilerRisc risc) {
  std::vector<tessel::ProfilerRecord> out;
  for (const auto& r : records)
    if (r.core == core && r.risc == risc) out.push_back(r);
  return out;
}

// "OUTER+" for a start, "OUTER-" for an end, "ITERATIONS=3" for data, "#42" for an event.
std::vector<std::string> sequence(const std::vector<tessel::ProfilerRecord>& records) {
  std::vector<std::string> out;
  for (const auto& r : records) {
    switch (r.type) {
    case tessel::ProfilerMarkerType::ZoneStart: out.push_back(r.zone_name + "+"); break;
    case tessel::ProfilerMarkerType::ZoneEnd: out.push_back(r.zone_name + "-"); break;
    case tessel::ProfilerMarkerType::ZoneTotal: out.push_back(r.zone_name + "=" + std::to_string(r.data)); break;
    case tessel::ProfilerMarkerType::TimestampedData: out.push_back(r.zone_name + "=" + std::to_string(r.data)); break;
    case tessel::ProfilerMarkerType::Event: out.push_back("#" + std::to_string(r.timer_id)); break;
    }
  }
  return out;
}

std::vector<std::string> zones_sequence(const char* risc, int iterations) {
  std::vector<std::string> s = {std::string(risc) + "-FW+", std::string(risc) + "-KERNEL+", "OUTER+"};
  for (int i = 0; i < iterations; ++i)
    s.insert(s.end(), {"LOOP+", "INNER+", "INNER-", "LOOP-"});
  s.insert(s.end(), {"ITERATIONS=" + std::to_string(iterations), "#42", "OUTER-", std::string(risc) + "-KERNEL-",
                     std::string(risc) + "-FW-"});
  return s;
}

TEST(ProfilerTest, RecordsNestedZonesDataAndEventsPerCoreAndRisc) {
  IDevice* device = open_device(true);
  Program program = zones_program(1);
  const auto records = run_and_read(device, program);
  using tessel::ProfilerRisc;

  const auto brisc = of(records, {0, 0}, ProfilerRisc::Brisc);
  EXPECT_EQ(sequence(brisc), zones_sequence("BRISC", 3));
  EXPECT_EQ(sequence(of(records, {0, 0}, ProfilerRisc::Ncrisc)), zones_sequence("NCRISC", 2));
  EXPECT_EQ(sequence(of(records, {1, 0}, ProfilerRisc::Brisc)), zones_sequence("BRISC", 1));
  EXPECT_TRUE(of(records, {1, 0}, ProfilerRisc::Ncrisc).empty());
  // The compute kernel runs on all three TRISCs: the same markers, the same times.
  const std::vector<std::string> compute = {"TRISC-FW+",     "TRISC-KERNEL+", "COMPUTE+", "COMPUTE-",
                                            "ACCUMULATED=3", "TRISC-KERNEL-", "TRISC-FW-"};
  const auto trisc0 = of(records, {0, 0}, ProfilerRisc::Trisc0);
  EXPECT_EQ(sequence(trisc0), compute);
  for (ProfilerRisc trisc : {ProfilerRisc::Trisc1, ProfilerRisc::Trisc2}) {
    const auto other = of(records, {0, 0}, trisc);
    ASSERT_EQ(other.size(), trisc0.size());
    for (size_t i = 0; i < other.size(); ++i)
      EXPECT_EQ(other[i].time_cycles, trisc0[i].time_cycles);
  }
  EXPECT_EQ(records.size(),
            brisc.size() + zones_sequence("NCRISC", 2).size() + zones_sequence("BRISC", 1).size() + 3 * compute.size());

  // Times grow along a RISC; a zone holding one API call (the barrier) lasts
  // two cycles: the call and the end marker.
  for (size_t i = 1; i < brisc.size(); ++i)
    EXPECT_LT(brisc[i - 1].time_cycles, brisc[i].time_cycles) << i;
  for (size_t i = 0; i < brisc.size(); ++i) {
    if (brisc[i].zone_name == "INNER" && brisc[i].type == tessel::ProfilerMarkerType::ZoneStart) {
      EXPECT_EQ(brisc[i + 1].time_cycles - brisc[i].time_cycles, 2u);
    }
  }

  // Sites: the kernel's source line, one timer id per site (Metalium's hash),
  // the same on every iteration; data and events carry their values.
  std::map<std::string, uint32_t> lines, timer_ids;
  for (const auto& r : brisc) {
    if (r.type == tessel::ProfilerMarkerType::Event) {
      EXPECT_EQ(r.timer_id, 42u);
      continue;
    }
    auto [line, fresh] = lines.try_emplace(r.zone_name, r.source_line);
    EXPECT_EQ(line->second, r.source_line) << r.zone_name;
    auto [id, first] = timer_ids.try_emplace(r.zone_name, r.timer_id);
    EXPECT_EQ(id->second, r.timer_id) << r.zone_name;
    EXPECT_LT(r.timer_id, 65536u);
    EXPECT_FALSE(r.source_file.empty());
    EXPECT_EQ(r.run_host_id, 1u);
    EXPECT_EQ(r.worker_core, device->worker_core_from_logical_core({0, 0}));
  }
  EXPECT_EQ(lines.at("OUTER"), kOuterLine);
  EXPECT_EQ(lines.at("LOOP"), kLoopLine);
  EXPECT_EQ(lines.at("INNER"), kInnerLine);
  EXPECT_EQ(lines.at("ITERATIONS"), kDataLine);
  EXPECT_EQ(lines.at("BRISC-KERNEL"), 0u);
  EXPECT_NE(timer_ids.at("OUTER"), timer_ids.at("LOOP"));
  EXPECT_NE(timer_ids.at("LOOP"), timer_ids.at("INNER"));
  CloseDevice(device);
}

TEST(ProfilerTest, TimesAreTheSameInEveryRunUnderTheDeterministicPolicyAndLaterRunsComeAfter) {
  std::vector<std::vector<std::tuple<tessel::CoreCoord, tessel::ProfilerRisc, std::string, uint64_t>>> runs;
  for (int i = 0; i < 2; ++i) {
    IDevice* device = open_device(true);
    Program program = zones_program(2);
    auto& run = runs.emplace_back();
    for (const auto& r : run_and_read(device, program))
      run.emplace_back(r.core, r.risc, r.zone_name, r.time_cycles);
    if (i == 1) {
      // The same program again on this device: its run host ID is 2, and it
      // starts after everything the first run recorded.
      Program again = zones_program(2);
      const auto second = run_and_read(device, again);
      ASSERT_FALSE(second.empty());
      uint64_t first_end = 0;
      for (const auto& entry : run)
        first_end = std::max(first_end, std::get<3>(entry));
      for (const auto& r : second) {
        EXPECT_EQ(r.run_host_id, 2u);
        EXPECT_GT(r.time_cycles, first_end);
      }
    }
    CloseDevice(device);
  }
  ASSERT_FALSE(runs[0].empty());
  EXPECT_EQ(runs[0], runs[1]);
}

TEST(ProfilerTest, AFullBufferDropsTheMarkersThatDoNotFitAndWarns) {
  IDevice* device = open_device(true);
  Program program = zones_program(100); // 404 markers on BRISC of core (1,0): 250 fit
  testing::internal::CaptureStderr();
  const auto records = run_and_read(device, program);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("tessel: warning: core (1,0) BRISC: kernel '"), std::string::npos) << err;
  EXPECT_NE(err.find("recorded more profiler markers in one run than a RISC's buffer holds (250; a zone takes two): "
                     "154 were dropped"),
            std::string::npos)
      << err;
  const auto far = of(records, {1, 0}, tessel::ProfilerRisc::Brisc);
  // 62 whole iterations fit beside OUTER's start and its reserved end; the
  // data and the event do not; every start recorded has its end.
  std::vector<std::string> expected = zones_sequence("BRISC", 62);
  expected.erase(expected.end() - 5, expected.end() - 3); // ITERATIONS=62, #42
  EXPECT_EQ(sequence(far), expected);
  EXPECT_EQ(far.size(), 250u + 4u);
  // The other RISCs are not affected.
  EXPECT_EQ(sequence(of(records, {0, 0}, tessel::ProfilerRisc::Brisc)), zones_sequence("BRISC", 3));
  CloseDevice(device);
}

TEST(ProfilerTest, NothingIsRecordedOrWrittenWhenTheProfilerIsOff) {
  const std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / "tessel_profiler_off";
  std::filesystem::remove_all(dir);
  setenv("TESSEL_PROFILER_DIR", dir.c_str(), 1);
  IDevice* device = open_device(false);
  EXPECT_FALSE(device->native().profiler_enabled());
  Program program = zones_program(3);
  EXPECT_TRUE(run_and_read(device, program).empty());
  detail::ReadDeviceProfilerResults(device);
  EXPECT_FALSE(std::filesystem::exists(dir));
  unsetenv("TESSEL_PROFILER_DIR");
  CloseDevice(device);
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream ss(line);
  std::string field;
  while (std::getline(ss, field, ','))
    fields.push_back(field);
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

TEST(ProfilerTest, ReadMeshDeviceProfilerResultsWritesMetaliumsCsvAndLaterReadsAppend) {
  const std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / "tessel_profiler_csv";
  std::filesystem::remove_all(dir);
  setenv("TESSEL_PROFILER_DIR", dir.c_str(), 1);
  setenv("TT_METAL_DEVICE_PROFILER", "1", 1); // Metalium's switch turns it on too
  auto mesh = distributed::MeshDevice::create_unit_mesh(0);
  unsetenv("TT_METAL_DEVICE_PROFILER");
  ASSERT_TRUE(mesh->native_device(0).profiler_enabled());
  const distributed::MeshCoordinateRange everywhere(mesh->shape());
  const auto run = [&] {
    distributed::MeshWorkload workload;
    distributed::AddProgramToMeshWorkload(workload, zones_program(1), everywhere);
    distributed::EnqueueMeshWorkload(mesh->mesh_command_queue(), workload, true);
  };
  run();
  const std::vector<tessel::ProfilerRecord> expected = mesh->native_device(0).profiler_records();
  ReadMeshDeviceProfilerResults(*mesh);
  EXPECT_TRUE(mesh->native_device(0).profiler_records().empty()); // a read takes them

  const std::filesystem::path csv = dir / "profile_log_device.csv";
  std::ifstream in(csv);
  ASSERT_TRUE(in) << csv;
  std::string arch, header;
  std::getline(in, arch);
  std::getline(in, header);
  const tessel::Device& native = mesh->native_device(0);
  EXPECT_EQ(arch, "ARCH: " + native.arch_name() + ", CHIP_FREQ[MHz]: " + std::to_string(native.clock_mhz()) +
                      ", Max Compute Cores: " + std::to_string(native.grid().x * native.grid().y));
  EXPECT_EQ(header, "PCIe slot, core_x, core_y, RISC processor type, timer_id, time[cycles since reset], data, run "
                    "host ID, trace id, trace id counter, zone name, type, source line, source file, meta data");
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);)
    rows.push_back(split(line));
  ASSERT_EQ(rows.size(), expected.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    const auto& r = expected[i];
    ASSERT_EQ(row.size(), 15u) << i;
    EXPECT_EQ(row[0], "0");
    EXPECT_EQ(row[1], std::to_string(r.worker_core.x));
    EXPECT_EQ(row[2], std::to_string(r.worker_core.y));
    EXPECT_EQ(row[3], tessel::profiler_risc_name(r.risc));
    EXPECT_EQ(row[4], std::to_string(r.timer_id));
    EXPECT_EQ(row[5], std::to_string(r.time_cycles));
    EXPECT_EQ(row[6], std::to_string(r.data));
    EXPECT_EQ(row[7], "1");
    EXPECT_EQ(row[8] + row[9] + row[14], "");
    EXPECT_EQ(row[10], r.zone_name);
    EXPECT_EQ(row[11], tessel::profiler_marker_type_name(r.type));
    EXPECT_EQ(row[12], std::to_string(r.source_line));
    EXPECT_EQ(row[13], r.source_file);
  }
  EXPECT_EQ(rows.front()[3], "BRISC");
  EXPECT_EQ(rows.front()[10], "BRISC-FW");
  EXPECT_EQ(rows.front()[11], "ZONE_START");
  in.close();

  // A second run and read append its rows, under the same header.
  run();
  const size_t second = mesh->native_device(0).profiler_records().size();
  detail::ReadDeviceProfilerResults(mesh->get_device(0));
  std::ifstream again(csv);
  std::vector<std::string> lines;
  for (std::string line; std::getline(again, line);)
    lines.push_back(line);
  ASSERT_EQ(lines.size(), 2 + rows.size() + second);
  EXPECT_EQ(split(lines.back())[7], "2");
  unsetenv("TESSEL_PROFILER_DIR");
  mesh->close();
}

} // namespace
