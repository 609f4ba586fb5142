#include "jit/cross_elf.hpp"

#include "jit/elf_symbols.hpp"

#include <algorithm>
#include <cstring>
#include <elf.h>

namespace tessel::jit {
namespace {

// A NUL-terminated name at `offset` of a string table section, or nullopt.
std::optional<std::string_view> string_at(std::string_view image, const Elf32_Shdr& table, uint32_t offset) {
  if (table.sh_offset > image.size() || offset >= table.sh_size || image.size() - table.sh_offset < table.sh_size)
    return std::nullopt;
  std::string_view strings = image.substr(table.sh_offset, table.sh_size);
  size_t end = strings.find('\0', offset);
  if (end == std::string_view::npos) return std::nullopt;
  return strings.substr(offset, end - offset);
}

bool is_hex(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  });
}

uint64_t parse_hex(std::string_view text) {
  uint64_t value = 0;
  for (char c : text)
    value = value * 16 + uint64_t(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
  return value;
}

std::string_view trim_left(std::string_view text) {
  size_t start = text.find_first_not_of(" \t");
  return start == std::string_view::npos ? std::string_view{} : text.substr(start);
}

} // namespace

std::optional<ThreadImage> read_thread_image(std::string_view image) {
  auto header = read_elf_struct<Elf32_Ehdr>(image, 0);
  if (!header || std::memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 || header->e_ident[EI_CLASS] != ELFCLASS32 ||
      header->e_ident[EI_DATA] != ELFDATA2LSB || header->e_machine != EM_RISCV ||
      header->e_shentsize != sizeof(Elf32_Shdr) || header->e_shnum == 0)
    return std::nullopt;
  std::vector<Elf32_Shdr> sections(header->e_shnum);
  for (uint16_t i = 0; i < header->e_shnum; ++i) {
    auto section = read_elf_struct<Elf32_Shdr>(image, uint64_t{header->e_shoff} + uint64_t{i} * sizeof(Elf32_Shdr));
    if (!section) return std::nullopt;
    sections[i] = *section;
  }

  std::vector<const Elf32_Shdr*> loaded;
  for (const auto& section : sections)
    if ((section.sh_flags & SHF_ALLOC) != 0 && section.sh_type != SHT_NOBITS && section.sh_size != 0)
      loaded.push_back(&section);
  std::stable_sort(loaded.begin(), loaded.end(),
                   [](const Elf32_Shdr* a, const Elf32_Shdr* b) { return a->sh_addr < b->sh_addr; });
  uint64_t packed = 0;
  for (const Elf32_Shdr* section : loaded) {
    uint64_t align = std::max<uint64_t>(1, section->sh_addralign);
    packed = (packed + align - 1) / align * align + section->sh_size;
  }
  if (packed > UINT32_MAX) return std::nullopt;

  ThreadImage result;
  result.text_bytes = uint32_t(packed);
  for (const auto& table : sections) {
    if (table.sh_type != SHT_SYMTAB) continue;
    if (table.sh_entsize != sizeof(Elf32_Sym) || table.sh_link >= sections.size()) return std::nullopt;
    const Elf32_Shdr& names = sections[table.sh_link];
    for (uint64_t at = sizeof(Elf32_Sym); at + sizeof(Elf32_Sym) <= table.sh_size; at += sizeof(Elf32_Sym)) {
      auto symbol = read_elf_struct<Elf32_Sym>(image, uint64_t{table.sh_offset} + at);
      if (!symbol) return std::nullopt;
      if (symbol->st_shndx != SHN_UNDEF || ELF32_ST_BIND(symbol->st_info) != STB_GLOBAL) continue;
      auto name = string_at(image, names, symbol->st_name);
      if (!name) return std::nullopt;
      if (!name->empty()) result.undefined_symbols.push_back(demangle(std::string(*name)));
    }
  }
  std::sort(result.undefined_symbols.begin(), result.undefined_symbols.end());
  result.undefined_symbols.erase(std::unique(result.undefined_symbols.begin(), result.undefined_symbols.end()),
                                 result.undefined_symbols.end());
  return result;
}

bool core_lacks_instruction(std::string_view mnemonic) {
  constexpr std::string_view kLacked[] = {"fdiv.",  "fsqrt.", "vdiv",     "vrem",  "vfdiv",
                                          "vfrdiv", "vfsqrt", "vfrsqrt7", "vfrec7"};
  return std::any_of(std::begin(kLacked), std::end(kLacked),
                     [&](std::string_view prefix) { return mnemonic.starts_with(prefix); });
}

std::vector<LackedInstruction> find_lacked_instructions(std::string_view objdump_output) {
  std::vector<LackedInstruction> found;
  std::string function;
  while (!objdump_output.empty()) {
    size_t end = objdump_output.find('\n');
    std::string_view line = objdump_output.substr(0, end);
    objdump_output.remove_prefix(end == std::string_view::npos ? objdump_output.size() : end + 1);

    // "00010074 <kernel_main()>:" starts a symbol.
    if (size_t open = line.find(" <");
        open != std::string_view::npos && is_hex(line.substr(0, open)) && line.ends_with(">:")) {
      function = std::string(line.substr(open + 2, line.size() - open - 4));
      continue;
    }
    // "   100b0:\tfdiv.s\tfa5,fa5,fa4" is an instruction.
    std::string_view rest = trim_left(line);
    size_t colon = rest.find(':');
    if (colon == std::string_view::npos || !is_hex(rest.substr(0, colon))) continue;
    std::string_view body = trim_left(rest.substr(colon + 1));
    std::string_view mnemonic = body.substr(0, body.find_first_of(" \t"));
    if (core_lacks_instruction(mnemonic))
      found.push_back({parse_hex(rest.substr(0, colon)), std::string(mnemonic), function});
  }
  return found;
}

std::vector<SourceLine> parse_addr2line_output(std::string_view output, size_t count) {
  std::vector<SourceLine> lines(count);
  for (size_t i = 0; i < count && !output.empty(); ++i) {
    size_t end = output.find('\n');
    std::string_view line = output.substr(0, end);
    output.remove_prefix(end == std::string_view::npos ? output.size() : end + 1);
    if (size_t note = line.find(" ("); note != std::string_view::npos) line = line.substr(0, note);
    size_t colon = line.rfind(':');
    if (colon == std::string_view::npos || colon == 0) continue;
    std::string_view file = line.substr(0, colon);
    std::string_view number = line.substr(colon + 1);
    if (file == "??" || number.empty() ||
        !std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; }) || number.size() > 9)
      continue;
    uint32_t value = 0;
    for (char c : number)
      value = value * 10 + uint32_t(c - '0');
    if (value == 0) continue;
    lines[i] = {std::string(file), value};
  }
  return lines;
}

} // namespace tessel::jit
