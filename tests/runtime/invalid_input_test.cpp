// The invalid-input corpus: every misuse of the host API produces its exact
// message, changes nothing, and leaves the device and the program usable.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "sim/ops_kernel.hpp"

namespace tessel::test {
namespace {

constexpr CoreCoord kCore{0, 0};
const CoreRange kAll({0, 0}, {1, 1});

class InvalidInputTest : public ::testing::Test {
protected:
  void SetUp() override {
    device = open_device();
    rec = std::make_unique<Recorder>(device);
  }

  // A program with the ops kernel on BRISC of `cores` recording `value` at slot 0.
  KernelHandle add_recording_kernel(Program& p, const CoreRangeSet& cores = kCore, uint32_t value = 0x1234) {
    KernelHandle k = add_ops(p, cores);
    set_script(p, k, cores, Script().op(kRecordValue, 0, value), *rec);
    return k;
  }
  // The program runs and records `value`.
  void expect_runs(Program& p, uint32_t value = 0x1234) {
    rec->clear();
    ASSERT_NO_THROW(device->command_queue().enqueue_program(p));
    EXPECT_EQ(rec->at(0), value);
  }
  // Enqueueing fails with exactly `message` and nothing runs.
  template <class E = ValidationError>
  void expect_enqueue_fails(Program& p, const std::string& message) {
    rec->clear();
    EXPECT_EQ(error_of<E>(device->command_queue(), p), message);
    EXPECT_EQ(rec->at(0), 0u) << "a kernel ran although the enqueue failed";
  }

  std::shared_ptr<Device> device;
  std::unique_ptr<Recorder> rec;
};

// ---------------------------------------------------------------------------
// Kernels

TEST_F(InvalidInputTest, OverlappingKernelsOnOneRisc) {
  Program p;
  add_recording_kernel(p, kAll);
  EXPECT_EQ(error_from<ValidationError>([&] {
              add_ops(p, CoreRange({1, 1}, {1, 1}));
            }),
            "add_kernel: kernel 'ops.cpp' on RISCV_0 (BRISC) overlaps kernel 'ops.cpp' at core (1,1); each RISC of a "
            "core runs one kernel");
  EXPECT_EQ(p.num_kernels(), 1u);
  // The other RISC of the same cores is free.
  add_ops(p, CoreRange({1, 1}, {1, 1}), DataMovementProcessor::RISCV_1);
  p.set_runtime_args(1, CoreCoord{1, 1}, Script().op(kRecordValue, 1, 5).args(rec->noc, rec->buffer->address()));
  expect_runs(p);
  EXPECT_EQ(rec->at(1), 5u);
}

TEST_F(InvalidInputTest, UnpackToDestFp32NeedsFp32Dst) {
  Program p;
  ComputeConfig config;
  config.unpack_to_dest_mode = {UnpackToDestMode::Default, UnpackToDestMode::UnpackToDestFp32};
  EXPECT_EQ(
      error_from<ValidationError>([&] { p.add_kernel_from_source("void kernel_main() {}\n", "c.cpp", kAll, config); }),
      "add_kernel: kernel 'c.cpp' sets UnpackToDestFp32 for CB 1 without fp32_dest_acc_en; unpacking to DST "
      "in 32 bits needs the 32-bit DST");
  config.unpack_to_dest_mode.assign(65, UnpackToDestMode::Default);
  config.fp32_dest_acc_en = true;
  EXPECT_EQ(
      error_from<ValidationError>([&] { p.add_kernel_from_source("void kernel_main() {}\n", "c.cpp", kAll, config); }),
      "add_kernel: kernel 'c.cpp' has unpack_to_dest_mode for 65 CB indices; there are at most 64");
  EXPECT_EQ(p.num_kernels(), 0u);
}

TEST_F(InvalidInputTest, KernelCoresGivenBadly) {
  Program p;
  EXPECT_EQ(error_from<ValidationError>([&] { add_ops(p, CoreRangeSet()); }), "add_kernel: no cores given");
  EXPECT_EQ(error_from<ValidationError>([&] {
              add_ops(p, CoreRangeSet{kAll, CoreRange({1, 1})});
            }),
            "add_kernel: core ranges (0,0)-(1,1) and (1,1) overlap; each core may appear once");
  EXPECT_EQ(error_from<ValidationError>([&] {
              p.add_kernel_from_source(
                  ops_source(), kOpsName, kCore,
                  DataMovementConfig{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default, {}, {}, {}, 7});
            }),
            "add_kernel: kernel ops.cpp: opt_level 7 is out of range (expected -1 for the default, 0..3 for O0..O3, "
            "4 for Os, 5 for Ofast or 6 for Oz)");
  EXPECT_EQ(p.num_kernels(), 0u);
  add_recording_kernel(p);
  expect_runs(p);
}

TEST_F(InvalidInputTest, KernelFileNotFound) {
  Program p;
  const std::string message =
      error_from<ValidationError>([&] { p.add_kernel("no_such_dir/no_such_kernel.cpp", kCore, DataMovementConfig{}); });
  const std::string tried = (std::filesystem::current_path() / "no_such_dir/no_such_kernel.cpp").string();
  EXPECT_EQ(message.rfind("add_kernel: kernel file 'no_such_dir/no_such_kernel.cpp' not found; tried: " + tried, 0), 0u)
      << message;
  EXPECT_NE(
      message.find(
          "(relative paths are looked up in the working directory, then $TESSEL_KERNEL_PATH, then $TT_METAL_HOME)"),
      std::string::npos);
  EXPECT_EQ(error_from<ValidationError>([&] { p.add_kernel("/no/such/kernel.cpp", kCore, DataMovementConfig{}); }),
            "add_kernel: kernel file '/no/such/kernel.cpp' not found; tried: /no/such/kernel.cpp");
  EXPECT_EQ(p.num_kernels(), 0u);
  add_recording_kernel(p);
  expect_runs(p);
}

// A relative path not found in the working directory or $TESSEL_KERNEL_PATH
// is looked up under $TT_METAL_HOME, as TT-Metalium resolves its kernels.
TEST_F(InvalidInputTest, KernelFoundUnderTtMetalHome) {
  const std::filesystem::path home =
      std::filesystem::temp_directory_path() / ("tessel-metal-home-" + std::to_string(getpid()));
  std::filesystem::create_directories(home / "kernels");
  std::FILE* f = std::fopen((home / "kernels/home_kernel.cpp").c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("void kernel_main() {}\n", f);
  std::fclose(f);
  Program p;
  EXPECT_THROW(p.add_kernel("kernels/home_kernel.cpp", kCore, DataMovementConfig{}), ValidationError);
  setenv("TT_METAL_HOME", home.c_str(), 1);
  EXPECT_NO_THROW(p.add_kernel("kernels/home_kernel.cpp", kCore, DataMovementConfig{}));
  unsetenv("TT_METAL_HOME");
  EXPECT_EQ(p.num_kernels(), 1u);
  std::filesystem::remove_all(home);
}

TEST_F(InvalidInputTest, CompileErrorLaunchesNothing) {
  Program p;
  add_recording_kernel(p);
  p.add_kernel_from_source("#include \"dataflow_api.h\"\nvoid kernel_main() {\n  undefined_call(1);\n}\n", "broken.cpp",
                           kCore, DataMovementConfig{DataMovementProcessor::RISCV_1});
  rec->clear();
  const std::string message = error_of<ProgramError>(device->command_queue(), p);
  EXPECT_EQ(message.rfind("kernel broken.cpp failed to compile:\n", 0), 0u) << message;
  EXPECT_NE(message.find("broken.cpp:3"), std::string::npos) << message;
  // gcc quotes with ' or with typographic quotes, depending on the locale.
  EXPECT_NE(message.find("undefined_call"), std::string::npos) << message;
  EXPECT_NE(message.find("was not declared in this scope"), std::string::npos) << message;
  EXPECT_EQ(rec->at(0), 0u) << "the good kernel ran although the program failed to build";
  expect_device_works(device);
}

TEST_F(InvalidInputTest, KernelWithoutKernelMain) {
  Program p;
  p.add_kernel_from_source("#include \"dataflow_api.h\"\nvoid kernel_mian() {}\n", "typo.cpp", kCore,
                           DataMovementConfig{});
  // Found when the kernel is loaded, before anything is launched.
  EXPECT_EQ(error_of<ProgramError>(device->command_queue(), p),
            "kernel typo.cpp defines no kernel_main() (nor NAMESPACE { void MAIN { ... } }); nothing was launched");
  expect_device_works(device);
}

TEST_F(InvalidInputTest, ProgramWithoutKernels) {
  Program p;
  p.add_circular_buffer(kCore, one_cb_config(64, 32));
  expect_enqueue_fails(p, "enqueue_program: the program has no kernels");
  add_recording_kernel(p);
  expect_runs(p);
}

TEST_F(InvalidInputTest, KernelOutsideTheGrid) {
  Program p;
  add_recording_kernel(p, CoreRange({1, 0}, {2, 0}));
  expect_enqueue_fails(p, "enqueue_program: kernel 'ops.cpp' is placed on cores (1,0)-(2,0), outside the 2x2 worker "
                          "grid of blackhole");
  expect_device_works(device);
}

TEST_F(InvalidInputTest, CbAndSemaphoreOutsideTheGrid) {
  Program p;
  add_recording_kernel(p);
  p.add_circular_buffer(CoreCoord{0, 2}, one_cb_config(64, 32));
  expect_enqueue_fails(p, "enqueue_program: circular buffer config 0 is placed on cores (0,2), outside the 2x2 worker "
                          "grid of blackhole");
  Program q;
  add_recording_kernel(q);
  q.add_semaphore(CoreRange({0, 0}, {5, 5}), 0);
  expect_enqueue_fails(q, "enqueue_program: semaphore 0 is placed on cores (0,0)-(5,5), outside the 2x2 worker grid "
                          "of blackhole");
  expect_device_works(device);
}

TEST_F(InvalidInputTest, WorkerCoreOutsideTheGrid) {
  EXPECT_EQ(error_from<ValidationError>([&] {
              device->worker_core_from_logical_core({2, 1});
            }),
            "worker_core_from_logical_core: logical core (2,1) is outside the 2x2 worker grid of blackhole");
}

// ---------------------------------------------------------------------------
// Circular buffers

TEST_F(InvalidInputTest, CbIndexOutOfRange) {
  Program p;
  add_recording_kernel(p);
  EXPECT_EQ(error_from<ValidationError>([&] { p.add_circular_buffer(kCore, one_cb_config(64, 32, 64)); }),
            "add_circular_buffer: CB 64 is out of range; CB indices are 0..63 (0..31 on wormhole_b0)");
  p.add_circular_buffer(kCore, one_cb_config(64, 32, 63)); // the last index is fine on blackhole
  expect_runs(p);
}

TEST_F(InvalidInputTest, CbIndexOutOfRangeOnWormholeAtEnqueue) {
  device = open_device("wormhole_b0");
  rec = std::make_unique<Recorder>(device);
  Program p;
  add_recording_kernel(p);
  p.add_circular_buffer(kCore, one_cb_config(64, 32, 40)); // valid on blackhole, so accepted until the device is known
  expect_enqueue_fails(p, "enqueue_program: CB index 40 is out of range for wormhole_b0, which has 32 CB indices");
  expect_device_works(device);
  Program q;
  add_recording_kernel(q);
  q.add_circular_buffer(kCore, one_cb_config(64, 32, 31));
  expect_runs(q);
}

TEST_F(InvalidInputTest, CbSizesThatDoNotFit) {
  Program p;
  add_recording_kernel(p);
  EXPECT_EQ(error_from<ValidationError>([&] { p.add_circular_buffer(kCore, one_cb_config(96, 64)); }),
            "add_circular_buffer: CB 0: total size 96 is not a multiple of its page size 64");
  // A page size that divides the total is what silicon takes: not a multiple
  // of the L1 alignment is a warning, an error under TESSEL_STRICT=1.
  const std::string unaligned = "add_circular_buffer: CB 0: page size 24 is not a multiple of the 16-byte L1 "
                                "alignment: NoC transfers into or out of its pages must share their misalignment";
  setenv("TESSEL_STRICT", "1", 1);
  EXPECT_EQ(error_from<ValidationError>([&] { p.add_circular_buffer(kCore, one_cb_config(96, 24)); }),
            unaligned + " (a warning, made an error by TESSEL_STRICT=1)");
  unsetenv("TESSEL_STRICT");
  {
    Program q;
    testing::internal::CaptureStderr();
    EXPECT_NO_THROW(q.add_circular_buffer(kCore, one_cb_config(96, 24)));
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "tessel: warning: " + unaligned + "\n");
  }
  EXPECT_EQ(error_from<ValidationError>([&] {
              p.add_circular_buffer(kCore, CircularBufferConfig(96, {{0, DataFormat::Float16_b}}));
            }),
            "add_circular_buffer: CB 0 has no page size; call set_page_size(0, bytes)");
  EXPECT_EQ(error_from<ValidationError>([&] { p.add_circular_buffer(kCore, one_cb_config(0, 32)); }),
            "add_circular_buffer: total size is 0");
  EXPECT_EQ(error_from<ValidationError>([&] { p.add_circular_buffer(kCore, CircularBufferConfig(64, {})); }),
            "add_circular_buffer: the config names no CB index");
  EXPECT_EQ(error_from<ValidationError>([&] {
              p.add_circular_buffer(kCore, CircularBufferConfig(64, {{0, DataFormat::Invalid}}).set_page_size(0, 32));
            }),
            "add_circular_buffer: CB 0 has no valid data format");
  EXPECT_EQ(error_from<ValidationError>([&] {
              CircularBufferConfig(64, {{0, DataFormat::Float16_b}}).set_page_size(3, 32);
            }),
            "CircularBufferConfig::set_page_size: CB index 3 has no data format in this config; give it one in the "
            "constructor");
  // 16-bit page counters: a CB holds at most 65535 pages.
  EXPECT_EQ(error_from<ValidationError>([&] { p.add_circular_buffer(kCore, one_cb_config(65536 * 16, 16)); }),
            "add_circular_buffer: CB 0: 65536 pages of 16 bytes; a CB holds at most 65535 pages (its page counters "
            "are 16-bit)");
  p.add_circular_buffer(kCore, one_cb_config(65535 * 16, 16));
  expect_runs(p);
}

TEST_F(InvalidInputTest, CbIndexConfiguredTwiceOnACore) {
  Program p;
  add_recording_kernel(p);
  p.add_circular_buffer(kAll, one_cb_config(64, 32, 3));
  EXPECT_EQ(error_from<ValidationError>([&] {
              p.add_circular_buffer(CoreRange({1, 1}, {1, 1}), one_cb_config(64, 32, 3));
            }),
            "add_circular_buffer: CB 3 is already configured on core (1,1)");
  expect_runs(p);
}

TEST_F(InvalidInputTest, L1OverflowFromCbsAlone) {
  Program p;
  add_recording_kernel(p);
  p.add_circular_buffer(kCore, one_cb_config(1 << 20, 1024, 0));
  const uint32_t available = device->l1_size() - 0x4000;
  EXPECT_EQ(error_from<ValidationError>([&] { p.add_circular_buffer(kCore, one_cb_config(1 << 19, 1024, 1)); }),
            "add_circular_buffer: the program's circular buffers would need " + std::to_string((1 << 20) + (1 << 19)) +
                " bytes of L1 on core (0,0), more than the " + std::to_string(available) + " bytes available");
  // Nothing of the failed config was kept: a smaller one still fits after the first.
  p.add_circular_buffer(kCore, one_cb_config(1 << 18, 1024, 1));
  expect_runs(p);
}

TEST_F(InvalidInputTest, L1OverflowFromCbsAndL1Buffers) {
  Program p;
  add_recording_kernel(p);
  p.add_circular_buffer(kAll, one_cb_config(1 << 20, 1024));
  auto big = Buffer::create(device, {4 * 600 * 1024, 600 * 1024, BufferType::L1});
  expect_enqueue_fails(p, "enqueue_program: the program's circular buffers occupy L1 up to offset " +
                              std::to_string(0x4000 + (1 << 20)) + ", but an L1 buffer starts at offset " +
                              std::to_string(big->address()) + " (L1 is " + std::to_string(device->l1_size()) +
                              " bytes per core: reduce the CBs or free L1 buffers)");
  big.reset();
  expect_runs(p);
}

// ---------------------------------------------------------------------------
// Runtime arguments

TEST_F(InvalidInputTest, TooManyRuntimeArgs) {
  Program p;
  KernelHandle k = add_recording_kernel(p);
  const std::vector<uint32_t> words342(342, 0), words300(300, 0), words42(42, 0), words41(41, 0);
  EXPECT_EQ(error_from<ValidationError>([&] { p.set_runtime_args(k, kCore, words342); }),
            "set_runtime_args: kernel 'ops.cpp' would get 342 unique + 0 common runtime args; at most 341 in total "
            "per core");
  EXPECT_EQ(p.runtime_args(k, kCore).size(), 12u); // unchanged
  p.set_common_runtime_args(k, words42);
  EXPECT_EQ(error_from<ValidationError>([&] { p.set_runtime_args(k, kCore, words300); }),
            "set_runtime_args: kernel 'ops.cpp' would get 300 unique + 42 common runtime args; at most 341 in total "
            "per core");
  p.set_common_runtime_args(k, words41);
  std::vector<uint32_t> args = Script().op(kRecordValue, 0, 0x1234).args(rec->noc, rec->buffer->address());
  args.resize(300, 0); // 300 + 41 = 341 is the limit
  p.set_runtime_args(k, kCore, args);
  EXPECT_EQ(error_from<ValidationError>([&] { p.set_common_runtime_args(k, words42); }),
            "set_common_runtime_args: kernel 'ops.cpp' would get 300 unique + 42 common runtime args; at most 341 in "
            "total per core");
  EXPECT_EQ(p.common_runtime_args(k).size(), 41u); // unchanged
  expect_runs(p);
}

TEST_F(InvalidInputTest, RuntimeArgsOnACoreOutsideTheKernel) {
  Program p;
  KernelHandle k = add_recording_kernel(p, CoreRange({0, 0}, {1, 0}));
  const std::vector<uint32_t> other = {1, 2, 3};
  EXPECT_EQ(error_from<ValidationError>([&] {
              p.set_runtime_args(k, CoreRangeSet{CoreRange({0, 0}), CoreRange({1, 1})}, other);
            }),
            "set_runtime_args: core (1,1) is not one of the cores of kernel 'ops.cpp', {(0,0)-(1,0)}");
  // Validated before anything changed: (0,0) keeps its args.
  EXPECT_EQ(p.runtime_args(k, kCore).size(), 12u);
  EXPECT_EQ(error_from<ValidationError>([&] { p.set_runtime_args(9, kCore, other); }),
            "set_runtime_args: kernel handle 9 does not exist (the program has 1 kernels)");
  EXPECT_EQ(error_from<ValidationError>([&] { p.set_common_runtime_args(9, other); }),
            "set_common_runtime_args: kernel handle 9 does not exist (the program has 1 kernels)");
  expect_runs(p);
}

// ---------------------------------------------------------------------------
// Semaphores

TEST_F(InvalidInputTest, TooManySemaphores) {
  Program p;
  add_recording_kernel(p);
  for (uint32_t i = 0; i < 16; ++i)
    EXPECT_EQ(p.add_semaphore(kCore, i), i);
  EXPECT_EQ(error_from<ValidationError>([&] { p.add_semaphore(kCore, 0); }),
            "add_semaphore: a program has at most 16 semaphores");
  EXPECT_EQ(error_from<ValidationError>([&] { Program().add_semaphore(CoreRangeSet(), 0); }),
            "add_semaphore: no cores given");
  expect_runs(p);
}

// ---------------------------------------------------------------------------
// Buffers

TEST_F(InvalidInputTest, BufferSizeNotAMultipleOfThePage) {
  EXPECT_EQ(error_from<ValidationError>([&] {
              Buffer::create(device, {100, 64, BufferType::DRAM});
            }),
            "Buffer::create: size 100 is not a multiple of the page size 64");
  EXPECT_EQ(error_from<ValidationError>([&] {
              Buffer::create(device, {0, 64, BufferType::L1});
            }),
            "Buffer::create: size (0) and page size (64) must both be non-zero");
  EXPECT_EQ(error_from<ValidationError>([&] {
              Buffer::create(device, {64, 0, BufferType::L1});
            }),
            "Buffer::create: size (64) and page size (0) must both be non-zero");
  EXPECT_EQ(error_from<ValidationError>([&] {
              Buffer::create(nullptr, {64, 64, BufferType::L1});
            }),
            "Buffer::create: device is null");
  expect_device_works(device);
}

TEST_F(InvalidInputTest, OutOfDramMemory) {
  const uint64_t size = 40ull << 30, page = 1 << 20; // 5 GiB per bank; banks are 4 GiB
  EXPECT_EQ(error_from<OutOfMemoryError>([&] {
              Buffer::create(device, {size, uint32_t(page), BufferType::DRAM});
            }),
            "Buffer::create: out of DRAM memory: 42949672960 bytes need 5368709120 bytes in each of 8 banks, but the "
            "largest free range is " +
                std::to_string(device->dram_bank_size() - 64) + " bytes"); // above the barrier slot
  // Address space is not consumed by the failure: 3 GiB per bank still fits.
  auto fits = Buffer::create(device, {24ull << 30, uint32_t(page), BufferType::DRAM});
  EXPECT_TRUE(fits->is_allocated());
  expect_device_works(device);
}

TEST_F(InvalidInputTest, OutOfL1Memory) {
  const uint32_t largest = device->l1_size() - 0x4000 - Recorder::kBytes;
  EXPECT_EQ(error_from<OutOfMemoryError>([&] {
              Buffer::create(device, {8u << 20, 1 << 20, BufferType::L1});
            }),
            "Buffer::create: out of L1 memory: 8388608 bytes need 2097152 bytes in each of 4 banks, but the largest "
            "free range is " +
                std::to_string(largest) + " bytes");
  auto fits = Buffer::create(device, {4ull * largest, largest, BufferType::L1});
  EXPECT_EQ(fits->address(), 0x4000u);
  EXPECT_THROW(Buffer::create(device, {64, 64, BufferType::L1}), OutOfMemoryError);
  fits.reset();
  expect_device_works(device);
}

TEST_F(InvalidInputTest, TransfersOfTheWrongSize) {
  auto b = Buffer::create(device, {64, 64, BufferType::DRAM});
  std::vector<uint8_t> small(8), big(128);
  EXPECT_EQ(error_from<ValidationError>([&] { device->command_queue().enqueue_write_buffer(*b, small); }),
            "enqueue_write_buffer: 8 bytes given for a buffer of 64 bytes; expected exactly the buffer's size");
  EXPECT_EQ(error_from<ValidationError>([&] { device->command_queue().enqueue_write_buffer(*b, big); }),
            "enqueue_write_buffer: 128 bytes given for a buffer of 64 bytes; expected exactly the buffer's size");
  EXPECT_EQ(error_from<ValidationError>([&] { device->command_queue().enqueue_read_buffer(*b, big.data(), 32); }),
            "enqueue_read_buffer: 32 bytes given for a buffer of 64 bytes; expected exactly the buffer's size");
  std::vector<uint8_t> right(64, 9), back;
  device->command_queue().enqueue_write_buffer(*b, right);
  device->command_queue().enqueue_read_buffer(*b, back);
  EXPECT_EQ(back, right);
}

TEST_F(InvalidInputTest, HostPointersThatAreNoMemory) {
  auto b = Buffer::create(device, {8192, 1024, BufferType::DRAM});
  CommandQueue& cq = device->command_queue();
  EXPECT_EQ(error_from<ValidationError>([&] { cq.enqueue_read_buffer(*b, nullptr, 8192); }),
            "enqueue_read_buffer: the host pointer is null; expected the address of 8192 bytes of host memory to read "
            "into");
  EXPECT_EQ(error_from<ValidationError>([&] { cq.enqueue_write_buffer(*b, nullptr, 8192); }),
            "enqueue_write_buffer: the host pointer is null; expected the address of 8192 bytes of host memory to "
            "write from");
  EXPECT_EQ(error_from<ValidationError>([&] { cq.enqueue_read_buffer(*b, reinterpret_cast<void*>(0x40), 8192); }),
            "enqueue_read_buffer: the host pointer 0x40 is not an address (nothing is mapped below 64 KiB); expected "
            "the address of 8192 bytes of host memory to read into");
  EXPECT_EQ(error_from<ValidationError>([&] { b->read(reinterpret_cast<void*>(~uintptr_t(0) - 100), 8192); }),
            "Buffer::read: the host range at 0xffffffffffffff9b of 8192 bytes wraps past the address space; expected "
            "the address of 8192 bytes of host memory to read into");
  // Memory that was mapped once and is no more (the second of two pages).
  const long page = sysconf(_SC_PAGESIZE);
  auto* two =
      static_cast<uint8_t*>(mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(two, MAP_FAILED);
  munmap(two + page, page);
  const std::string message = error_from<ValidationError>([&] { cq.enqueue_write_buffer(*b, two, 8192); });
  char expected[160];
  std::snprintf(expected, sizeof expected, "enqueue_write_buffer: the host range [%p, %p) is not mapped memory (from ",
                static_cast<void*>(two), static_cast<void*>(two + 8192));
  EXPECT_EQ(message.rfind(expected, 0), 0u) << message;
  munmap(two, page);
  // The buffer and the device are as they were.
  std::vector<uint8_t> right(8192, 3), back;
  cq.enqueue_write_buffer(*b, right);
  cq.enqueue_read_buffer(*b, back);
  EXPECT_EQ(back, right);
  expect_device_works(device);
}

// ---------------------------------------------------------------------------
// Devices

TEST_F(InvalidInputTest, BadDeviceConfigs) {
  EXPECT_EQ(error_from<ValidationError>([] { Device::open({"grayskull"}); }),
            "unknown architecture 'grayskull': expected 'blackhole' or 'wormhole_b0'");
  EXPECT_EQ(error_from<ValidationError>([] { open_device("blackhole", 2, 2, "random:abc"); }),
            "scheduling policy 'random:abc': the seed must be a whole number from 0 to 18446744073709551615");
  EXPECT_EQ(error_from<ValidationError>([] { open_device("blackhole", 2, 2, ""); }),
            "unknown scheduling policy '': expected 'deterministic', 'random:<seed>', 'parallel' or "
            "'parallel:<threads>'");
  EXPECT_EQ(error_from<ValidationError>([] { open_device("blackhole", 2, 2, "parallel:0"); }),
            "scheduling policy 'parallel:0': the thread count must be a whole number from 1 to 64");
  EXPECT_EQ(error_from<ValidationError>([] { open_device("blackhole", 2, 2, "parallel:65"); }),
            "scheduling policy 'parallel:65': the thread count must be a whole number from 1 to 64");
  EXPECT_EQ(error_from<ValidationError>([] { open_device("blackhole", 0, 3); }),
            "grid 0x3 is not valid for blackhole: expected 1x1 up to 63x62");
  EXPECT_EQ(error_from<ValidationError>([] { open_device("wormhole_b0", 64, 1); }),
            "grid 64x1 is not valid for wormhole_b0: expected 1x1 up to 63x63");
  EXPECT_EQ(error_from<ValidationError>([] { open_device("blackhole", 17, 16); }),
            "grid 17x16 has 272 cores: at most 256 are supported");
  // The existing device is unaffected, and a good config opens.
  expect_device_works(device);
  expect_device_works(open_device("wormhole_b0", 1, 1));
}

TEST_F(InvalidInputTest, MalformedEnvironmentVariablesNameThemselves) {
  setenv("TESSEL_KERNEL_INCLUDE_DIR", "/nonexistent/include", 1);
  DeviceConfig config;
  config.kernel_cache_dir = (std::filesystem::temp_directory_path() / "tessel-env-test-cache").string();
  EXPECT_EQ(error_from<ValidationError>([&] { Device::open(config); }),
            "TESSEL_KERNEL_INCLUDE_DIR='/nonexistent/include' is not valid: it holds no tessel/kernel_prelude.h "
            "(expected tessel's kernel/include directory)");
  unsetenv("TESSEL_KERNEL_INCLUDE_DIR");
  setenv("TESSEL_WATCHDOG_S", "ten", 1);
  EXPECT_EQ(error_from<ValidationError>([&] { Device::open(config); }),
            "TESSEL_WATCHDOG_S='ten' is not valid: expected a number of seconds, 0 or more (e.g. 10 or 0.5; 0 turns "
            "it off)");
  unsetenv("TESSEL_WATCHDOG_S");
  // TESSEL_POLICY is the compat devices' (docs/compat.md): malformed, an
  // error at any device's open; another policy than the device's, a warning
  // (an error under TESSEL_STRICT=1), so nobody believes a run used it.
  setenv("TESSEL_POLICY", "parallel:x", 1);
  EXPECT_EQ(error_from<ValidationError>([&] { Device::open(config); }),
            "TESSEL_POLICY='parallel:x' is not valid: scheduling policy 'parallel:x': the thread count must be a "
            "whole number from 1 to 64");
  setenv("TESSEL_POLICY", "parallel:3", 1);
  const std::string ignored = "TESSEL_POLICY=parallel:3 is read by compat devices only (docs/compat.md); this "
                              "device runs under deterministic, as its front door set it (tessel run --policy, "
                              "DeviceConfig::policy, Device.open(policy=), Session(policy=))";
  setenv("TESSEL_STRICT", "1", 1);
  EXPECT_EQ(error_from<ValidationError>([&] { Device::open(config); }),
            ignored + " (a warning, made an error by TESSEL_STRICT=1)");
  unsetenv("TESSEL_STRICT");
  testing::internal::CaptureStderr();
  EXPECT_EQ(Device::open(config)->policy(), "deterministic");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "tessel: warning: " + ignored + "\n");
  DeviceConfig same = config;
  same.policy = "parallel:3";
  testing::internal::CaptureStderr();
  EXPECT_EQ(Device::open(same)->policy(), "parallel:3");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  unsetenv("TESSEL_POLICY");
  // Nothing was left half open: this device and a new one work.
  expect_device_works(device);
  expect_device_works(open_device());
}

TEST_F(InvalidInputTest, ClosedDevice) {
  Program p;
  add_recording_kernel(p);
  device->close();
  EXPECT_EQ(error_of<ValidationError>(device->command_queue(), p), "enqueue_program: the device is closed");
  EXPECT_EQ(error_from<ValidationError>([&] { device->set_policy("deterministic"); }),
            "Device::set_policy: the device is closed");
}

} // namespace
} // namespace tessel::test

namespace tessel::test {
namespace {

TEST(InvalidKernelInputTest, BadDefinesAndEmptySourceFailAtAddKernel) {
  Program p;
  DataMovementConfig bad_define;
  bad_define.defines = {{"A=B", "1"}};
  try {
    p.add_kernel_from_source("void kernel_main() {}\n", "k.cpp", CoreCoord{0, 0}, bad_define);
    ADD_FAILURE() << "a define named 'A=B' was accepted";
  } catch (const ValidationError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("add_kernel: kernel k.cpp: define 'A=B'", 0), 0u) << e.what();
  }
  EXPECT_THROW(p.add_kernel_from_source("  \n", "empty.cpp", CoreCoord{0, 0}, DataMovementConfig{}), ValidationError);
  EXPECT_EQ(p.num_kernels(), 0u);
}

} // namespace
} // namespace tessel::test
