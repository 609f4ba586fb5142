// Reading JSON: a small value tree and a streaming reader for trace files.
//
// read_json_array_elements reads a file holding one JSON array (a Chrome /
// Perfetto trace in the JSON Array Format, or an object whose "traceEvents"
// member is that array) a piece at a time and hands each element over as a
// JsonValue: a trace of millions of events is never held whole. As Perfetto
// does, it accepts an array without its closing bracket and ignores an
// element cut off by the end of the file (a trace whose writer died).
//
// Thread-safety: none needed; values are plain data.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace tessel::base {

struct JsonValue {
  enum class Type : uint8_t { Null, Bool, Number, String, Array, Object };
  Type type = Type::Null;
  bool boolean = false;
  double number = 0;
  std::string text;                     // String
  std::vector<JsonValue> items;         // Array
  std::vector<std::string> member_keys; // Object: keys, in file order,
  std::vector<JsonValue> member_values; // and their values (a std::pair of an
                                        // incomplete type is not portable)

  // The member named `key` of an object, or null.
  const JsonValue* find(std::string_view key) const;
  // The member's number / text, or `fallback` when absent or of another type.
  double number_at(std::string_view key, double fallback = 0) const;
  std::string_view text_at(std::string_view key, std::string_view fallback = {}) const;
};

// Parses one JSON value (the whole of `text`, surrounding spaces allowed).
// Throws ValidationError saying what was malformed and at which offset.
JsonValue parse_json(std::string_view text);

struct JsonArrayRead {
  uint64_t elements = 0;
  bool closed = false;    // the array's closing bracket was read
  bool truncated = false; // the file ended inside an element
};

// Calls `each` for every element of the file's array, in order. Throws
// ValidationError when the file cannot be read or is not such an array, or
// an element is malformed (naming the element's byte offset).
JsonArrayRead read_json_array_elements(const std::string& path, const std::function<void(const JsonValue&)>& each);

} // namespace tessel::base
