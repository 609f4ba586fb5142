// Reading an emitted runner's manifest (resources/runner_manifest.hpp): the
// manifest's lines, tokenised, then each field parsed against its usage;
// everything is checked before the Operation is built.
#include "resources/runner_manifest.hpp"

#include <charconv>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "tessel/error.hpp"
#include "tessel/runner.hpp"

namespace tessel::resources {

namespace fs = std::filesystem;

namespace {

struct Token {
  std::string text;
  bool is_string = false;
};

// Parsing one manifest: every error names file:line and what was expected.
class ManifestParser {
public:
  explicit ManifestParser(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw ValidationError(path_ + ":" + std::to_string(line_) + ": " + what);
  }
  // A field whose tokens do not fit its usage.
  [[noreturn]] void malformed(const std::string& field, const std::string& problem, const std::string& usage) const {
    fail(field + ": " + problem + "; expected '" + usage + "'");
  }

  void set_line(size_t line) { line_ = line; }

  std::vector<Token> tokenize(const std::string& text) const {
    std::vector<Token> tokens;
    size_t i = 0;
    while (i < text.size()) {
      if (text[i] == ' ' || text[i] == '\t' || text[i] == '\r') {
        ++i;
        continue;
      }
      Token t;
      if (text[i] == '"') {
        t.is_string = true;
        ++i;
        bool closed = false;
        while (i < text.size()) {
          const char c = text[i++];
          if (c == '"') {
            closed = true;
            break;
          }
          if (c != '\\') {
            t.text += c;
            continue;
          }
          if (i == text.size()) break;
          const char e = text[i++];
          if (e == '\\' || e == '"')
            t.text += e;
          else if (e == 'n')
            t.text += '\n';
          else if (e == 't')
            t.text += '\t';
          else
            fail(std::string("unknown escape '\\") + e + "' in a string; expected one of \\\\ \\\" \\n \\t");
        }
        if (!closed) fail("unterminated string (no closing '\"')");
        if (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != '\r')
          fail("a string is followed by '" + std::string(1, text[i]) + "'; expected a space between tokens");
      } else {
        while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != '\r')
          t.text += text[i++];
      }
      tokens.push_back(std::move(t));
    }
    return tokens;
  }

  // Token-level readers, each with the field's usage for messages.
  uint32_t u32(const Token& t, const std::string& field, const std::string& usage, const std::string& what) const {
    uint64_t v = 0;
    const char* end = t.text.data() + t.text.size();
    auto [p, ec] = std::from_chars(t.text.data(), end, v);
    if (t.is_string || t.text.empty() || ec != std::errc() || p != end || v > 0xffffffffull)
      malformed(field, what + " '" + t.text + "' is not an unsigned 32-bit integer", usage);
    return uint32_t(v);
  }
  std::string str(const Token& t, const std::string& field, const std::string& usage, const std::string& what) const {
    if (!t.is_string) malformed(field, what + " '" + t.text + "' is not a quoted string", usage);
    return t.text;
  }
  KernelKind kind(const Token& t, const std::string& field, const std::string& usage) const {
    if (!t.is_string && t.text == "Compute") return KernelKind::Compute;
    if (!t.is_string && t.text == "DataMovement") return KernelKind::DataMovement;
    malformed(field, "kind '" + t.text + "' is not Compute or DataMovement", usage);
  }
  bool flag(const Token& t, const std::string& key, const std::string& field, const std::string& usage) const {
    if (t.is_string || t.text.rfind(key + "=", 0) != 0)
      malformed(field, "got '" + t.text + "' where " + key + "=<0|1> belongs", usage);
    const std::string v = t.text.substr(key.size() + 1);
    if (v != "0" && v != "1") malformed(field, key + " is '" + v + "', not 0 or 1", usage);
    return v == "1";
  }
  CoreRangeSet cores(const Token& t, const std::string& field, const std::string& usage) const {
    // {(x,y)-(x,y),(x,y),...}
    const std::string& s = t.text;
    auto bad = [&]() -> void {
      malformed(field, "core set '" + s + "' is not of the form {(x,y)-(x,y),(x,y)}", usage);
    };
    if (t.is_string || s.size() < 2 || s.front() != '{' || s.back() != '}') bad();
    std::vector<CoreRange> ranges;
    size_t i = 1;
    auto number = [&](uint32_t& out) {
      const char* begin = s.data() + i;
      auto [p, ec] = std::from_chars(begin, s.data() + s.size() - 1, out);
      if (ec != std::errc() || p == begin) bad();
      i = size_t(p - s.data());
    };
    auto expect = [&](char c) {
      if (i >= s.size() - 1 || s[i] != c) bad();
      ++i;
    };
    auto coord = [&]() {
      CoreCoord c;
      expect('(');
      number(c.x);
      expect(',');
      number(c.y);
      expect(')');
      return c;
    };
    while (i < s.size() - 1) {
      if (!ranges.empty()) expect(',');
      const CoreCoord a = coord();
      CoreCoord b = a;
      if (i < s.size() - 1 && s[i] == '-') {
        ++i;
        b = coord();
      }
      ranges.push_back(CoreRange(a, b));
    }
    if (ranges.empty()) malformed(field, "core set '" + s + "' is empty", usage);
    return CoreRangeSet(std::move(ranges));
  }

private:
  std::string path_;
  size_t line_ = 0;
};

const char* const kFields =
    "operation, kernel, source, config, compile_args, define, specialization, cb, semaphore, claim, topology, link, "
    "generated, end";
const char* const kUsageKernel =
    "kernel kind <Compute|DataMovement>' or 'kernel captured \"<name>\" <Compute|DataMovement>";
const char* const kUsageConfig =
    "config reader' or 'config writer' or 'config data_movement <RISCV_0|RISCV_1> <NOC_0|NOC_1>' or 'config compute "
    "<LoFi|HiFi2|HiFi3|HiFi4> fp32_dest_acc_en=<0|1> dst_full_sync_en=<0|1> math_approx_mode=<0|1> "
    "bfp8_pack_precise=<0|1> unpack_to_dest_mode=<Default|UnpackToDestFp32>[,...] [enable_trisc2_rvv=<0|1>]";

// One logical kernel as the manifest declares it.
struct ManifestKernel {
  size_t line = 0;
  OperationKernel kernel;
  std::optional<size_t> source_line, config_line, compile_args_line;
  std::string file;
};

} // namespace

std::unique_ptr<Operation> operation_from_manifest(std::string_view text, const ManifestOrigin& origin) {
  ManifestParser p(origin.manifest_path);
  const std::string version_usage = "tessel-runner " + std::to_string(kRunnerFormatVersion);
  bool have_header = false, have_end = false, in_resources = false;
  std::optional<std::string> name;
  std::vector<ManifestKernel> kernels;
  std::vector<std::pair<uint32_t, std::vector<CBFormatDescriptor>>> cbs;
  std::vector<uint32_t> semaphores;
  struct ManifestClaim {
    size_t line;
    std::string name;
    KernelSelector kernel;   // KernelKind, or a placeholder Kernel carrying the captured name
    std::string kernel_name; // the captured Kernel's name ("" for KernelKind)
  };
  std::vector<ManifestClaim> claims;
  FabricTopology topology;
  std::optional<size_t> topology_line;

  std::istringstream lines{std::string(text)};
  std::string raw;
  size_t number = 0;
  while (std::getline(lines, raw)) {
    p.set_line(++number);
    const size_t first = raw.find_first_not_of(" \t\r");
    if (first == std::string::npos || raw[first] == '#') continue;
    const std::vector<Token> t = p.tokenize(raw);
    const std::string field = t[0].is_string ? quote_string(t[0].text) : t[0].text;
    if (have_end) p.fail("'" + field + "' after 'end'; expected 'end' to be the last line");
    if (!have_header) {
      if (field != "tessel-runner")
        p.fail("the manifest starts with '" + field + "'; expected the header '" + version_usage + "'");
      if (t.size() != 2)
        p.malformed(field, "the header has " + std::to_string(t.size() - 1) + " values", version_usage);
      if (t[1].text != std::to_string(kRunnerFormatVersion))
        p.fail("format version " + t[1].text + " is not supported; expected '" + version_usage + "'");
      have_header = true;
      continue;
    }
    if (field == "operation") {
      if (name) p.fail("a second 'operation' line; expected one");
      if (t.size() != 2) p.malformed(field, std::to_string(t.size() - 1) + " values", "operation \"<name>\"");
      name = p.str(t[1], field, "operation \"<name>\"", "the name");
      continue;
    }
    if (!name) p.fail("'" + field + "' before the 'operation' line; expected 'operation \"<name>\"' after the header");
    if (field == "kernel") {
      if (in_resources) p.fail("'kernel' after a cb or semaphore line; expected every kernel before them");
      ManifestKernel k;
      k.line = number;
      if (t.size() == 3 && t[1].text == "kind" && !t[1].is_string) {
        k.kernel.kernel = p.kind(t[2], field, kUsageKernel);
      } else if (t.size() == 4 && t[1].text == "captured" && !t[1].is_string) {
        const std::string kname = p.str(t[2], field, kUsageKernel, "the name");
        if (kname.empty()) p.malformed(field, "the captured Kernel's name is empty", kUsageKernel);
        for (const ManifestKernel& o : kernels)
          if (const auto* h = std::get_if<Kernel>(&o.kernel.kernel); h && h->name() == kname)
            p.fail("a second captured Kernel named '" + kname + "' (the first is on line " + std::to_string(o.line) +
                   "); expected unique names");
        k.kernel.kernel = Kernel(p.kind(t[3], field, kUsageKernel), kname);
      } else {
        p.malformed(field, "the tokens do not name a kernel", kUsageKernel);
      }
      for (const ManifestKernel& o : kernels)
        if (std::holds_alternative<KernelKind>(k.kernel.kernel) &&
            std::holds_alternative<KernelKind>(o.kernel.kernel) &&
            std::get<KernelKind>(o.kernel.kernel) == std::get<KernelKind>(k.kernel.kernel))
          p.fail("a second kernel selected by KernelKind::" + to_string(kind_of(k.kernel.kernel)) +
                 " (the first is on line " + std::to_string(o.line) + "); expected one per kind");
      kernels.push_back(std::move(k));
      continue;
    }
    const bool kernel_field = field == "source" || field == "config" || field == "compile_args" || field == "define" ||
                              field == "specialization";
    if (kernel_field) {
      if (kernels.empty() || in_resources)
        p.fail("'" + field +
               "' belongs to a kernel; expected it after a 'kernel' line and before the first cb or "
               "semaphore line");
      ManifestKernel& k = kernels.back();
      OperationKernel& ok = k.kernel;
      const std::string owner =
          "kernel " + std::to_string(kernels.size() - 1) + " (line " + std::to_string(k.line) + ")";
      auto once = [&](std::optional<size_t>& seen) {
        if (seen)
          p.fail("a second '" + field + "' line for " + owner + " (the first is on line " + std::to_string(*seen) +
                 "); expected one");
        seen = number;
      };
      if (field == "source") {
        once(k.source_line);
        const char* usage = "source \"<file name>\"";
        if (t.size() != 2) p.malformed(field, std::to_string(t.size() - 1) + " values", usage);
        k.file = p.str(t[1], field, usage, "the file name");
        if (k.file.empty() || k.file.find('/') != std::string::npos || k.file == "." || k.file == "..")
          p.malformed(field, "'" + k.file + "' is not a file name inside the runner directory", usage);
      } else if (field == "config") {
        once(k.config_line);
        const std::string which = t.size() >= 2 ? t[1].text : "";
        if (which == "reader" && t.size() == 2) {
          ok.config = ReaderConfigDescriptor{};
        } else if (which == "writer" && t.size() == 2) {
          ok.config = WriterConfigDescriptor{};
        } else if (which == "data_movement" && t.size() == 4) {
          DataMovementConfigDescriptor dm;
          if (t[2].text == "RISCV_0")
            dm.processor = DataMovementProcessor::RISCV_0;
          else if (t[2].text == "RISCV_1")
            dm.processor = DataMovementProcessor::RISCV_1;
          else
            p.malformed(field, "processor '" + t[2].text + "' is not RISCV_0 or RISCV_1", kUsageConfig);
          if (t[3].text == "NOC_0")
            dm.noc = NOC::NOC_0;
          else if (t[3].text == "NOC_1")
            dm.noc = NOC::NOC_1;
          else
            p.malformed(field, "noc '" + t[3].text + "' is not NOC_0 or NOC_1", kUsageConfig);
          ok.config = dm;
        } else if (which == "compute" && (t.size() == 8 || t.size() == 9)) {
          ComputeConfigDescriptor c;
          const std::string& f = t[2].text;
          if (f == "LoFi")
            c.math_fidelity = MathFidelity::LoFi;
          else if (f == "HiFi2")
            c.math_fidelity = MathFidelity::HiFi2;
          else if (f == "HiFi3")
            c.math_fidelity = MathFidelity::HiFi3;
          else if (f == "HiFi4")
            c.math_fidelity = MathFidelity::HiFi4;
          else
            p.malformed(field, "math fidelity '" + f + "' is not LoFi, HiFi2, HiFi3 or HiFi4", kUsageConfig);
          c.fp32_dest_acc_en = p.flag(t[3], "fp32_dest_acc_en", field, kUsageConfig);
          c.dst_full_sync_en = p.flag(t[4], "dst_full_sync_en", field, kUsageConfig);
          c.math_approx_mode = p.flag(t[5], "math_approx_mode", field, kUsageConfig);
          c.bfp8_pack_precise = p.flag(t[6], "bfp8_pack_precise", field, kUsageConfig);
          const std::string key = "unpack_to_dest_mode=";
          if (t[7].is_string || t[7].text.rfind(key, 0) != 0)
            p.malformed(field, "got '" + t[7].text + "' where unpack_to_dest_mode= belongs", kUsageConfig);
          std::stringstream modes(t[7].text.substr(key.size()));
          std::string mode;
          while (std::getline(modes, mode, ',')) {
            if (mode == "Default")
              c.unpack_to_dest_mode.push_back(UnpackToDestMode::Default);
            else if (mode == "UnpackToDestFp32")
              c.unpack_to_dest_mode.push_back(UnpackToDestMode::UnpackToDestFp32);
            else
              p.malformed(field, "unpack_to_dest_mode '" + mode + "' is not Default or UnpackToDestFp32", kUsageConfig);
          }
          if (t.size() == 9) c.enable_trisc2_rvv = p.flag(t[8], "enable_trisc2_rvv", field, kUsageConfig);
          ok.config = c;
        } else {
          p.malformed(field, "the tokens do not name a config", kUsageConfig);
        }
        const bool compute = std::holds_alternative<ComputeConfigDescriptor>(ok.config);
        if (compute != (kind_of(ok.kernel) == KernelKind::Compute))
          p.fail("config: " + owner + " is a " + to_string(kind_of(ok.kernel)) + " kernel; expected a " +
                 (compute ? "data-movement" : "compute") + " config");
      } else if (field == "compile_args") {
        once(k.compile_args_line);
        for (size_t i = 1; i < t.size(); ++i)
          ok.compile_args.push_back(p.u32(t[i], field, "compile_args <u32>...", "value " + std::to_string(i)));
      } else if (field == "define") {
        const char* usage = "define \"<name>\" \"<value>\"";
        if (t.size() != 3) p.malformed(field, std::to_string(t.size() - 1) + " values", usage);
        const std::string dname = p.str(t[1], field, usage, "the name");
        if (dname.empty()) p.malformed(field, "the name is empty", usage);
        if (ok.defines.count(dname))
          p.fail("define: '" + dname + "' is defined twice for " + owner + "; expected once");
        ok.defines[dname] = p.str(t[2], field, usage, "the value");
      } else {
        const char* usage = "specialization <cores> <u32>...";
        if (t.size() < 2) p.malformed(field, "no core set", usage);
        CoreRangeSet cores = p.cores(t[1], field, usage);
        std::vector<uint32_t> args;
        for (size_t i = 2; i < t.size(); ++i)
          args.push_back(p.u32(t[i], field, usage, "value " + std::to_string(i - 1)));
        for (size_t s = 0; s < ok.specializations.size(); ++s)
          if (ok.specializations[s].first.intersects(cores))
            p.fail("specialization: cores " + cores.str() + " overlap specialization " + std::to_string(s) + " of " +
                   owner + " (" + ok.specializations[s].first.str() + "); expected each core in one group");
        ok.specializations.emplace_back(std::move(cores), std::move(args));
      }
      continue;
    }
    if (field == "cb") {
      in_resources = true;
      const char* usage = "cb <total_size_bytes> <index>:<DataFormat>:<page_size_bytes>...";
      if (t.size() < 3) p.malformed(field, "no total size or no format", usage);
      const uint32_t total = p.u32(t[1], field, usage, "the total size");
      std::vector<CBFormatDescriptor> formats;
      for (size_t i = 2; i < t.size(); ++i) {
        const std::string& s = t[i].text;
        const size_t a = s.find(':'), b = a == std::string::npos ? a : s.find(':', a + 1);
        if (t[i].is_string || b == std::string::npos)
          p.malformed(field, "format '" + s + "' is not <index>:<DataFormat>:<page_size_bytes>", usage);
        CBFormatDescriptor f;
        const uint32_t index = p.u32(Token{s.substr(0, a)}, field, usage, "the CB index");
        if (index > 255) p.malformed(field, "CB index " + std::to_string(index) + " is above 255", usage);
        f.buffer_index = uint8_t(index);
        try {
          f.data_format = parse_data_format(s.substr(a + 1, b - a - 1));
        } catch (const ValidationError& e) {
          p.malformed(field, e.what(), usage);
        }
        f.page_size = p.u32(Token{s.substr(b + 1)}, field, usage, "the page size");
        formats.push_back(f);
      }
      cbs.emplace_back(total, std::move(formats));
      continue;
    }
    if (field == "semaphore") {
      in_resources = true;
      const char* usage = "semaphore <initial_value>";
      if (t.size() != 2) p.malformed(field, std::to_string(t.size() - 1) + " values", usage);
      semaphores.push_back(p.u32(t[1], field, usage, "the initial value"));
      continue;
    }
    if (field == "claim") {
      in_resources = true;
      const char* usage = "claim \"<name>\" kind <Compute|DataMovement>' or 'claim \"<name>\" captured \"<kernel>\"";
      if (t.size() != 4) p.malformed(field, std::to_string(t.size() - 1) + " values", usage);
      ManifestClaim c{number, p.str(t[1], field, usage, "the claim name"), KernelKind::DataMovement, ""};
      if (c.name.empty()) p.malformed(field, "the claim name is empty", usage);
      for (const ManifestClaim& o : claims)
        if (o.name == c.name)
          p.fail("a second claim named '" + c.name + "' (the first is on line " + std::to_string(o.line) +
                 "); expected unique names");
      if (t[2].text == "kind" && !t[2].is_string)
        c.kernel = p.kind(t[3], field, usage);
      else if (t[2].text == "captured" && !t[2].is_string)
        c.kernel_name = p.str(t[3], field, usage, "the kernel name");
      else
        p.malformed(field, "the tokens do not name a kernel", usage);
      claims.push_back(std::move(c));
      continue;
    }
    if (field == "topology") {
      in_resources = true;
      const char* usage = "topology <num_devices>";
      if (topology_line)
        p.fail("a second 'topology' line (the first is on line " + std::to_string(*topology_line) + "); expected one");
      if (t.size() != 2) p.malformed(field, std::to_string(t.size() - 1) + " values", usage);
      topology.num_devices = p.u32(t[1], field, usage, "the device count");
      if (topology.num_devices == 0) p.malformed(field, "0 devices", usage);
      topology_line = number;
      continue;
    }
    if (field == "link" || field == "generated") {
      in_resources = true;
      const std::string usage = field + " <local_device> <remote_device> <link_index>";
      if (t.size() != 4) p.malformed(field, std::to_string(t.size() - 1) + " values", usage.c_str());
      const FabricLink l{p.u32(t[1], field, usage.c_str(), "the local device"),
                         p.u32(t[2], field, usage.c_str(), "the remote device"),
                         p.u32(t[3], field, usage.c_str(), "the link index")};
      (field == "link" ? topology.links : topology.generated).push_back(l);
      continue;
    }
    if (field == "end") {
      if (t.size() != 1) p.malformed(field, "values after 'end'", "end");
      have_end = true;
      continue;
    }
    p.fail("unknown field '" + field + "'; expected one of: " + kFields);
  }
  // Whole-file rules, reported at the line they concern.
  if (!have_header) {
    p.set_line(number == 0 ? 1 : number);
    p.fail("the manifest is empty; expected the header '" + version_usage + "'");
  }
  p.set_line(number);
  if (!name) p.fail("no 'operation' line; expected 'operation \"<name>\"'");
  if (kernels.empty()) p.fail("no 'kernel' line; expected at least one kernel");
  if (!have_end) p.fail("no 'end' line; expected 'end' as the last line (the manifest may be truncated)");
  for (size_t i = 0; i < kernels.size(); ++i) {
    ManifestKernel& k = kernels[i];
    p.set_line(k.line);
    const std::string label = kernel_label(i, k.kernel.kernel);
    if (!k.source_line) p.fail(label + " has no 'source' line; expected 'source \"<file name>\"' after it");
    if (!k.config_line) p.fail(label + " has no 'config' line; expected one of '" + std::string(kUsageConfig) + "'");
    if (!k.compile_args_line) p.fail(label + " has no 'compile_args' line; expected 'compile_args <u32>...'");
    p.set_line(*k.source_line);
    const fs::path file = origin.directory / k.file;
    if (!origin.is_kernel_file(file))
      p.fail(label + ": kernel file '" + file.string() + "' does not exist; expected the source emit_runner wrote");
    k.kernel.source = file.string();
    k.kernel.source_is_path = true;
  }

  // Build: everything above has been checked.
  auto op = std::make_unique<Operation>(*name);
  for (ManifestKernel& k : kernels) {
    p.set_line(k.line);
    try {
      op->add_kernel(std::move(k.kernel));
    } catch (const ValidationError& e) {
      p.fail(e.what());
    }
  }
  for (auto& [total, formats] : cbs)
    op->add_circular_buffer(total, std::move(formats));
  for (uint32_t initial : semaphores)
    op->add_semaphore(initial);
  for (const ManifestClaim& c : claims) {
    p.set_line(c.line);
    try {
      const KernelSelector kernel =
          c.kernel_name.empty() ? c.kernel : KernelSelector(find_captured_kernel(*op, c.kernel_name));
      op->add_fabric_claim(FabricManagerClaim(c.name, kernel));
    } catch (const ValidationError& e) {
      p.fail(std::string("claim: ") + e.what());
    }
  }
  op->set_fabric_topology(topology);
  return op;
}

} // namespace tessel::resources
