// Tests of the kernel cache's commit record (src/jit/entry_record.cpp): the
// text a build writes and every answer check_entry gives, from bytes alone.
#include "jit/cache_key.hpp"
#include "jit/entry_record.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace tessel::jit {

void PrintTo(EntryState state, std::ostream* out) {
  constexpr const char* kNames[] = {"Valid", "Stale", "BinaryMissing", "BinaryDamaged"};
  *out << kNames[static_cast<int>(state)];
}

namespace {

const std::string kFront = "tessel-kernel-key 2\nsource: k.cpp\n";
const std::string kBinary = "\x7f"
                            "ELF pretend binary";

// Headers as they are "now", for the hasher; absent paths cannot be read.
class Headers {
public:
  Headers() : hashes_{{"/inc/a.h", content_hash("a")}, {"/inc/b.h", content_hash("b")}} {}
  DependencyHasher hasher() {
    return [this](const std::string& path) -> std::optional<std::string> {
      ++calls_;
      auto it = hashes_.find(path);
      if (it == hashes_.end()) return std::nullopt;
      return it->second;
    };
  }
  std::string deps_text() const {
    return dependencies_text({{"/inc/a.h", hashes_.at("/inc/a.h")}, {"/inc/b.h", hashes_.at("/inc/b.h")}});
  }
  void edit(const std::string& path, const std::string& content) { hashes_[path] = content_hash(content); }
  void remove(const std::string& path) { hashes_.erase(path); }
  int calls() const { return calls_; }

private:
  std::map<std::string, std::string> hashes_;
  int calls_ = 0;
};

class EntryRecordTest : public ::testing::Test {
protected:
  EntryState check(std::optional<std::string> key, std::optional<std::string> deps, std::optional<std::string> binary) {
    EntryFiles files;
    if (key) files.key = *key;
    if (deps) files.deps = *deps;
    if (binary) files.binary = *binary;
    return check_entry(files, kFront, headers.hasher());
  }
  std::string record() const { return entry_record_text(kFront, headers.deps_text(), content_hash(kBinary)); }

  Headers headers;
};

TEST_F(EntryRecordTest, RecordTextIsFrontDependenciesAndBinaryHash) {
  EXPECT_EQ(entry_record_text("front\n", "0123 /x.h\n", "abcd"),
            "front\ndependencies:\n0123 /x.h\nbinary-hash: abcd\n");
}

TEST_F(EntryRecordTest, AWholeEntryIsValid) {
  EXPECT_EQ(check(record(), headers.deps_text(), kBinary), EntryState::Valid);
  EXPECT_EQ(headers.calls(), 2);
  // No headers at all is a valid record too.
  std::string bare = entry_record_text(kFront, "", content_hash(kBinary));
  EXPECT_EQ(check(bare, "", kBinary), EntryState::Valid);
}

TEST_F(EntryRecordTest, DamagedOrMissingBinaryUnderAMatchingRecord) {
  std::string flipped = kBinary;
  flipped[5] ^= 0x20;
  EXPECT_EQ(check(record(), headers.deps_text(), flipped), EntryState::BinaryDamaged);
  EXPECT_EQ(check(record(), headers.deps_text(), kBinary + "x"), EntryState::BinaryDamaged);
  EXPECT_EQ(check(record(), headers.deps_text(), ""), EntryState::BinaryDamaged);
  EXPECT_EQ(check(record(), headers.deps_text(), std::nullopt), EntryState::BinaryMissing);
}

TEST_F(EntryRecordTest, MissingOrForeignRecordsAreStale) {
  EXPECT_EQ(check(std::nullopt, headers.deps_text(), kBinary), EntryState::Stale);
  EXPECT_EQ(check(record(), std::nullopt, kBinary), EntryState::Stale);
  EXPECT_EQ(check(std::nullopt, std::nullopt, std::nullopt), EntryState::Stale);
  EXPECT_EQ(check("", headers.deps_text(), kBinary), EntryState::Stale);
  std::string other_front =
      entry_record_text("tessel-kernel-key 2\nsource: other.cpp\n", headers.deps_text(), content_hash(kBinary));
  EXPECT_EQ(check(other_front, headers.deps_text(), kBinary), EntryState::Stale);
  EXPECT_EQ(headers.calls(), 0); // rejected before any header is hashed
}

TEST_F(EntryRecordTest, MalformedHashLinesAreStale) {
  std::string body = kFront + "dependencies:\n" + headers.deps_text();
  std::string hash = content_hash(kBinary);
  std::string upper = hash;
  for (char& c : upper)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  ASSERT_NE(upper, hash);
  for (const std::string& key : {
           body,                                                            // the record of format 1: no hash line
           body + "binary-hash: " + hash,                                   // no newline
           body + "binary-hash: " + hash.substr(1) + "\n",                  // 31 digits
           body + "binary-hash: " + hash + "0\n",                           // 33 digits
           body + "binary-hash: " + upper + "\n",                           // not content_hash's spelling
           body + "binary-hash:  " + hash.substr(1) + "\n",                 // misaligned
           body + "binary-hash: " + hash + "\n\n",                          // trailing blank line
           body + "binary_hash: " + hash + "\n",                            // another label
           body + "binary-hash: " + hash + "\nbinary-hash: " + hash + "\n", // twice
       })
    EXPECT_EQ(check(key, headers.deps_text(), kBinary), EntryState::Stale) << key;
}

TEST_F(EntryRecordTest, HeadersAsTheyAreNowDecide) {
  std::string key = record();
  headers.edit("/inc/b.h", "b, edited");
  EXPECT_EQ(check(key, headers.deps_text(), kBinary), EntryState::Stale); // deps.txt rewritten: still stale
  headers.edit("/inc/b.h", "b");
  EXPECT_EQ(check(key, headers.deps_text(), kBinary), EntryState::Valid);
  headers.remove("/inc/a.h");
  EXPECT_EQ(check(key, dependencies_text({{"/inc/a.h", content_hash("a")}, {"/inc/b.h", content_hash("b")}}), kBinary),
            EntryState::Stale);
}

TEST_F(EntryRecordTest, DepsMustListTheRecordedHeaders) {
  std::string key = record();
  EXPECT_EQ(check(key, "garbage\n", kBinary), EntryState::Stale);
  EXPECT_EQ(check(key, headers.deps_text().substr(0, headers.deps_text().size() - 1), kBinary), EntryState::Stale);
  EXPECT_EQ(check(key, dependencies_text({{"/inc/a.h", content_hash("a")}}), kBinary), EntryState::Stale);
  EXPECT_EQ(check(key, "", kBinary), EntryState::Stale);
}

} // namespace
} // namespace tessel::jit
