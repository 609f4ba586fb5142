// Kernels written for TT-Metalium's named kernel arguments (Metal 2.0):
// get_arg(args::<name>) over runtime, common runtime and compile-time
// arguments, DataflowBuffer(dfb::<name>), TensorAccessor(tensor::<name>),
// sem::<name> and the varargs, all declared by the JIT from the kernel's
// KernelBindings, and what add_kernel refuses in those bindings.
#include <gtest/gtest.h>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

// Reads pages [first, first + count) of tensor::src into dfb::in. `count` is a
// runtime argument, `first` the first vararg, the page size a compile-time one.
constexpr const char* kReader = R"(#include "api/dataflow/dataflow_buffer.h"
#include "api/dataflow/noc.h"
#include "api/tensor/noc_traits.h"
#include "experimental/kernel_args.h"

void kernel_main() {
  const uint32_t count = get_arg(args::count);
  const uint32_t first = get_vararg(0);
  constexpr uint32_t page_bytes = get_arg(args::page_bytes);
  static_assert(sem::unused == 3, "semaphores are bound by id");
  DataflowBuffer in(dfb::in);
  Noc noc;
  const auto src = TensorAccessor(tensor::src);
  for (uint32_t p = 0; p < count; ++p) {
    in.reserve_back(1);
    noc.async_read(src, in, page_bytes, {.page_id = first + p}, {});
    noc.async_read_barrier();
    in.push_back(1);
  }
}
)";

// Copies get_arg(args::tiles) tiles from dfb::in to dfb::out through DST,
// passing the bound names where the compute API takes a CB id.
constexpr const char* kCompute = R"(#include "api/compute/common.h"
#include "api/compute/tile_move_copy.h"
#include "api/dataflow/dataflow_buffer.h"
#include "experimental/kernel_args.h"

void kernel_main() {
  DataflowBuffer in(dfb::in), out(dfb::out);
  unary_op_init_common(dfb::in, dfb::out);
  copy_tile_init(dfb::in);
  for (uint32_t t = 0; t < get_arg(args::tiles); ++t) {
    in.wait_front(1);
    out.reserve_back(1);
    tile_regs_acquire();
    copy_tile(dfb::in, 0, 0);
    tile_regs_commit();
    tile_regs_wait();
    pack_tile(0, dfb::out);
    tile_regs_release();
    in.pop_front(1);
    out.push_back(1);
  }
}
)";

// Writes dfb::out's pages to tensor::dst from page 0: the count is a common
// runtime argument, the tensor's address the common argument after it.
constexpr const char* kWriter = R"(#include "api/dataflow/dataflow_buffer.h"
#include "api/dataflow/noc.h"
#include "api/tensor/noc_traits.h"
#include "experimental/kernel_args.h"

void kernel_main() {
  DataflowBuffer out(dfb::out);
  Noc noc;
  const auto dst = TensorAccessor(ta::dst); // the earlier spelling of tensor::
  const uint32_t entry = out.get_entry_size();
  for (uint32_t p = 0; p < get_arg(args::count); ++p) {
    out.wait_front(1);
    noc.async_write(out, dst, entry, {}, {.page_id = p});
    out.write_barrier(noc);
    out.pop_front(1);
  }
  out.finish();
}
)";

constexpr uint32_t kPageBytes = 2048; // a Float16_b tile
constexpr uint32_t kPages = 6;

CircularBufferConfig tile_cb(uint8_t index) {
  CircularBufferConfig c(2 * kPageBytes, {{index, DataFormat::Float16_b}});
  c.set_page_size(index, kPageBytes);
  return c;
}

TEST(NamedBindingsTest, BoundKernelsCopyPagesThroughDataflowBuffers) {
  auto device = open_device();
  auto input = Buffer::create(device, {kPages * kPageBytes, kPageBytes, BufferType::DRAM});
  auto output = Buffer::create(device, {kPages * kPageBytes, kPageBytes, BufferType::DRAM});
  std::vector<uint16_t> values(kPages * kPageBytes / 2);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = uint16_t(0x3F80 + (i * 37) % 0x300); // finite bfloat16 values
  input->write(values.data(), kPages * kPageBytes);

  constexpr uint32_t kFirst = 2, kCount = 3;
  const CoreCoord core{0, 0};
  Program p;
  p.add_circular_buffer(core, tile_cb(0));
  p.add_circular_buffer(core, tile_cb(16));

  DataMovementConfig reader{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default};
  TensorAccessorArgs(*input).append_to(reader.compile_args);
  reader.named_compile_args = {{"page_bytes", kPageBytes}};
  reader.bindings = KernelBindings{.runtime_args = {"count"},
                                   .dataflow_buffers = {{"in", 0}},
                                   .semaphores = {{"unused", 3}},
                                   .tensors = {{"src", 0}}};
  const KernelHandle r = p.add_kernel_from_source(kReader, "reader.cpp", core, reader);
  p.set_runtime_args(r, core, {kCount, kFirst});
  p.set_common_runtime_args(r, {input->address()});

  ComputeConfig compute;
  compute.named_compile_args = {{"tiles", kCount}};
  compute.bindings = KernelBindings{.dataflow_buffers = {{"in", 0}, {"out", 16}}};
  p.add_kernel_from_source(kCompute, "compute.cpp", core, compute);

  DataMovementConfig writer{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default};
  TensorAccessorArgs(*output).append_to(writer.compile_args);
  writer.bindings = KernelBindings{.common_runtime_args = {"count"}, .dataflow_buffers = {{"out", 16}},
                                   .tensors = {{"dst", 0}}};
  const KernelHandle w = p.add_kernel_from_source(kWriter, "writer.cpp", core, writer);
  p.set_common_runtime_args(w, {kCount, output->address()});

  device->command_queue().enqueue_program(p);
  std::vector<uint16_t> got(values.size());
  output->read(got.data(), kPages * kPageBytes);
  const size_t page_values = kPageBytes / 2;
  for (uint32_t page = 0; page < kCount; ++page)
    EXPECT_TRUE(std::equal(got.begin() + page * page_values, got.begin() + (page + 1) * page_values,
                           values.begin() + (kFirst + page) * page_values))
        << "page " << page;
}

std::string binding_error(const KernelBindings& bindings, std::vector<uint32_t> compile_args = {},
                          NamedCompileArgs named = {}) {
  Program p;
  DataMovementConfig c;
  c.compile_args = std::move(compile_args);
  c.named_compile_args = std::move(named);
  c.bindings = bindings;
  std::string message;
  try {
    p.add_kernel_from_source("void kernel_main() {}\n", "bound.cpp", CoreCoord{0, 0}, c);
  } catch (const ValidationError& e) {
    message = e.what();
  }
  EXPECT_EQ(p.num_kernels(), 0u);
  return message;
}

TEST(NamedBindingsTest, BadBindingsAreRefusedBeforeAnythingIsAdded) {
  EXPECT_EQ(binding_error({.runtime_args = {"2fast"}}),
            "add_kernel: kernel 'bound.cpp': kernel bindings: runtime argument name '2fast' is not a C++ identifier "
            "(letters, digits and '_', not starting with a digit)");
  EXPECT_EQ(binding_error({.runtime_args = {"n"}}, {}, {{"n", 4}}),
            "add_kernel: kernel 'bound.cpp': kernel bindings: args::n is bound twice (named compile-time argument "
            "and an earlier binding); expected each name once in args::");
  EXPECT_EQ(binding_error({.dataflow_buffers = {{"in", 64}}}),
            "add_kernel: kernel 'bound.cpp': kernel bindings: dataflow buffer 'in' has CB index 64; expected an "
            "index below 64");
  EXPECT_EQ(binding_error({.semaphores = {{"s", 16}}}),
            "add_kernel: kernel 'bound.cpp': kernel bindings: semaphore 's' has id 16; expected an id below 16");
  EXPECT_EQ(binding_error({.tensors = {{"t", 1}}}, {2, 2048}),
            "add_kernel: kernel 'bound.cpp': kernel bindings: tensor 't' has its TensorAccessorArgs at compile-time "
            "argument 1, but the kernel has 2 compile-time arguments; expected the host's TensorAccessorArgs(buffer) "
            "appended there");
}

// A runtime argument the kernel reads by name but the host did not give is
// reported at the kernel's line, as get_arg_val's is (a warning: silicon
// reads whatever the argument area holds; an error under TESSEL_STRICT=1).
TEST(NamedBindingsTest, AMissingNamedRuntimeArgumentIsReportedAtTheKernelsLine) {
  auto device = open_device();
  Program p;
  DataMovementConfig c;
  c.bindings = KernelBindings{.runtime_args = {"a", "b"}};
  const KernelHandle k = p.add_kernel_from_source(
      "void kernel_main() {\n  (void)get_arg(args::a);\n  volatile uint32_t b = get_arg(args::b); // @b\n  (void)b;\n}\n",
      "missing.cpp", CoreCoord{0, 0}, c);
  p.set_runtime_args(k, CoreCoord{0, 0}, {7});
  setenv("TESSEL_STRICT", "1", 1);
  const std::string message = error_of<KernelError>(device->command_queue(), p);
  unsetenv("TESSEL_STRICT");
  EXPECT_EQ(message.rfind("missing.cpp:3: core (0,0) BRISC: get_arg_val(1): reads past the 1 runtime arguments "
                          "this core was given",
                          0),
            0u)
      << message;
}

TEST(NamedBindingsTest, BadScratchpadBindingsAreRefusedBeforeAnythingIsAdded) {
  EXPECT_EQ(binding_error({.scratchpads = {{.name = "pad", .size_bytes = 0}}}),
            "add_kernel: kernel 'bound.cpp': kernel bindings: scratchpad 'pad' has a size of 0 bytes; expected its "
            "bytes per core, at least 1");
  EXPECT_EQ(binding_error({.scratchpads = {{.name = "pad", .size_bytes = 4}, {.name = "pad", .size_bytes = 8}}}),
            "add_kernel: kernel 'bound.cpp': kernel bindings: scratch::pad is bound twice (scratchpad and an earlier "
            "binding); expected each name once in scratch::");
  EXPECT_EQ(binding_error({.scratchpads = {{.name = "2pad", .size_bytes = 4}}}),
            "add_kernel: kernel 'bound.cpp': kernel bindings: scratchpad name '2pad' is not a C++ identifier "
            "(letters, digits and '_', not starting with a digit)");
}

} // namespace
} // namespace tessel::test
