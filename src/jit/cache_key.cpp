#include "jit/cache_key.hpp"

#include "tessel/error.hpp"
#include "tessel/kernel_abi.h"

#include <filesystem>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <string_view>
#include <xxhash.h>

namespace tessel::jit {
namespace {

// Bump when the key text or cache layout changes meaning.
// 2: key.txt ends with the hash of kernel.so.
constexpr std::string_view kKeyFormat = "tessel-kernel-key 2";

// Hand-rolled: memo keys of text kernels hash on every lookup, and snprintf
// was a third of a memo hit.
void append_hex64(std::string& out, uint64_t value) {
  constexpr char kDigits[] = "0123456789abcdef";
  for (int shift = 60; shift >= 0; shift -= 4)
    out += kDigits[(value >> shift) & 0xf];
}

bool has_control_char(std::string_view text) {
  for (char c : text)
    if (static_cast<unsigned char>(c) < 0x20) return true;
  return false;
}

const char* kind_name(KernelKind kind) { return kind == KernelKind::Compute ? "compute" : "data_movement"; }

void append_line(std::string& out, std::string_view label, std::string_view value) {
  out += label;
  out += ": ";
  out += value;
  out += '\n';
}

// `"name"` as a C string literal for TESSEL_NAMED_CTA_LIST.
std::string c_string_literal(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
  return out;
}

} // namespace

std::string content_hash(std::string_view bytes) {
  XXH128_hash_t hash = XXH3_128bits(bytes.data(), bytes.size());
  std::string text;
  text.reserve(32);
  append_hex64(text, hash.high64);
  append_hex64(text, hash.low64);
  return text;
}

std::string short_hash(std::string_view bytes) {
  std::string text;
  text.reserve(16);
  append_hex64(text, XXH3_64bits(bytes.data(), bytes.size()));
  return text;
}

void validate_request(const BuildRequest& request) {
  bool has_path = !request.source_path.empty();
  bool has_text = !request.source_text.empty();
  if (has_path == has_text)
    throw ValidationError(has_path ? "kernel build request sets both source_path (" + request.source_path +
                                         ") and source_text; set exactly one"
                                   : "kernel build request has neither source_path nor source_text; set exactly one");
  if (request.opt_level < -1 || request.opt_level >= int(std::size(kOptLevelNames)))
    throw ValidationError("kernel " + source_name(request) + ": opt_level " + std::to_string(request.opt_level) +
                          " is out of range (expected -1 for the default, 0..3 for O0..O3, 4 for Os, 5 for Ofast or "
                          "6 for Oz)");
  for (const auto& [name, value] : request.defines) {
    if (name.empty() || name.find('=') != std::string::npos || has_control_char(name) || has_control_char(value))
      throw ValidationError("kernel " + source_name(request) + ": define '" + name +
                            "' cannot be passed to the compiler (expected a non-empty name without '=' and no "
                            "control characters in name or value)");
  }
  for (const std::string& dir : request.include_dirs)
    if (dir.empty() || dir[0] != '/' || has_control_char(dir))
      throw ValidationError(
          "kernel " + source_name(request) + ": include directory '" + dir +
          "' cannot be passed to the compiler (expected an absolute path without control characters)");
  for (const auto& [name, value] : request.named_compile_args) {
    if (name.empty() || has_control_char(name))
      throw ValidationError("kernel " + source_name(request) + ": named compile-time argument '" + name +
                            "' is empty or contains control characters");
  }
}

int effective_opt_level(const BuildRequest& request) {
  if (request.opt_level >= 0) return request.opt_level;
  return request.kind == KernelKind::Compute ? 3 : 2;
}

std::string_view opt_level_name(int level) {
  return level >= 0 && level < int(std::size(kOptLevelNames)) ? kOptLevelNames[level] : std::string_view("?");
}

int opt_level_of_name(std::string_view name) {
  for (size_t i = 0; i < std::size(kOptLevelNames); ++i)
    if (name == kOptLevelNames[i]) return int(i);
  return -1;
}

std::string opt_flag(const BuildRequest& request) {
  return "-" + std::string(opt_level_name(effective_opt_level(request)));
}

std::string source_name(const BuildRequest& request) {
  if (!request.source_path.empty()) return request.source_path;
  return request.display_name.empty() ? std::string("kernel.cpp") : request.display_name;
}

std::string text_source_file_name(const BuildRequest& request) {
  // The display name becomes a path under the content-addressed source
  // directory; components that would climb out of it are replaced.
  std::filesystem::path out;
  for (const auto& part : std::filesystem::path(request.display_name).relative_path()) {
    std::string text = part.string();
    out /= (text.empty() || text == "." || text == "..") ? std::string("_") : text;
  }
  std::string name = out.string();
  return name.empty() ? std::string("kernel.cpp") : name;
}

std::string absolute_source_path(const std::string& path) {
  bool normal = !path.empty() && path[0] == '/' && path.find("/./") == std::string::npos &&
                path.find("/../") == std::string::npos && path.find("//") == std::string::npos;
  if (normal) return path;
  return std::filesystem::absolute(path).lexically_normal().string();
}

std::string memo_key(const BuildRequest& request) {
  std::string key;
  key.reserve(128 + request.source_path.size() + request.display_name.size());
  if (!request.source_path.empty()) {
    key += "path:";
    key += absolute_source_path(request.source_path);
  } else {
    key += "text:";
    key += content_hash(request.source_text);
    key += ':';
    key += request.display_name;
  }
  key += '\n';
  key += static_cast<char>('0' + static_cast<int>(request.kind));
  key += static_cast<char>('0' + effective_opt_level(request));
  for (const auto& [name, value] : request.defines) {
    key += "\nD";
    key += name;
    key += '=';
    key += value;
  }
  key += "\nA";
  for (uint32_t arg : request.compile_args) {
    key += std::to_string(arg);
    key += ',';
  }
  key += "\nT";
  for (uint32_t size : request.cb_tile_sizes) {
    key += std::to_string(size);
    key += ',';
  }
  key += "\nF";
  for (uint8_t format : request.cb_data_formats) {
    key += std::to_string(format);
    key += ',';
  }
  for (const auto& [name, value] : request.named_compile_args) {
    key += "\nN";
    key += name; // may hold any non-control byte; the value follows the last '\x1f'
    key += '\x1f';
    key += std::to_string(value);
  }
  return key;
}

namespace {
// Whether a compute kernel's source names the SFPI language or the LLK
// layer under it (custom SFPU code), so that the SFPU API headers bring them
// in (-DTESSEL_KERNEL_SFPI) only then: they cost a third of a cold compile.
// Kernels that include sfpi.h, ckernel.h or the llk headers get them anyway.
bool names_sfpi(std::string_view text) {
  static constexpr std::string_view kNames[] = {
      "sfpi",         "vFloat",     "vInt",        "vUInt",        "dst_reg",   "v_if",          "_llk_",    "llk_sfpu",
      "ckernel_sfpu", "SFPU_UNARY", "SFPU_BINARY", "SFPU_TERNARY", "SFPU_INIT", "SFPU_TEMPLATE", "SFPU_CALL"};
  for (std::string_view name : kNames)
    if (text.find(name) != std::string_view::npos) return true;
  return false;
}

bool uses_sfpi(const BuildRequest& request, std::string_view source) {
  if (request.kind != KernelKind::Compute) return false;
  for (const auto& define : request.defines)
    if (names_sfpi(define.second)) return true;
  return names_sfpi(source);
}

bool names_any(std::string_view text, std::initializer_list<std::string_view> names) {
  for (std::string_view name : names)
    if (text.find(name) != std::string_view::npos) return true;
  return false;
}

// Metalium's JIT-generated per-CB tables (and the calls that read them);
// tessel/cb_formats.h defines them from TESSEL_CB_DATA_FORMATS.
bool names_cb_format_tables(std::string_view text) {
  return names_any(text, {"unpack_src_format", "unpack_dst_format", "pack_src_format", "pack_dst_format",
                          "unpack_tile_size", "pack_tile_size", "_tile_num_faces", "_tile_r_dim", "_tile_c_dim",
                          "_tile_face_r_dim", "_partial_face", "_narrow_tile", "get_dataformat"});
}

template <typename T>
std::string list_flag(const char* name, const std::vector<T>& values) {
  std::string list = std::string("-D") + name + "=";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i != 0) list += ',';
    list += std::to_string(uint32_t(values[i]));
  }
  return list;
}
} // namespace

std::vector<std::string> request_flags(const BuildRequest& request, std::string_view source) {
  std::vector<std::string> flags;
  flags.push_back(opt_flag(request));
  flags.push_back(request.kind == KernelKind::Compute ? "-DTESSEL_KERNEL_COMPUTE=1"
                                                      : "-DTESSEL_KERNEL_DATA_MOVEMENT=1");
  if (uses_sfpi(request, source)) flags.push_back("-DTESSEL_KERNEL_SFPI=1");
  for (const std::string& dir : request.include_dirs)
    flags.push_back("-I" + dir);
  // Only kernels that name get_tile_size or the format tables depend on the
  // CBs' formats; only those that name std:: get the standard headers.
  const bool format_tables = !request.cb_data_formats.empty() && names_cb_format_tables(source);
  if (!request.cb_tile_sizes.empty() && (format_tables || source.find("get_tile_size") != std::string::npos))
    flags.push_back(list_flag("TESSEL_CB_TILE_SIZES", request.cb_tile_sizes));
  if (format_tables) flags.push_back(list_flag("TESSEL_CB_DATA_FORMATS", request.cb_data_formats));
  // Only kernels that name the arch or its alignments are built per arch.
  if (!request.arch.empty() && names_any(source, {"ARCH_", "_ALIGNMENT"})) {
    flags.push_back(request.arch == "blackhole" ? "-DARCH_BLACKHOLE=1" : "-DARCH_WORMHOLE=1");
    flags.push_back("-DTESSEL_NOC_L1_ALIGNMENT=" + std::to_string(request.l1_alignment));
    flags.push_back("-DTESSEL_NOC_DRAM_READ_ALIGNMENT=" + std::to_string(request.dram_read_alignment));
    flags.push_back("-DTESSEL_NOC_DRAM_WRITE_ALIGNMENT=" + std::to_string(request.dram_write_alignment));
  }
  // The accessor tuples are std::tuple and std::array (tessel/tensor_tuples.h).
  if (names_any(source, {"std::", "make_tensor_accessor_args_tuple", "make_tensor_accessor_tuple",
                         "make_abstract_tensor_accessor_wrappers"}))
    flags.push_back("-DTESSEL_KERNEL_STD=1");
  if (!request.compile_args.empty()) {
    std::string list = "-DTESSEL_CTA_LIST=";
    for (size_t i = 0; i < request.compile_args.size(); ++i) {
      if (i != 0) list += ',';
      list += std::to_string(request.compile_args[i]);
    }
    flags.push_back(std::move(list));
  }
  if (!request.named_compile_args.empty()) {
    std::string list = "-DTESSEL_NAMED_CTA_LIST=";
    for (size_t i = 0; i < request.named_compile_args.size(); ++i) {
      if (i != 0) list += ',';
      list += '{' + c_string_literal(request.named_compile_args[i].first) + ',' +
              std::to_string(request.named_compile_args[i].second) + '}';
    }
    flags.push_back(std::move(list));
  }
  for (const auto& [name, value] : request.defines)
    flags.push_back(value.empty() ? "-D" + name : "-D" + name + "=" + value);
  return flags;
}

std::string front_key_text(const BuildRequest& request, const FrontKeyInputs& inputs) {
  std::string text;
  text += kKeyFormat;
  text += '\n';
  append_line(text, "compiler", inputs.compiler_path);
  append_line(text, "compiler-version", inputs.compiler_identity);
  append_line(text, "kernel-abi", std::to_string(TESSEL_KERNEL_ABI_VERSION));
  append_line(text, "include-dir", inputs.include_dir);
  std::string flags;
  for (const auto& flag : inputs.fixed_flags) {
    if (!flags.empty()) flags += ' ';
    flags += flag;
  }
  append_line(text, "flags", flags);
  append_line(text, "kind", kind_name(request.kind));
  append_line(text, "opt-level", opt_level_name(effective_opt_level(request)));
  // Defines and arguments exactly as passed to the compiler, one per line
  // (validate_request rejected control characters, so lines cannot be forged).
  for (const auto& flag : inputs.request_flags)
    append_line(text, "arg", flag);
  append_line(text, "source", source_name(request));
  append_line(text, "source-file", inputs.compiled_source_path);
  append_line(text, "source-hash", inputs.source_hash);
  return text;
}

std::string dependencies_text(const std::vector<Dependency>& dependencies) {
  std::string text;
  for (const auto& dependency : dependencies) {
    text += dependency.hash;
    text += ' ';
    text += dependency.path;
    text += '\n';
  }
  return text;
}

std::optional<std::vector<std::string>> parse_dependencies_text(std::string_view text) {
  std::vector<std::string> paths;
  while (!text.empty()) {
    size_t end = text.find('\n');
    if (end == std::string_view::npos) return std::nullopt; // truncated
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end + 1);
    if (line.size() < kContentHashDigits + 2 || line[kContentHashDigits] != ' ') return std::nullopt;
    paths.emplace_back(line.substr(kContentHashDigits + 1));
  }
  return paths;
}

} // namespace tessel::jit
