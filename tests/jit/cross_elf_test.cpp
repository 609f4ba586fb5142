// Tests of reading thread images and tool output for the RISC-V size
// estimate (src/jit/cross_elf.cpp), on inputs made here.
#include "jit/cross_elf.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <elf.h>
#include <string>
#include <vector>

namespace tessel::jit {
namespace {

TEST(CrossElfTest, LackedInstructionGroups) {
  for (const char* lacked : {"fdiv.s", "fdiv.d", "fdiv.h", "fsqrt.s", "fsqrt.d", "vdiv.vv", "vdivu.vx", "vrem.vx",
                             "vremu.vv", "vfdiv.vf", "vfrdiv.vf", "vfsqrt.v", "vfrsqrt7.v", "vfrec7.v"})
    EXPECT_TRUE(core_lacks_instruction(lacked)) << lacked;
  for (const char* present : {"div", "divu", "rem", "remu", "fmul.s", "fmadd.s", "fmin.s", "vfmul.vv", "vfredusum.vs",
                              "vfrsub.vf", "vfwmul.vv", "vmul.vv", "fdiv", "vfdi", ""})
    EXPECT_FALSE(core_lacks_instruction(present)) << present;
}

TEST(CrossElfTest, FindsLackedInstructionsWithTheirFunction) {
  const std::string disassembly = "\n"
                                  "thread.elf:     file format elf32-littleriscv\n"
                                  "\n"
                                  "\n"
                                  "Disassembly of section .text:\n"
                                  "\n"
                                  "00010074 <ratio(float, float)>:\n"
                                  "   10074:\tfdiv.s\tfa0,fa0,fa1\n"
                                  "   10078:\tret\n"
                                  "\n"
                                  "0001007c <kernel_main()>:\n"
                                  "   1007c:\taddi\tsp,sp,-16\n"
                                  "   10080:\tfsqrt.s\tfa5,fa5\n"
                                  "   10084:\tvfrec7.v\tv1,v2\n"
                                  "   10088:\tvfmul.vv\tv1,v2,v3\n"
                                  "\t...\n";
  std::vector<LackedInstruction> found = find_lacked_instructions(disassembly);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].address, 0x10074u);
  EXPECT_EQ(found[0].mnemonic, "fdiv.s");
  EXPECT_EQ(found[0].function, "ratio(float, float)");
  EXPECT_EQ(found[1].address, 0x10080u);
  EXPECT_EQ(found[1].mnemonic, "fsqrt.s");
  EXPECT_EQ(found[1].function, "kernel_main()");
  EXPECT_EQ(found[2].mnemonic, "vfrec7.v");
  EXPECT_TRUE(find_lacked_instructions("").empty());
}

TEST(CrossElfTest, ParsesAddr2lineAnswers) {
  std::vector<SourceLine> lines = parse_addr2line_output("/k/ratio.cpp:5\n"
                                                         "/k/ratio.cpp:12 (discriminator 3)\n"
                                                         "??:0\n"
                                                         "??:?\n"
                                                         "/k/no_line.cpp:?\n",
                                                         6);
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[0].file, "/k/ratio.cpp");
  EXPECT_EQ(lines[0].line, 5u);
  EXPECT_EQ(lines[1].file, "/k/ratio.cpp");
  EXPECT_EQ(lines[1].line, 12u);
  for (size_t i = 2; i < 6; ++i) { // unknown, or missing from the answer
    EXPECT_EQ(lines[i].file, "") << i;
    EXPECT_EQ(lines[i].line, 0u) << i;
  }
}

// A little-endian ELF32 RISC-V image with the given sections (after the null
// section) and symbols, its string tables appended.
struct SectionSpec {
  std::string name;
  uint32_t type;
  uint32_t flags;
  uint32_t addr;
  uint32_t size;
  uint32_t align;
};
struct SymbolSpec {
  std::string name;
  uint16_t section; // SHN_UNDEF or an index
  unsigned char bind;
};

std::string make_image(std::vector<SectionSpec> sections, const std::vector<SymbolSpec>& symbols) {
  std::string strtab(1, '\0');
  std::vector<Elf32_Sym> syms(1);
  for (const auto& spec : symbols) {
    Elf32_Sym sym{};
    sym.st_name = uint32_t(strtab.size());
    strtab += spec.name + '\0';
    sym.st_info = ELF32_ST_INFO(spec.bind, STT_FUNC);
    sym.st_shndx = spec.section;
    syms.push_back(sym);
  }
  std::string symbytes(syms.size() * sizeof(Elf32_Sym), '\0');
  std::memcpy(symbytes.data(), syms.data(), symbytes.size());

  const uint32_t symtab_index = uint32_t(sections.size()) + 1;
  sections.push_back({".symtab", SHT_SYMTAB, 0, 0, uint32_t(symbytes.size()), 4});
  sections.push_back({".strtab", SHT_STRTAB, 0, 0, uint32_t(strtab.size()), 1});
  sections.push_back({".shstrtab", SHT_STRTAB, 0, 0, 0, 1});
  std::string shstrtab(1, '\0');
  std::vector<uint32_t> names;
  for (const auto& section : sections) {
    names.push_back(uint32_t(shstrtab.size()));
    shstrtab += section.name + '\0';
  }
  sections.back().size = uint32_t(shstrtab.size());

  std::string image(sizeof(Elf32_Ehdr), '\0');
  std::vector<Elf32_Shdr> headers(1);
  for (size_t i = 0; i < sections.size(); ++i) {
    const SectionSpec& spec = sections[i];
    Elf32_Shdr header{};
    header.sh_name = names[i];
    header.sh_type = spec.type;
    header.sh_flags = spec.flags;
    header.sh_addr = spec.addr;
    header.sh_offset = uint32_t(image.size());
    header.sh_size = spec.size;
    header.sh_addralign = spec.align;
    if (spec.type == SHT_SYMTAB) {
      header.sh_link = symtab_index + 1;
      header.sh_entsize = sizeof(Elf32_Sym);
      image += symbytes;
    } else if (spec.name == ".strtab") {
      image += strtab;
    } else if (spec.name == ".shstrtab") {
      image += shstrtab;
    } else if (spec.type != SHT_NOBITS) {
      image += std::string(spec.size, '\x13');
    }
    headers.push_back(header);
  }
  Elf32_Ehdr elf{};
  std::memcpy(elf.e_ident, ELFMAG, SELFMAG);
  elf.e_ident[EI_CLASS] = ELFCLASS32;
  elf.e_ident[EI_DATA] = ELFDATA2LSB;
  elf.e_ident[EI_VERSION] = EV_CURRENT;
  elf.e_type = ET_EXEC;
  elf.e_machine = EM_RISCV;
  elf.e_shoff = uint32_t(image.size());
  elf.e_shentsize = sizeof(Elf32_Shdr);
  elf.e_shnum = uint16_t(headers.size());
  elf.e_shstrndx = uint16_t(headers.size() - 1);
  std::memcpy(image.data(), &elf, sizeof elf);
  std::string table(headers.size() * sizeof(Elf32_Shdr), '\0');
  std::memcpy(table.data(), headers.data(), table.size());
  return image + table;
}

TEST(CrossElfTest, PacksTheLoadedSectionsAndListsUndefinedGlobals) {
  std::string image = make_image(
      {
          {".rodata", SHT_PROGBITS, SHF_ALLOC, 0x2000, 5, 8},
          {".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0x1000, 10, 4},
          {".sdata", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 0x3000, 3, 2},
          {".bss", SHT_NOBITS, SHF_ALLOC | SHF_WRITE, 0x4000, 100, 4},
          {".comment", SHT_PROGBITS, 0, 0, 40, 1},
      },
      {{"kernel_main", 2, STB_GLOBAL},
       {"memcpy", SHN_UNDEF, STB_GLOBAL},
       {"_Z3fooi", SHN_UNDEF, STB_GLOBAL},
       {"memcpy", SHN_UNDEF, STB_GLOBAL},
       {"weak_entry", SHN_UNDEF, STB_WEAK},
       {"local_undefined", SHN_UNDEF, STB_LOCAL}});
  std::optional<ThreadImage> summary = read_thread_image(image);
  ASSERT_TRUE(summary.has_value());
  // In address order: .text 0..10, .rodata aligned to 16..21, .sdata to 22..25.
  EXPECT_EQ(summary->text_bytes, 25u);
  EXPECT_EQ(summary->undefined_symbols, (std::vector<std::string>{"foo(int)", "memcpy"}));
}

TEST(CrossElfTest, RejectsImagesThatAreNotElf32RiscV) {
  EXPECT_FALSE(read_thread_image("").has_value());
  EXPECT_FALSE(read_thread_image("not an ELF file at all, just some text").has_value());
  std::string image = make_image({{".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0x1000, 8, 4}}, {});
  ASSERT_TRUE(read_thread_image(image).has_value());

  std::string x86 = image;
  x86[offsetof(Elf32_Ehdr, e_machine)] = char(EM_386);
  EXPECT_FALSE(read_thread_image(x86).has_value());
  std::string elf64 = image;
  elf64[EI_CLASS] = ELFCLASS64;
  EXPECT_FALSE(read_thread_image(elf64).has_value());
  for (size_t cut : {size_t{10}, sizeof(Elf32_Ehdr), image.size() - 1})
    EXPECT_FALSE(read_thread_image(image.substr(0, cut)).has_value()) << cut;
}

} // namespace
} // namespace tessel::jit
