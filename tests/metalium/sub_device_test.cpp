// A mesh opened as Metalium's trace-and-events example opens it: two command
// queues and an Ethernet dispatch core type, sub-devices given as
// SubDevice(std::array{CoreRangeSet(...)}) in a sub-device manager, I/O on
// one queue and programs on the other, synchronized with events.
#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "tt-metalium/distributed.hpp"
#include "tt-metalium/sub_device.hpp"
#include "tt-metalium/tensor_accessor_args.hpp"

using namespace tt;
using namespace tt::tt_metal;
using namespace tt::tt_metal::distributed;

namespace {

std::string validation_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const tessel::ValidationError& e) {
    return e.what();
  }
  return "no error";
}

// Adds 1 to each word of a DRAM page.
constexpr const char* kIncrement = R"(#include <cstdint>
void kernel_main() {
  constexpr auto args = TensorAccessorArgs<0>();
  const auto in = TensorAccessor(args, get_arg_val<uint32_t>(0), 64);
  const uint32_t scratch = get_write_ptr(0);
  noc_async_read_page(0, in, scratch);
  noc_async_read_barrier();
  volatile uint32_t* words = reinterpret_cast<volatile uint32_t*>(scratch);
  for (uint32_t i = 0; i < 16; ++i) words[i] = words[i] + 1;
  noc_async_write_page(0, in, scratch);
  noc_async_write_barrier();
}
)";

TEST(SubDeviceTest, TwoCommandQueuesAndASubDeviceManagerRunAsMetaliumsExampleUsesThem) {
  auto mesh = MeshDevice::create_unit_mesh(0, 0, 16 << 20, 2, DispatchCoreType::ETH);
  EXPECT_EQ(mesh->num_command_queues(), 2);
  auto& io_cq = mesh->mesh_command_queue(1);
  auto& work_cq = mesh->mesh_command_queue(0);
  EXPECT_EQ(io_cq.id(), 1u);
  EXPECT_EQ(validation_error([&] { mesh->mesh_command_queue(2); }),
            "MeshDevice::mesh_command_queue: command queue 2 does not exist; this mesh has two command queues, ids 0 "
            "and 1");

  SubDevice first(std::array{CoreRangeSet(CoreRange({0, 0}, {0, 0}))});
  SubDevice second(std::array{CoreRangeSet(CoreRange({1, 1}, {1, 1}))});
  EXPECT_EQ(second.cores(HalProgrammableCoreType::TENSIX).num_cores(), 1u);
  EXPECT_FALSE(second.has_core_type(HalProgrammableCoreType::ACTIVE_ETH));
  const SubDeviceManagerId manager = mesh->create_sub_device_manager({first, second}, 3200);
  EXPECT_EQ(mesh->get_active_sub_device_manager_id(), 0u);
  mesh->load_sub_device_manager(manager);
  EXPECT_EQ(mesh->get_active_sub_device_manager_id(), manager);
  EXPECT_EQ(mesh->get_sub_device_ids(), (std::vector<SubDeviceId>{0, 1}));

  // I/O on queue 1, the program on queue 0 (on the second sub-device's core), events between them.
  auto page = MeshBuffer::create(ReplicatedBufferConfig{.size = 64},
                                 DeviceLocalBufferConfig{.page_size = 64, .buffer_type = BufferType::DRAM}, mesh.get());
  std::vector<uint32_t> words(16, 41), back;
  EnqueueWriteMeshBuffer(io_cq, page, words);
  work_cq.enqueue_wait_for_event(io_cq.enqueue_record_event());
  const CoreCoord core = *second.cores(HalProgrammableCoreType::TENSIX).ranges().front().begin();
  Program program = CreateProgram();
  CreateCircularBuffer(program, core,
                       CircularBufferConfig(64, {{tt::CBIndex::c_0, tt::DataFormat::UInt32}}).set_page_size(0, 64));
  std::vector<uint32_t> cta;
  TensorAccessorArgs(*page).append_to(cta);
  const KernelHandle k = CreateKernelFromString(program, kIncrement, core, DataMovementConfig{.compile_args = cta});
  SetRuntimeArgs(program, k, core, {page->address()});
  MeshWorkload workload;
  workload.add_program(MeshCoordinateRange(mesh->shape()), std::move(program));
  EnqueueMeshWorkload(work_cq, workload, false);
  io_cq.enqueue_wait_for_event(work_cq.enqueue_record_event());
  EnqueueReadMeshBuffer(io_cq, back, page, true);
  EXPECT_EQ(back, std::vector<uint32_t>(16, 42));

  EXPECT_EQ(validation_error([&] { mesh->remove_sub_device_manager(manager); }),
            "MeshDevice::remove_sub_device_manager: sub-device manager 1 is the active one; load another (or "
            "clear_loaded_sub_device_manager) first");
  mesh->clear_loaded_sub_device_manager();
  mesh->remove_sub_device_manager(manager);
  EXPECT_EQ(validation_error([&] { mesh->load_sub_device_manager(manager); }),
            "MeshDevice::load_sub_device_manager: sub-device manager 1 does not exist on this mesh (never created, or "
            "removed)");
  mesh->close();
}

TEST(SubDeviceTest, SubDevicesThatDoNotSplitTheGridAreRejected) {
  auto mesh = MeshDevice::create_unit_mesh(0);
  const SubDevice a(std::array{CoreRangeSet(CoreRange({0, 0}, {1, 1}))});
  const SubDevice b(std::array{CoreRangeSet(CoreRange({1, 1}, {2, 2}))});
  EXPECT_EQ(validation_error([&] {
              mesh->create_sub_device_manager({a, b}, 0);
            }),
            "MeshDevice::create_sub_device_manager: sub-device 1 and sub-device 0 share cores; expected each core in "
            "at most one sub-device");
  const SubDevice outside(std::array{CoreRangeSet(CoreRange({0, 0}, {40, 0}))});
  EXPECT_EQ(validation_error([&] { mesh->create_sub_device_manager({outside}, 0); }),
            "MeshDevice::create_sub_device_manager: sub-device 0's cores [(x=0,y=0) - (x=40,y=0)] are not all inside "
            "the 12x10 worker grid");
  const SubDevice ethernet(
      std::array{CoreRangeSet(CoreRange({0, 0}, {0, 0})), CoreRangeSet(CoreRange({0, 0}, {0, 0}))});
  EXPECT_EQ(validation_error([&] { mesh->create_sub_device_manager({ethernet}, 0); }),
            "MeshDevice::create_sub_device_manager: sub-device 0 has Ethernet cores; tessel devices have Tensix worker "
            "cores only");
  EXPECT_EQ(validation_error([] { MeshDevice::create_unit_mesh(0, 0, 0, 3); }),
            "MeshDevice::create_unit_mesh: 3 command queues requested; expected 1 or 2");
  mesh->close();
}

} // namespace
