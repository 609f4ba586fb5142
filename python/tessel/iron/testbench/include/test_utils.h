// tessel's test_utils.h: the helpers IRON's C++ testbenches call
// (namespace test_utils), over tessel's XRT (tessel/xrt_api.h) and
// cxxopts (Debian's libcxxopts-dev); for a testbench that parses its
// options with Boost (it includes <boost/program_options.hpp>, or, as
// IRON's older ones do, leaves that to this header:
// TESSEL_TEST_UTILS_BOOST), the option helpers take Boost's types too.
//
// tessel builds no xclbin and no instruction file: the xclbin path stands
// for the design record beside it, so parse_options does not require the
// -x/-i files to exist, and load_instr_* give one stand-in word for a file
// that does not exist (the kernel load reports a missing record).
#pragma once

#include <algorithm>
#include <cassert>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <stdfloat>  // the compiler's, or tessel's where it has none

#include "cxxopts.hpp"
#include "tessel/xrt_api.h"

#ifdef TESSEL_TEST_UTILS_BOOST  // the front door saw Boost options in the testbench
#include <boost/program_options.hpp>
#endif

namespace test_utils {

inline void check_arg_file_exists(const cxxopts::ParseResult& result, std::string name) {
  if (!result.count(name)) throw std::runtime_error("Missing required argument: " + name);
}

inline void add_default_options(cxxopts::Options& options) {
  options.add_options()("help,h", "produce help message")("xclbin,x", "the input xclbin path (its design record)",
                                                          cxxopts::value<std::string>())(
      "kernel,k", "the kernel name in the XCLBIN", cxxopts::value<std::string>()->default_value("MLIR_AIE"))(
      "verbosity,v", "the verbosity of the output", cxxopts::value<int>()->default_value("0"))(
      "instr,i", "the instruction file (tessel runs the design; the file is optional)",
      cxxopts::value<std::string>()->default_value("insts.bin"))("verify", "whether to verify the output",
                                     cxxopts::value<bool>()->default_value("true"))(
      "iters", "number of iterations", cxxopts::value<int>()->default_value("1"))(
      "warmup", "number of warmup iterations", cxxopts::value<int>()->default_value("0"))(
      "trace_sz,t", "trace size", cxxopts::value<int>()->default_value("0"))(
      "trace_file", "where to store trace output", cxxopts::value<std::string>()->default_value("trace.txt"));
}

inline void parse_options(int argc, const char* argv[], cxxopts::Options& options, cxxopts::ParseResult& result) {
  try {
    result = options.parse(argc, argv);
  } catch (const cxxopts::exceptions::exception& e) {
    std::cerr << e.what() << "\n\nUsage:\n" << options.help() << "\n";
    std::exit(1);
  }
  if (result.count("help")) {
    std::cout << options.help() << "\n";
    std::exit(1);
  }
  if (!result.count("xclbin")) {
    std::cerr << "Missing required argument: xclbin (-x build/final.xclbin: the design record beside it)\n";
    std::exit(1);
  }
}

#ifdef BOOST_PROGRAM_OPTIONS_CONFIG_HK_2004_01_11
// IRON's older testbenches parse their options with Boost.Program_options
// (included before this header); the same defaults, the same rules.
inline void check_arg_file_exists(boost::program_options::variables_map& vm, std::string name) {
  if (!vm.count(name)) throw std::runtime_error("Error: no " + name + " file was provided\n");
}

inline void add_default_options(boost::program_options::options_description& desc) {
  namespace po = boost::program_options;
  desc.add_options()("help,h", "produce help message")("xclbin,x", po::value<std::string>()->required(),
                                                       "the input xclbin path (its design record)")(
      "kernel,k", po::value<std::string>()->default_value("MLIR_AIE"), "the kernel name in the XCLBIN")(
      "verbosity,v", po::value<int>()->default_value(0), "the verbosity of the output")(
      "instr,i", po::value<std::string>()->default_value("insts.bin"),
      "the instruction file (tessel runs the design; the file is optional)")(
      "verify", po::value<bool>()->default_value(true), "whether to verify the output")(
      "iters", po::value<int>()->default_value(1))("warmup", po::value<int>()->default_value(0))(
      "trace_sz,t", po::value<int>()->default_value(0))(
      "trace_file", po::value<std::string>()->default_value("trace.txt"), "where to store trace output");
}

inline void parse_options(int argc, const char* argv[], boost::program_options::options_description& desc,
                          boost::program_options::variables_map& vm) {
  namespace po = boost::program_options;
  try {
    po::store(po::parse_command_line(argc, argv, desc), vm);
    if (vm.count("help")) {
      std::cout << desc << "\n";
      std::exit(1);
    }
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << e.what() << "\n\n" << "Usage:\n" << desc << "\n";
    std::exit(1);
  }
}
#endif

inline std::vector<uint32_t> load_instr_sequence(std::string instr_path) {
  std::ifstream in(instr_path);
  if (!in) return {0};
  std::vector<uint32_t> words;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("//", 0) == 0) return {0};  // a tessel design record, not instructions
    std::istringstream fields(line);
    uint32_t w;
    if (!(fields >> std::hex >> w)) throw std::runtime_error("Unable to parse instruction file " + instr_path);
    words.push_back(w);
  }
  return words;
}

inline std::vector<uint32_t> load_instr_binary(std::string instr_path) {
  std::ifstream in(instr_path, std::ios::binary);
  if (!in) return {0};
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<uint32_t> words((bytes.size() + 3) / 4, 0);
  if (!bytes.empty()) std::memcpy(words.data(), bytes.data(), bytes.size());
  return words.empty() ? std::vector<uint32_t>{0} : words;
}

inline void init_xrt_load_kernel(xrt::device& device, xrt::kernel& kernel, int verbosity, std::string xclbin_path,
                                 std::string kernel_name) {
  device = xrt::device(0u);
  if (verbosity >= 1) std::cout << "Loading xclbin: " << xclbin_path << "\n";
  xrt::xclbin xclbin(xclbin_path);
  auto kernels = xclbin.get_kernels();
  auto found = std::find_if(kernels.begin(), kernels.end(),
                            [&](const xrt::xclbin::kernel& k) { return k.get_name().rfind(kernel_name, 0) == 0; });
  if (found == kernels.end())
    throw std::runtime_error("kernel " + kernel_name + " is not in " + xclbin_path + " (its kernel is MLIR_AIE)");
  device.register_xclbin(xclbin);
  if (verbosity >= 1) std::cout << "Getting handle to kernel:" << found->get_name() << "\n";
  xrt::hw_context context(device, xclbin.get_uuid());
  kernel = xrt::kernel(context, found->get_name());
}

inline std::int16_t random_int16_t(int32_t range = 0x10000) { return static_cast<std::int16_t>(rand() % range); }
inline std::int32_t random_int32_t(int32_t range = 0x10000) { return static_cast<std::int32_t>(rand() % range); }

using bfloat16_t = std::bfloat16_t;  // the compiler's, or tessel's <stdfloat> where it has none
inline bfloat16_t bfloat16_from_float(float v) { return bfloat16_t(v); }
inline bfloat16_t bfloat16_from_bits(std::uint16_t bits) {
  bfloat16_t v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}
inline float bfloat16_to_float(bfloat16_t v) { return static_cast<float>(v); }

inline bfloat16_t random_bfloat16_t(bfloat16_t scale, bfloat16_t bias) {
  return bfloat16_from_float(bfloat16_to_float(scale) * static_cast<float>(rand()) / static_cast<float>(RAND_MAX) +
                             bfloat16_to_float(bias));
}

// |a - b| below the larger of abs_th and epsilon times |a| + |b|.
inline bool nearly_equal(float a, float b, float epsilon = 128 * FLT_EPSILON, float abs_th = FLT_MIN) {
  if (a == b) return true;
  float norm = std::min(std::abs(a) + std::abs(b), std::numeric_limits<float>::max());
  return std::abs(a - b) < std::max(abs_th, epsilon * norm);
}

inline bool nearly_equal_bfloat16(bfloat16_t a, bfloat16_t b, float epsilon = 128 * FLT_EPSILON,
                                  float abs_th = FLT_MIN) {
  return nearly_equal(bfloat16_to_float(a), bfloat16_to_float(b), epsilon, abs_th);
}

inline bfloat16_t bfloat16_add(bfloat16_t a, bfloat16_t b) {
  return bfloat16_from_float(bfloat16_to_float(a) + bfloat16_to_float(b));
}
inline bfloat16_t bfloat16_mul(bfloat16_t a, bfloat16_t b) {
  return bfloat16_from_float(bfloat16_to_float(a) * bfloat16_to_float(b));
}
inline bfloat16_t bfloat16_div(bfloat16_t a, bfloat16_t b) {
  return bfloat16_from_float(bfloat16_to_float(a) / bfloat16_to_float(b));
}
inline bfloat16_t bfloat16_tanh(bfloat16_t v) { return bfloat16_from_float(std::tanh(bfloat16_to_float(v))); }

// The first and last rows and columns of a row-major matrix, elided between.
template <typename T>
void print_matrix(const std::vector<T> matrix, int n_cols, int n_printable_rows = 10, int n_printable_cols = 10,
                  std::ostream& out = std::cout, const char col_sep[] = "  ", const char elide_sym[] = " ... ",
                  int w = -1) {
  int n_rows = static_cast<int>(matrix.size()) / n_cols;
  n_printable_rows = std::min(n_rows, n_printable_rows);
  n_printable_cols = std::min(n_cols, n_printable_cols);
  bool elide_rows = n_printable_rows < n_rows, elide_cols = n_printable_cols < n_cols;
  if (w < 0) w = 8;
  if (elide_rows || elide_cols) w = std::max(w, static_cast<int>(std::strlen(elide_sym)));
  out << std::fixed << std::setprecision(2);
  auto row_of = [&](int row) {
    for (int col = 0; col < n_printable_cols; ++col) {
      if (elide_cols && col == n_printable_cols / 2) out << elide_sym;
      int c = col < n_printable_cols / 2 ? col : n_cols - (n_printable_cols - col);
      out << std::right << std::setw(w) << static_cast<double>(matrix[static_cast<size_t>(row) * n_cols + c])
          << col_sep;
    }
    out << "\n";
  };
  for (int r = 0; r < n_printable_rows; ++r) {
    if (elide_rows && r == n_printable_rows / 2) out << elide_sym << "\n";
    row_of(r < n_printable_rows / 2 ? r : n_rows - (n_printable_rows - r));
  }
}

// Trace words as IRON writes them (eight hex digits a line); tessel's are zeros.
inline void write_out_trace(char* trace, size_t trace_size, std::string path) {
  std::ofstream out(path);
  const uint32_t* words = reinterpret_cast<const uint32_t*>(trace);
  for (size_t i = 0; i < trace_size / sizeof(uint32_t); ++i)
    out << std::setfill('0') << std::setw(8) << std::hex << words[i] << "\n";
}

}  // namespace test_utils
