// Finding the writable data a kernel shared object defines: its globals,
// statics and thread-locals, which must be per core.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessel::jit {

// Mangled names of the data symbols in writable sections of a 64-bit ELF
// shared object (.data, .bss, .tdata, .tbss, ...), read from .symtab (or
// .dynsym when stripped). Excluded: toolchain and runtime symbols (names
// starting with "__", "completed.", "_GLOBAL_OFFSET_TABLE_", "_DYNAMIC",
// "tessel_", guard variables, anything from crtstuff.c) and objects inside
// PT_GNU_RELRO, which are read-only once relocated (vtables, const pointer
// tables). Sorted, unique. nullopt if the image is not a well-formed ELF64
// object.
std::optional<std::vector<std::string>> writable_data_symbols(std::string_view image);

// The demangled form of a symbol name, or the name itself if it is not a
// mangled C++ name.
std::string demangle(const std::string& name);

// A bounds-checked read of an ELF structure at `offset` of an image that may
// be truncated or garbage (a corrupt cache entry): nullopt past its end.
template <typename T>
std::optional<T> read_elf_struct(std::string_view image, uint64_t offset) {
  if (offset > image.size() || image.size() - offset < sizeof(T)) return std::nullopt;
  T value;
  std::memcpy(&value, image.data() + offset, sizeof(T));
  return value;
}

} // namespace tessel::jit
