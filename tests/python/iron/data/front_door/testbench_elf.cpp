// A C++ testbench of XRT's ELF flow, as IRON's newest test.cpp programs are:
// the instructions come in an ELF (xrt::elf, xrt::module), the kernel is an
// xrt::ext::kernel called with (opcode, 0, 0, buffers...) and the buffers are
// xrt::ext::bo; checks that old_api_design.py adds 7 to every element.
#include <cstdint>
#include <iostream>

#include "cxxopts.hpp"
#include "test_utils.h"
#include "xrt/experimental/xrt_elf.h"
#include "xrt/experimental/xrt_ext.h"
#include "xrt/experimental/xrt_module.h"
#include "xrt/xrt_bo.h"
#include "xrt/xrt_device.h"
#include "xrt/xrt_kernel.h"

constexpr int kElements = 128;

int main(int argc, const char* argv[]) {
  cxxopts::Options options("add seven, ELF flow");
  cxxopts::ParseResult vm;
  test_utils::add_default_options(options);
  test_utils::parse_options(argc, argv, options, vm);

  auto device = xrt::device(0u);
  auto xclbin = xrt::xclbin(vm["xclbin"].as<std::string>());
  device.register_xclbin(xclbin);
  xrt::hw_context context(device, xclbin.get_uuid());
  xrt::elf elf(vm["instr"].as<std::string>());
  xrt::module mod{elf};
  auto kernel = xrt::ext::kernel(context, mod, vm["kernel"].as<std::string>());

  xrt::bo bo_in = xrt::ext::bo{device, kElements * sizeof(int32_t)};
  xrt::bo bo_out = xrt::ext::bo{device, kElements * sizeof(int32_t)};
  int32_t* in = bo_in.map<int32_t*>();
  for (int i = 0; i < kElements; i++) in[i] = 1000 - i;
  bo_in.sync(XCL_BO_SYNC_BO_TO_DEVICE);

  unsigned int opcode = 3;
  auto run = kernel(opcode, 0, 0, bo_in, bo_out);
  if (run.wait() != ERT_CMD_STATE_COMPLETED) return 1;
  bo_out.sync(XCL_BO_SYNC_BO_FROM_DEVICE);
  const int32_t* out = bo_out.map<int32_t*>();
  int errors = 0;
  for (int i = 0; i < kElements; i++)
    if (out[i] != in[i] + 7 && errors++ < 5) std::cout << "Error in output " << out[i] << " != " << in[i] << " + 7\n";
  std::cout << (errors ? "\nFailed.\n" : "\nPASS!\n");
  return errors ? 1 : 0;
}
