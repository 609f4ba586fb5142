// The JSON reader: values, escapes, both trace layouts, a file without its
// closing bracket or cut inside an element (as Perfetto accepts), and
// malformed input named by its offset.
#include "base/json_reader.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tessel/error.hpp"

namespace tessel::base {
namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("tessel_" + std::to_string(getpid()) + "_" + name)).string();
  std::ofstream(path) << text;
  return path;
}

std::vector<std::string> names(const std::string& path, JsonArrayRead* r = nullptr) {
  std::vector<std::string> out;
  const JsonArrayRead read =
      read_json_array_elements(path, [&](const JsonValue& v) { out.push_back(std::string(v.text_at("name"))); });
  if (r) *r = read;
  return out;
}

TEST(JsonReaderTest, ParsesValuesAndEscapes) {
  const JsonValue v = parse_json(R"( {"a": [1, -2.5e1, true, false, null], "s": "q\"\\\/\n\u00e9\ud83d\ude00"} )");
  ASSERT_EQ(v.type, JsonValue::Type::Object);
  const JsonValue* a = v.find("a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->items.size(), 5u);
  EXPECT_EQ(a->items[0].number, 1);
  EXPECT_EQ(a->items[1].number, -25);
  EXPECT_TRUE(a->items[2].boolean);
  EXPECT_EQ(a->items[3].type, JsonValue::Type::Bool);
  EXPECT_EQ(a->items[4].type, JsonValue::Type::Null);
  EXPECT_EQ(v.text_at("s"), "q\"\\/\n\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(v.number_at("missing", 7), 7);
}

TEST(JsonReaderTest, MalformedTextNamesTheOffset) {
  try {
    parse_json(R"({"a": [1, 2,]})");
    FAIL();
  } catch (const ValidationError& e) {
    EXPECT_STREQ(e.what(), "malformed JSON at byte 12: a value was expected");
  }
  EXPECT_THROW(parse_json(R"({"a" 1})"), ValidationError);
  EXPECT_THROW(parse_json(R"("open)"), ValidationError);
  EXPECT_THROW(parse_json("[1] 2"), ValidationError);
}

TEST(JsonReaderTest, ReadsBothLayoutsAndTracesCutShort) {
  JsonArrayRead r;
  EXPECT_EQ(names(write_temp("closed.json", R"([{"name":"a"}, {"name":"b"}])"), &r),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(r.closed);
  EXPECT_FALSE(r.truncated);
  EXPECT_EQ(names(write_temp("object.json", R"({"displayTimeUnit":"ns","traceEvents":[{"name":"a"}],"x":{}})"), &r),
            (std::vector<std::string>{"a"}));
  EXPECT_TRUE(r.closed);
  // The streaming writer's file: a comma after every event, no bracket yet.
  EXPECT_EQ(names(write_temp("open.json", "[\n{\"name\":\"a\"},\n{\"name\":\"b\"},\n"), &r),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(r.closed);
  EXPECT_FALSE(r.truncated);
  // A writer that died inside an event.
  EXPECT_EQ(names(write_temp("cut.json", "[{\"name\":\"a\"},{\"name\":\"b\",\"ts\":1"), &r),
            (std::vector<std::string>{"a"}));
  EXPECT_TRUE(r.truncated);
}

TEST(JsonReaderTest, ReadsAFileLargerThanItsChunks) {
  std::string text = "[";
  for (int i = 0; i < 60000; ++i)
    text += "{\"name\":\"e" + std::to_string(i) + "\",\"args\":{\"text\":\"" + std::string(i % 50, 'x') + "\"}},\n";
  const auto got = names(write_temp("large.json", text));
  ASSERT_EQ(got.size(), 60000u);
  EXPECT_EQ(got[59999], "e59999");
}

TEST(JsonReaderTest, NotATraceIsAValidationError) {
  try {
    names(write_temp("not.json", "42"));
    FAIL();
  } catch (const ValidationError& e) {
    EXPECT_NE(std::string(e.what()).find("is not a trace-event JSON file: it does not start with '[' or '{'"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(names(write_temp("noevents.json", R"({"a":1})")), ValidationError);
  EXPECT_THROW(names("/nonexistent-dir/x.json"), ValidationError);
  EXPECT_THROW(names(write_temp("bad.json", R"([{"name":"a"},{"name":}])")), ValidationError);
}

} // namespace
} // namespace tessel::base
