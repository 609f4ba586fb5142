// tessel's xrt_test_wrapper.h: the one-call testbench IRON's test.cpp
// programs use (parse_args, then setup_and_run_aie), over tessel's XRT.
//
// setup_and_run_aie takes each form IRON has had:
//   setup_and_run_aie(verify, std::make_tuple(make_in<T>(n, init)...),
//                     make_out<T>(n, init), args[, ctrl_pkts])
//   setup_and_run_aie<T1, T2, T3, init1, init2, init_out, verify>(n1, n2, n_out, args[, ctrl_pkts])
//   setup_and_run_aie<T1, T3, init1, init_out, verify>(n1, n_out, args[, ctrl_pkts])
// Each allocates the instruction buffer and the data buffers (inputs, then
// the output, as the design's host buffers 0, 1, ...), runs warmup plus
// measured iterations, verifies every measured one, prints the NPU times
// (host time of the simulated run) and PASS! or the error count, and
// returns 0 or 1. Trace and control-packet buffers, when asked for, follow
// the data buffers and hold zeros (tessel writes no trace words).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "test_utils.h"

struct args {
  int verbosity;
  int do_verify;
  int n_iterations;
  int n_warmup_iterations;
  int trace_size;
  std::string instr;
  std::string xclbin;
  std::string kernel;
  std::string trace_file;
};

inline args parse_args(int argc, const char* argv[]) {
  cxxopts::Options options("XRT Test Wrapper");
  cxxopts::ParseResult vm;
  test_utils::add_default_options(options);
  test_utils::parse_options(argc, argv, options, vm);
  args a;
  a.verbosity = vm["verbosity"].as<int>();
  a.do_verify = vm["verify"].as<bool>();
  a.n_iterations = vm["iters"].as<int>();
  a.n_warmup_iterations = vm["warmup"].as<int>();
  a.trace_size = vm["trace_sz"].as<int>();
  a.instr = vm["instr"].as<std::string>();
  a.xclbin = vm["xclbin"].as<std::string>();
  a.kernel = vm["kernel"].as<std::string>();
  a.trace_file = vm["trace_file"].as<std::string>();
  return a;
}

inline uint32_t getParity(uint32_t n) {
  uint32_t ones = 0;
  for (; n; n >>= 1) ones += n & 1u;
  return ones & 1u;
}

// A control packet word: read id, operation, beats, address, odd parity in bit 31.
inline uint32_t create_ctrl_pkt(int operation, int beats, int addr, int ctrl_pkt_read_id = 28) {
  uint32_t pkt = ((ctrl_pkt_read_id & 0xFFu) << 24) | ((operation & 0x3u) << 22) | ((beats & 0x3u) << 20) |
                 (addr & 0x7FFFFu);
  return pkt | ((0x1u ^ getParity(pkt)) << 31);
}

template <typename T>
struct InBuf {
  using elem_type = T;
  int volume;
  void (*init)(T*, int);
};

template <typename T>
InBuf<T> make_in(int volume, void (*init)(T*, int)) {
  return InBuf<T>{volume, init};
}

template <typename T>
struct OutBuf {
  using elem_type = T;
  int volume;
  void (*init)(T*, int);
};

template <typename T>
OutBuf<T> make_out(int volume, void (*init)(T*, int)) {
  return OutBuf<T>{volume, init};
}

// `verify` is called as verify(in0*, in1*, ..., out*, in0_volume, verbosity) and returns an error count.
template <typename Verify, typename TOut, typename... TIns>
int setup_and_run_aie(Verify verify, std::tuple<InBuf<TIns>...> inputs, OutBuf<TOut> output, args a,
                      bool enable_ctrl_pkts = false) {
  srand(static_cast<unsigned>(time(nullptr)));
  std::vector<uint32_t> instr_v = test_utils::load_instr_binary(a.instr);
  xrt::device device;
  xrt::kernel kernel;
  test_utils::init_xrt_load_kernel(device, kernel, a.verbosity, a.xclbin, a.kernel);
  xrt::bo bo_instr(device, instr_v.size() * sizeof(uint32_t), XCL_BO_FLAGS_CACHEABLE, kernel.group_id(1));
  std::memcpy(bo_instr.map<void*>(), instr_v.data(), instr_v.size() * sizeof(uint32_t));
  bo_instr.sync(XCL_BO_SYNC_BO_TO_DEVICE);

  std::vector<xrt::bo> data;
  std::tuple<TIns*...> in_ptrs;
  int first_volume = 0;
  std::apply(
      [&](auto&... desc) {
        std::apply(
            [&](auto&... slot) {
              auto one = [&](auto& d, auto& ptr) {
                using T = typename std::remove_reference_t<decltype(d)>::elem_type;
                data.emplace_back(device, d.volume * sizeof(T), XRT_BO_FLAGS_HOST_ONLY,
                                  kernel.group_id(3 + static_cast<int>(data.size())));
                ptr = data.back().template map<T*>();
                d.init(ptr, d.volume);
                data.back().sync(XCL_BO_SYNC_BO_TO_DEVICE);
                if (data.size() == 1) first_volume = d.volume;
              };
              (one(desc, slot), ...);
            },
            in_ptrs);
      },
      inputs);
  data.emplace_back(device, output.volume * sizeof(TOut), XRT_BO_FLAGS_HOST_ONLY,
                    kernel.group_id(3 + static_cast<int>(data.size())));
  TOut* out = data.back().template map<TOut*>();
  output.init(out, output.volume);
  data.back().sync(XCL_BO_SYNC_BO_TO_DEVICE);
  if (enable_ctrl_pkts && a.trace_size > 0) {
    data.emplace_back(device, 8, XRT_BO_FLAGS_HOST_ONLY, kernel.group_id(3 + static_cast<int>(data.size())));
    uint32_t* pkts = data.back().template map<uint32_t*>();
    pkts[0] = create_ctrl_pkt(1, 0, 0x32004);
    pkts[1] = create_ctrl_pkt(1, 0, 0x320D8);
  }
  xrt::bo bo_trace;
  if (a.trace_size > 0) {
    data.emplace_back(device, static_cast<size_t>(a.trace_size) * 4, XRT_BO_FLAGS_HOST_ONLY,
                      kernel.group_id(3 + static_cast<int>(data.size())));
    bo_trace = data.back();
    std::memset(bo_trace.map<char*>(), 0, bo_trace.size());
  }

  int errors = 0;
  float total_us = 0, min_us = 1e30f, max_us = 0;
  const int iterations = a.n_iterations + a.n_warmup_iterations;
  for (int it = 0; it < iterations; ++it) {
    auto start = std::chrono::high_resolution_clock::now();
    xrt::run run(kernel);
    run.set_arg(0, 3u);
    run.set_arg(1, bo_instr);
    run.set_arg(2, instr_v.size());
    for (size_t i = 0; i < data.size(); ++i) run.set_arg(3 + static_cast<int>(i), data[i]);
    run.start();
    ert_cmd_state state = run.wait();
    auto stop = std::chrono::high_resolution_clock::now();
    if (state != ERT_CMD_STATE_COMPLETED) {
      std::cout << "Kernel did not complete. Returned status: " << state << "\n";
      return 1;
    }
    if (it < a.n_warmup_iterations) continue;
    if (a.do_verify)
      errors += std::apply([&](auto*... in) { return verify(in..., out, first_volume, a.verbosity); }, in_ptrs);
    if (a.trace_size > 0 && it == a.n_warmup_iterations)
      test_utils::write_out_trace(bo_trace.map<char*>(), static_cast<size_t>(a.trace_size), a.trace_file);
    float us = static_cast<float>(std::chrono::duration_cast<std::chrono::microseconds>(stop - start).count());
    total_us += us;
    min_us = std::min(min_us, us);
    max_us = std::max(max_us, us);
  }
  if (a.n_iterations > 0) {
    std::cout << "\nAvg NPU time: " << total_us / a.n_iterations << "us.\n";
    std::cout << "\nMin NPU time: " << min_us << "us.\n";
    std::cout << "\nMax NPU time: " << max_us << "us.\n";
  }
  if (!errors) {
    std::cout << "\nPASS!\n\n";
    return 0;
  }
  std::cout << "\nError count: " << errors << "\n\n\nFailed.\n\n";
  return 1;
}

template <typename T1, typename T2, typename T3, void (*init_in1)(T1*, int), void (*init_in2)(T2*, int),
          void (*init_out)(T3*, int), int (*verify)(T1*, T2*, T3*, int, int)>
int setup_and_run_aie(int in1_volume, int in2_volume, int out_volume, args a, bool enable_ctrl_pkts = false) {
  return setup_and_run_aie(verify, std::make_tuple(make_in<T1>(in1_volume, init_in1), make_in<T2>(in2_volume, init_in2)),
                           make_out<T3>(out_volume, init_out), a, enable_ctrl_pkts);
}

template <typename T1, typename T3, void (*init_in1)(T1*, int), void (*init_out)(T3*, int),
          int (*verify)(T1*, T3*, int, int)>
int setup_and_run_aie(int in1_volume, int out_volume, args a, bool enable_ctrl_pkts = false) {
  return setup_and_run_aie(verify, std::make_tuple(make_in<T1>(in1_volume, init_in1)),
                           make_out<T3>(out_volume, init_out), a, enable_ctrl_pkts);
}
