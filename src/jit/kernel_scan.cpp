#include "jit/kernel_scan.hpp"

#include "jit/file_io.hpp"

#include <filesystem>
#include <system_error>
#include <unordered_set>

namespace tessel::jit {
namespace {

// More headers than any kernel includes; a bound on a pathological tree.
constexpr size_t kMaxHeaders = 512;

struct Include {
  std::string name;
  bool quoted = false;
};

// `#include "name"` and `#include <name>` lines (white space allowed around
// '#'); other directives and includes through macros are skipped.
std::vector<Include> includes_of(std::string_view text) {
  std::vector<Include> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    size_t i = line.find_first_not_of(" \t");
    if (i == std::string_view::npos || line[i] != '#') continue;
    i = line.find_first_not_of(" \t", i + 1);
    if (i == std::string_view::npos || line.substr(i, 7) != "include") continue;
    i = line.find_first_not_of(" \t", i + 7);
    if (i == std::string_view::npos || (line[i] != '"' && line[i] != '<')) continue;
    const char close = line[i] == '"' ? '"' : '>';
    const size_t stop = line.find(close, i + 1);
    if (stop == std::string_view::npos || stop == i + 1) continue;
    out.push_back({std::string(line.substr(i + 1, stop - i - 1)), close == '"'});
  }
  return out;
}

bool is_file(const std::string& path) {
  std::error_code error;
  return std::filesystem::is_regular_file(path, error);
}

std::string normal(const std::string& path) { return std::filesystem::path(path).lexically_normal().string(); }

// The local header an include names, or "" if it is tessel's, the
// system's, or nowhere.
std::string resolve(const Include& inc, const std::string& includer_dir, const std::vector<std::string>& include_dirs,
                    const std::string& api_include_dir) {
  if (inc.quoted && is_file(includer_dir + "/" + inc.name)) return normal(includer_dir + "/" + inc.name);
  if (is_file(api_include_dir + "/" + inc.name)) return "";
  for (const std::string& dir : include_dirs)
    if (is_file(dir + "/" + inc.name)) return normal(dir + "/" + inc.name);
  return "";
}

} // namespace

std::string kernel_own_text(std::string_view source, const std::string& source_dir,
                            const std::vector<std::string>& include_dirs, const std::string& api_include_dir) {
  std::string text(source);
  std::unordered_set<std::string> seen;
  std::vector<std::pair<std::string, std::vector<Include>>> pending; // (directory, its file's includes)
  pending.emplace_back(source_dir, includes_of(source));
  while (!pending.empty() && seen.size() < kMaxHeaders) {
    auto [dir, includes] = std::move(pending.back());
    pending.pop_back();
    for (const Include& inc : includes) {
      std::string path = resolve(inc, dir, include_dirs, api_include_dir);
      if (path.empty() || !seen.insert(path).second) continue;
      std::optional<std::string> content = read_file(path);
      if (!content) continue; // the compiler reports what it cannot read
      text += '\n';
      text += *content;
      pending.emplace_back(std::filesystem::path(path).parent_path().string(), includes_of(*content));
    }
  }
  return text;
}

} // namespace tessel::jit
