#include "jit/entry_record.hpp"

#include "jit/cache_key.hpp"

#include <vector>

namespace tessel::jit {
namespace {

constexpr std::string_view kDependenciesLine = "dependencies:\n";
constexpr std::string_view kBinaryHashLabel = "binary-hash: ";
constexpr size_t kBinaryHashLineBytes = kBinaryHashLabel.size() + kContentHashDigits + 1;

// content_hash spells digits in lower case; anything else cannot match one.
bool is_content_hash(std::string_view text) {
  if (text.size() != kContentHashDigits) return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// The record without its last line, and the hash that line holds.
struct SplitRecord {
  std::string_view body;
  std::string_view binary_hash;
};

std::optional<SplitRecord> split_record(std::string_view key) {
  if (key.size() < kBinaryHashLineBytes) return std::nullopt;
  std::string_view line = key.substr(key.size() - kBinaryHashLineBytes);
  if (!line.starts_with(kBinaryHashLabel) || line.back() != '\n') return std::nullopt;
  std::string_view hash = line.substr(kBinaryHashLabel.size(), kContentHashDigits);
  if (!is_content_hash(hash)) return std::nullopt;
  return SplitRecord{key.substr(0, key.size() - kBinaryHashLineBytes), hash};
}

} // namespace

std::string entry_record_text(std::string_view front, std::string_view dependencies, std::string_view binary_hash) {
  std::string text;
  text.reserve(front.size() + kDependenciesLine.size() + dependencies.size() + kBinaryHashLineBytes);
  text += front;
  text += kDependenciesLine;
  text += dependencies;
  text += kBinaryHashLabel;
  text += binary_hash;
  text += '\n';
  return text;
}

EntryState check_entry(const EntryFiles& files, std::string_view front, const DependencyHasher& current_hash) {
  if (!files.key || !files.deps || !files.key->starts_with(front)) return EntryState::Stale;
  std::optional<SplitRecord> record = split_record(*files.key);
  if (!record) return EntryState::Stale;
  std::optional<std::vector<std::string>> paths = parse_dependencies_text(*files.deps);
  if (!paths) return EntryState::Stale;
  std::vector<Dependency> current;
  current.reserve(paths->size());
  for (auto& path : *paths) {
    std::optional<std::string> hash = current_hash(path);
    if (!hash) return EntryState::Stale;
    current.push_back({std::move(path), std::move(*hash)});
  }
  // The record must be exactly what a build of these inputs writes, so a
  // header edited since (or a record written for another header version)
  // is a miss.
  std::string expected = entry_record_text(front, dependencies_text(current), record->binary_hash);
  if (*files.key != expected) return EntryState::Stale;
  if (!files.binary) return EntryState::BinaryMissing;
  if (content_hash(*files.binary) != record->binary_hash) return EntryState::BinaryDamaged;
  return EntryState::Valid;
}

} // namespace tessel::jit
