#include "base/json_reader.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "tessel/error.hpp"

namespace tessel::base {

const JsonValue* JsonValue::find(std::string_view key) const {
  for (size_t i = 0; i < member_keys.size(); ++i)
    if (member_keys[i] == key) return &member_values[i];
  return nullptr;
}

double JsonValue::number_at(std::string_view key, double fallback) const {
  const JsonValue* v = find(key);
  return v && v->type == Type::Number ? v->number : fallback;
}

std::string_view JsonValue::text_at(std::string_view key, std::string_view fallback) const {
  const JsonValue* v = find(key);
  return v && v->type == Type::String ? std::string_view(v->text) : fallback;
}

namespace {

constexpr int kMaxDepth = 256;

class Parser {
public:
  Parser(std::string_view text, uint64_t base_offset) : s_(text), base_(base_offset) {}

  JsonValue document() {
    JsonValue v = value(0);
    space();
    if (at_ != s_.size()) fail("text after the value");
    return v;
  }

private:
  [[noreturn]] void fail(const char* what) const {
    throw ValidationError("malformed JSON at byte " + std::to_string(base_ + at_) + ": " + what);
  }
  void space() {
    while (at_ < s_.size() && (s_[at_] == ' ' || s_[at_] == '\n' || s_[at_] == '\r' || s_[at_] == '\t'))
      ++at_;
  }
  bool eat(char c) {
    space();
    if (at_ < s_.size() && s_[at_] == c) return ++at_, true;
    return false;
  }
  void expect(char c, const char* what) {
    if (!eat(c)) fail(what);
  }
  bool word(std::string_view w) {
    if (s_.substr(at_, w.size()) != w) return false;
    at_ += w.size();
    return true;
  }

  JsonValue value(int depth) {
    if (depth > kMaxDepth) fail("nested too deeply");
    space();
    if (at_ >= s_.size()) fail("a value was expected");
    JsonValue v;
    const char c = s_[at_];
    if (c == '{') {
      ++at_;
      v.type = JsonValue::Type::Object;
      if (eat('}')) return v;
      do {
        space();
        if (at_ >= s_.size() || s_[at_] != '"') fail("an object key (a string) was expected");
        std::string key = string();
        expect(':', "':' was expected after an object key");
        JsonValue member = value(depth + 1);
        v.member_keys.push_back(std::move(key));
        v.member_values.push_back(std::move(member));
      } while (eat(','));
      expect('}', "',' or '}' was expected in an object");
    } else if (c == '[') {
      ++at_;
      v.type = JsonValue::Type::Array;
      if (eat(']')) return v;
      do
        v.items.push_back(value(depth + 1));
      while (eat(','));
      expect(']', "',' or ']' was expected in an array");
    } else if (c == '"') {
      v.type = JsonValue::Type::String;
      v.text = string();
    } else if (word("true")) {
      v.type = JsonValue::Type::Bool;
      v.boolean = true;
    } else if (word("false")) {
      v.type = JsonValue::Type::Bool;
    } else if (word("null")) {
    } else {
      v.type = JsonValue::Type::Number;
      v.number = number();
    }
    return v;
  }

  double number() {
    const size_t begin = at_;
    while (at_ < s_.size() && s_[at_] != '\0' && std::strchr("+-0123456789.eE", s_[at_]))
      ++at_;
    if (at_ == begin) fail("a value was expected");
    const std::string text(s_.substr(begin, at_ - begin));
    char* end = nullptr;
    errno = 0;
    const double d = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || errno == ERANGE) fail("a malformed number");
    return d;
  }

  uint32_t hex4() {
    if (at_ + 4 > s_.size()) fail("a \\u escape needs four hex digits");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = s_[at_++];
      v = v * 16 + uint32_t(h >= '0' && h <= '9'   ? h - '0'
                            : h >= 'a' && h <= 'f' ? h - 'a' + 10
                            : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                                   : (fail("a \\u escape needs four hex digits"), 0));
    }
    return v;
  }

  static void utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | cp >> 6);
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | cp >> 12);
      out += char(0x80 | (cp >> 6 & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | cp >> 18);
      out += char(0x80 | (cp >> 12 & 0x3F));
      out += char(0x80 | (cp >> 6 & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }

  std::string string() {
    ++at_; // the opening quote
    std::string out;
    for (;;) {
      if (at_ >= s_.size()) fail("a string is not closed");
      const char c = s_[at_++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_ >= s_.size()) fail("a string is not closed");
      const char e = s_[at_++];
      switch (e) {
      case '"':
      case '\\':
      case '/': out += e; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        uint32_t cp = hex4();
        if (cp >= 0xD800 && cp < 0xDC00 && s_.substr(at_, 2) == "\\u") {
          at_ += 2;
          const uint32_t low = hex4();
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        utf8(out, cp);
        break;
      }
      default: fail("an unknown escape in a string");
      }
    }
  }

  std::string_view s_;
  uint64_t base_;
  size_t at_ = 0;
};

// Where the value starting at `at` ends (one past it), or npos when `buf`
// ends first. Strings and nesting are followed; the text is not checked.
size_t value_end(std::string_view buf, size_t at, bool at_eof) {
  if (at >= buf.size()) return std::string_view::npos;
  const char c = buf[at];
  if (c == '{' || c == '[') {
    int depth = 0;
    bool in_string = false;
    for (size_t i = at; i < buf.size(); ++i) {
      const char d = buf[i];
      if (in_string) {
        if (d == '\\')
          ++i;
        else if (d == '"')
          in_string = false;
      } else if (d == '"') {
        in_string = true;
      } else if (d == '{' || d == '[') {
        ++depth;
      } else if ((d == '}' || d == ']') && --depth == 0) {
        return i + 1;
      }
    }
    return std::string_view::npos;
  }
  if (c == '"') {
    for (size_t i = at + 1; i < buf.size(); ++i) {
      if (buf[i] == '\\')
        ++i;
      else if (buf[i] == '"')
        return i + 1;
    }
    return std::string_view::npos;
  }
  for (size_t i = at; i < buf.size(); ++i)
    if (buf[i] == '\0' || std::strchr(",]} \n\r\t", buf[i])) return i;
  return at_eof ? buf.size() : std::string_view::npos;
}

class ChunkedFile {
public:
  explicit ChunkedFile(const std::string& path) : path_(path), f_(std::fopen(path.c_str(), "rb")) {
    if (!f_) throw ValidationError("cannot read the trace file '" + path + "': " + std::strerror(errno));
  }
  ~ChunkedFile() { std::fclose(f_); }

  std::string_view view() const { return std::string_view(buf_).substr(at_); }
  bool eof() const { return eof_; }
  uint64_t offset() const { return consumed_ + at_; }
  void skip(size_t n) { at_ += n; }
  // Reads more; false at the end of the file.
  bool more() {
    if (eof_) return false;
    if (at_ > buf_.size() / 2) {
      consumed_ += at_;
      buf_.erase(0, at_);
      at_ = 0;
    }
    const size_t old = buf_.size();
    buf_.resize(old + kChunk);
    const size_t n = std::fread(buf_.data() + old, 1, kChunk, f_);
    buf_.resize(old + n);
    if (n < kChunk) {
      if (std::ferror(f_)) throw ValidationError("cannot read the trace file '" + path_ + "': " + std::strerror(errno));
      eof_ = true;
    }
    return n > 0;
  }
  // Skips spaces, reading on; the next character or 0 at the end.
  char next() {
    for (;;) {
      while (at_ < buf_.size() && buf_[at_] != '\0' && std::strchr(" \n\r\t", buf_[at_]))
        ++at_;
      if (at_ < buf_.size()) return buf_[at_];
      if (!more()) return 0;
    }
  }
  // The value starting here, reading on until it is whole; empty when the
  // file ends inside it.
  std::string_view whole_value() {
    for (;;) {
      const size_t end = value_end(view(), 0, eof_);
      if (end != std::string_view::npos) return view().substr(0, end);
      if (!more()) {
        const size_t last = value_end(view(), 0, true);
        return last == std::string_view::npos ? std::string_view() : view().substr(0, last);
      }
    }
  }

private:
  static constexpr size_t kChunk = 1 << 20;
  std::string path_;
  std::FILE* f_;
  std::string buf_;
  size_t at_ = 0;
  uint64_t consumed_ = 0;
  bool eof_ = false;
};

[[noreturn]] void not_a_trace(const std::string& path, const char* why) {
  throw ValidationError("'" + path + "' is not a trace-event JSON file: " + why +
                        "; expected a JSON array of events, or an object with a \"traceEvents\" array");
}

} // namespace

JsonValue parse_json(std::string_view text) { return Parser(text, 0).document(); }

JsonArrayRead read_json_array_elements(const std::string& path, const std::function<void(const JsonValue&)>& each) {
  ChunkedFile f(path);
  JsonArrayRead r;
  char c = f.next();
  if (c == '{') { // the JSON Object Format: find its "traceEvents" member
    f.skip(1);
    for (;;) {
      c = f.next();
      if (c != '"') not_a_trace(path, "it is an object without a \"traceEvents\" member");
      const std::string_view key_text = f.whole_value();
      if (key_text.empty()) not_a_trace(path, "it ends inside an object key");
      const JsonValue key = Parser(key_text, f.offset()).document();
      f.skip(key_text.size());
      if (f.next() != ':') not_a_trace(path, "':' was expected after an object key");
      f.skip(1);
      if (key.text == "traceEvents") break;
      f.next();
      const std::string_view skipped = f.whole_value();
      if (skipped.empty()) not_a_trace(path, "it ends before a \"traceEvents\" member");
      f.skip(skipped.size());
      if (f.next() != ',') not_a_trace(path, "it is an object without a \"traceEvents\" member");
      f.skip(1);
    }
    c = f.next();
  }
  if (c != '[') not_a_trace(path, c ? "it does not start with '[' or '{'" : "it is empty");
  f.skip(1);
  for (;;) {
    c = f.next();
    if (c == 0) return r; // no closing bracket: as a trace cut short
    if (c == ',') {
      f.skip(1);
      continue;
    }
    if (c == ']') {
      r.closed = true;
      return r;
    }
    const uint64_t offset = f.offset();
    const std::string_view element = f.whole_value();
    if (element.empty()) { // the file ends inside it
      r.truncated = true;
      return r;
    }
    JsonValue v;
    try {
      v = Parser(element, offset).document();
    } catch (const ValidationError& e) {
      throw ValidationError("'" + path + "': " + e.what());
    }
    f.skip(element.size());
    ++r.elements;
    each(v);
  }
}

} // namespace tessel::base
