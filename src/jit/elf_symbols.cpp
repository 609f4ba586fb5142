#include "jit/elf_symbols.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <elf.h>

namespace tessel::jit {
namespace {

bool is_toolchain_symbol(std::string_view name) {
  constexpr std::string_view kPrefixes[] = {
      "__",       "completed.", "_GLOBAL_OFFSET_TABLE_",
      "_DYNAMIC", "tessel_",    "_ZGV"}; // _ZGV: guard variable of a static that is listed itself
  return std::any_of(std::begin(kPrefixes), std::end(kPrefixes),
                     [&](std::string_view prefix) { return name.starts_with(prefix); });
}

struct AddressRange {
  uint64_t begin = 0;
  uint64_t end = 0;
  bool contains(uint64_t address) const { return address >= begin && address < end; }
};

std::optional<AddressRange> relro_range(std::string_view image, const Elf64_Ehdr& header) {
  AddressRange range;
  if (header.e_phoff == 0) return range;
  if (header.e_phentsize != sizeof(Elf64_Phdr)) return std::nullopt;
  for (uint16_t i = 0; i < header.e_phnum; ++i) {
    auto program = read_elf_struct<Elf64_Phdr>(image, header.e_phoff + uint64_t{i} * sizeof(Elf64_Phdr));
    if (!program) return std::nullopt;
    if (program->p_type == PT_GNU_RELRO) range = {program->p_vaddr, program->p_vaddr + program->p_memsz};
  }
  return range;
}

} // namespace

std::optional<std::vector<std::string>> writable_data_symbols(std::string_view image) {
  auto header = read_elf_struct<Elf64_Ehdr>(image, 0);
  if (!header || std::memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 || header->e_ident[EI_CLASS] != ELFCLASS64 ||
      header->e_shentsize != sizeof(Elf64_Shdr) || header->e_shnum == 0)
    return std::nullopt;
  auto relro = relro_range(image, *header);
  if (!relro) return std::nullopt;

  std::vector<Elf64_Shdr> sections(header->e_shnum);
  for (uint16_t i = 0; i < header->e_shnum; ++i) {
    auto section = read_elf_struct<Elf64_Shdr>(image, header->e_shoff + uint64_t{i} * sizeof(Elf64_Shdr));
    if (!section) return std::nullopt;
    sections[i] = *section;
  }
  const Elf64_Shdr* symbols = nullptr;
  for (const auto& section : sections)
    if (section.sh_type == SHT_SYMTAB) symbols = &section;
  if (symbols == nullptr)
    for (const auto& section : sections)
      if (section.sh_type == SHT_DYNSYM) symbols = &section;
  if (symbols == nullptr) return std::vector<std::string>{};
  if (symbols->sh_link >= sections.size() || symbols->sh_entsize != sizeof(Elf64_Sym)) return std::nullopt;
  const Elf64_Shdr& strings = sections[symbols->sh_link];
  if (strings.sh_offset > image.size() || image.size() - strings.sh_offset < strings.sh_size) return std::nullopt;
  std::string_view string_table = image.substr(strings.sh_offset, strings.sh_size);
  auto name_at = [&](uint32_t offset) -> std::optional<std::string_view> {
    if (offset >= string_table.size()) return std::nullopt;
    std::string_view rest = string_table.substr(offset);
    size_t end = rest.find('\0');
    if (end == std::string_view::npos) return std::nullopt;
    return rest.substr(0, end);
  };

  std::vector<std::string> names;
  // Local symbols follow the STT_FILE symbol of the file that defined them;
  // crtstuff.c's (completed.0, ...) belong to the toolchain.
  bool in_crtstuff = false;
  uint64_t count = symbols->sh_size / sizeof(Elf64_Sym);
  for (uint64_t i = 1; i < count; ++i) {
    auto symbol = read_elf_struct<Elf64_Sym>(image, symbols->sh_offset + i * sizeof(Elf64_Sym));
    if (!symbol) return std::nullopt;
    auto name = name_at(symbol->st_name);
    if (!name) return std::nullopt;
    unsigned type = ELF64_ST_TYPE(symbol->st_info);
    if (type == STT_FILE) {
      in_crtstuff = *name == "crtstuff.c";
      continue;
    }
    if (type != STT_OBJECT && type != STT_TLS) continue;
    if (name->empty() || is_toolchain_symbol(*name)) continue;
    if (ELF64_ST_BIND(symbol->st_info) == STB_LOCAL && in_crtstuff) continue;
    if (symbol->st_shndx == SHN_UNDEF || symbol->st_shndx >= SHN_LORESERVE || symbol->st_shndx >= sections.size())
      continue;
    if ((sections[symbol->st_shndx].sh_flags & SHF_WRITE) == 0) continue;
    // A TLS symbol's value is an offset in the TLS block, not an address.
    if (type == STT_OBJECT && relro->contains(symbol->st_value)) continue;
    names.emplace_back(*name);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::string demangle(const std::string& name) {
  int status = 0;
  char* text = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || text == nullptr) return name;
  std::string result = text;
  std::free(text);
  return result;
}

} // namespace tessel::jit
