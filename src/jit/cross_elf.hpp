// Reading a thread image of the RISC-V size estimate (cross_build.hpp): its
// packed size from the ELF32 section headers, the symbols it leaves
// undefined, and the instructions its core lacks, from the toolchain's
// objdump and addr2line output.
//
// All pure: they take bytes or tool output and read nothing themselves, so
// tests can hand them any input. None throws for malformed input.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessel::jit {

struct ThreadImage {
  // The loaded sections (SHF_ALLOC and not SHT_NOBITS: .text, .rodata, .data,
  // .sdata, .srodata, init arrays) in address order, each placed at the next
  // offset its alignment allows: the image as a loader would copy it into L1,
  // without the gaps the linker script leaves between segments. .bss is not
  // counted (it is zeroed, not loaded).
  uint32_t text_bytes = 0;
  // Global (not weak) symbols the image references but does not define,
  // demangled, sorted: calls into a C library, which the image leaves out.
  std::vector<std::string> undefined_symbols;
};

// nullopt unless `image` is a well-formed little-endian ELF32 RISC-V file.
std::optional<ThreadImage> read_thread_image(std::string_view image);

// Whether the cores lack `mnemonic`: float divide and square root (fdiv.*,
// fsqrt.*), vector integer divide and remainder (vdiv*, vrem*), vector float
// divide, square root and their estimates (vfdiv*, vfrdiv*, vfsqrt*,
// vfrsqrt7*, vfrec7*).
bool core_lacks_instruction(std::string_view mnemonic);

struct LackedInstruction {
  uint64_t address = 0;
  std::string mnemonic; // e.g. "fdiv.s"
  std::string function; // the enclosing symbol from objdump's "<name>:" line ("" if none came first)
};

// The instructions core_lacks_instruction names, in the order they appear in
// the text of `objdump -d -C --no-show-raw-insn` (symbol lines
// "00010074 <kernel_main()>:", instruction lines "   100b0:\tfdiv.s\tfa5,fa5,fa4").
std::vector<LackedInstruction> find_lacked_instructions(std::string_view objdump_output);

struct SourceLine {
  std::string file;  // "" when unknown
  uint32_t line = 0; // 0 when unknown
};

// addr2line's answer for `count` addresses (one "file:line" line each,
// "??:0" or "??:?" when unknown, possibly with " (discriminator N)"). Missing
// or malformed lines are unknown locations; the result always has `count`
// entries.
std::vector<SourceLine> parse_addr2line_output(std::string_view output, size_t count);

} // namespace tessel::jit
