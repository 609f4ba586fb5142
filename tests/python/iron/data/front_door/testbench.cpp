// A C++ testbench written as IRON's test.cpp programs are: XRT's C++ API and
// test_utils, checking that old_api_design.py adds 7 to every element.
#include <cstdint>
#include <cstring>
#include <iostream>
#include <vector>

#include "cxxopts.hpp"
#include "test_utils.h"
#include "xrt/xrt_bo.h"
#include "xrt/xrt_device.h"
#include "xrt/xrt_kernel.h"

constexpr int kElements = 128;

int main(int argc, const char* argv[]) {
  cxxopts::Options options("add seven");
  cxxopts::ParseResult vm;
  test_utils::add_default_options(options);
  options.add_options()("offset", "the expected offset", cxxopts::value<int>()->default_value("7"))(
      "no-check", "neither the run's state nor its output is checked (a careless testbench)");
  test_utils::parse_options(argc, argv, options, vm);
  int verbosity = vm["verbosity"].as<int>();

  std::vector<uint32_t> instr_v = test_utils::load_instr_binary(vm["instr"].as<std::string>());
  xrt::device device;
  xrt::kernel kernel;
  test_utils::init_xrt_load_kernel(device, kernel, verbosity, vm["xclbin"].as<std::string>(),
                                   vm["kernel"].as<std::string>());
  if (verbosity >= 1) std::cout << "Device: " << device << "\n";  // as IRON's softmax testbench prints it

  auto bo_instr = xrt::bo(device, instr_v.size() * sizeof(int), XCL_BO_FLAGS_CACHEABLE, kernel.group_id(1));
  auto bo_in = xrt::bo(device, kElements * sizeof(int32_t), XRT_BO_FLAGS_HOST_ONLY, kernel.group_id(3));
  auto bo_out = xrt::bo(device, kElements * sizeof(int32_t), XRT_BO_FLAGS_HOST_ONLY, kernel.group_id(4));

  int32_t* in = bo_in.map<int32_t*>();
  for (int i = 0; i < kElements; i++) in[i] = i * 3 - 50;
  std::memcpy(bo_instr.map<void*>(), instr_v.data(), instr_v.size() * sizeof(int));
  std::memset(bo_out.map<int32_t*>(), 0, kElements * sizeof(int32_t));
  bo_instr.sync(XCL_BO_SYNC_BO_TO_DEVICE);
  bo_in.sync(XCL_BO_SYNC_BO_TO_DEVICE);
  bo_out.sync(XCL_BO_SYNC_BO_TO_DEVICE);

  int errors = 0;
  int iters = vm["iters"].as<int>();
  for (int it = 0; it < iters; it++) {
    unsigned int opcode = 3;
    auto run = kernel(opcode, bo_instr, instr_v.size(), bo_in, bo_out);
    ert_cmd_state r = run.wait();
    if (vm.count("no-check")) continue;
    if (r != ERT_CMD_STATE_COMPLETED) {
      std::cout << "Kernel did not complete. Returned status: " << r << "\n";
      return 1;
    }
    bo_out.sync(XCL_BO_SYNC_BO_FROM_DEVICE);
    const int32_t* out = bo_out.map<int32_t*>();
    for (int i = 0; i < kElements; i++) {
      if (out[i] != in[i] + vm["offset"].as<int>()) {
        if (errors++ < 5) std::cout << "Error in output " << out[i] << " != " << in[i] << " + offset\n";
      }
    }
  }
  if (!errors) {
    std::cout << "\nPASS!\n\n";
    return 0;
  }
  std::cout << "\nError count: " << errors << "\n\nFailed.\n\n";
  return 1;
}
