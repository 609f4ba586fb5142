// JSON text appended to a caller's buffer, for the event trace (trace.hpp):
// no allocation, no locale, no printf on the hot path. A JsonText never
// writes past its capacity; text that does not fit is cut (a string is
// shortened, still closed) and overflowed() tells so. The tracer gives every
// event kMaxEventBytes, which every event it formats fits with room to spare
// (file names and DPRINT text are cut to kMaxStringBytes first).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace tessel::sim {

inline constexpr size_t kMaxEventBytes = 4096;
inline constexpr size_t kMaxStringBytes = 512; // of one string's text, before escaping

class JsonText {
public:
  JsonText(char* buffer, size_t capacity) : begin_(buffer), at_(buffer), end_(buffer + capacity) {}

  size_t size() const { return size_t(at_ - begin_); }
  bool overflowed() const { return overflowed_; }

  JsonText& raw(std::string_view s) {
    const size_t n = s.size() <= size_t(end_ - at_) ? s.size() : (overflowed_ = true, size_t(end_ - at_));
    std::memcpy(at_, s.data(), n);
    at_ += n;
    return *this;
  }
  JsonText& ch(char c) {
    if (at_ < end_)
      *at_++ = c;
    else
      overflowed_ = true;
    return *this;
  }
  JsonText& u64(uint64_t v) {
    char digits[20];
    int n = 0;
    do
      digits[n++] = char('0' + v % 10);
    while ((v /= 10) != 0);
    if (size_t(end_ - at_) < size_t(n)) return overflowed_ = true, *this;
    while (n)
      *at_++ = digits[--n];
    return *this;
  }
  // A trace timestamp: `stamp` of `per_us` stamps per microsecond (1000:
  // nanoseconds, or 1000000: picoseconds) as microseconds, trailing zero
  // decimals dropped.
  JsonText& micros(uint64_t stamp, uint64_t per_us = 1000) {
    u64(stamp / per_us);
    uint64_t frac = stamp % per_us;
    if (frac == 0) return *this;
    if (per_us == 1000) { // two decimals at least, as trace readers have always seen them
      ch('.').ch(char('0' + frac / 100)).ch(char('0' + frac / 10 % 10));
      return frac % 10 ? ch(char('0' + frac % 10)) : *this;
    }
    ch('.');
    for (uint64_t unit = per_us / 10; unit != 0 && frac != 0; unit /= 10) {
      ch(char('0' + frac / unit));
      frac %= unit;
    }
    return *this;
  }
  JsonText& hex(uint64_t v) {
    static const char kDigits[] = "0123456789abcdef";
    char digits[16];
    int n = 0;
    do
      digits[n++] = kDigits[v & 15];
    while ((v >>= 4) != 0);
    raw("0x");
    if (size_t(end_ - at_) < size_t(n)) return overflowed_ = true, *this;
    while (n)
      *at_++ = digits[--n];
    return *this;
  }
  // A JSON string (quotes included) of at most kMaxStringBytes of `s`,
  // escaped; a null `s` is "".
  JsonText& str(const char* s) { return str(s, s ? std::strlen(s) : 0); }
  JsonText& str(std::string_view s) { return str(s.data(), s.size()); }
  JsonText& str(const char* s, size_t n) {
    if (n > kMaxStringBytes) n = kMaxStringBytes;
    ch('"');
    // Most text needs no escape: copy the run up to the first byte that does.
    size_t plain = 0;
    while (plain < n && static_cast<unsigned char>(s[plain]) >= 0x20 && static_cast<unsigned char>(s[plain]) < 0x80 &&
           s[plain] != '"' && s[plain] != '\\')
      ++plain;
    const size_t room = at_ < end_ ? size_t(end_ - at_) - 1 : 0; // and the closing quote
    if (plain > room) plain = room, overflowed_ = true;
    std::memcpy(at_, s, plain);
    at_ += plain;
    for (size_t i = plain; i < n && at_ + 7 < end_; ++i) {
      const unsigned char c = static_cast<unsigned char>(s[i]);
      if (c == '"' || c == '\\') {
        *at_++ = '\\';
        *at_++ = char(c);
      } else if (c < 0x20) {
        static const char kDigits[] = "0123456789abcdef";
        const char* named = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : nullptr;
        if (named) {
          *at_++ = named[0];
          *at_++ = named[1];
        } else {
          std::memcpy(at_, "\\u00", 4);
          at_[4] = kDigits[c >> 4];
          at_[5] = kDigits[c & 15];
          at_ += 6;
        }
      } else if (c < 0x80) {
        *at_++ = char(c);
      } else {
        const size_t len = utf8_length(s + i, n - i);
        if (len == 0) {
          *at_++ = '?'; // not UTF-8: the file must stay valid JSON
        } else {
          std::memcpy(at_, s + i, len);
          at_ += len;
          i += len - 1;
        }
      }
    }
    return ch('"');
  }
  // ,"key": before a value (the key is a literal, never escaped).
  JsonText& key(std::string_view k) { return raw(",\"").raw(k).raw("\":"); }

private:
  // The length of the UTF-8 sequence at `s` (of at most `n` bytes), or 0
  // when it is not one.
  static size_t utf8_length(const char* s, size_t n) {
    const unsigned char c = static_cast<unsigned char>(s[0]);
    const size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 && c < 0xF0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
    if (len == 0 || len > n) return 0;
    for (size_t i = 1; i < len; ++i)
      if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) return 0;
    return len;
  }

  char* begin_;
  char* at_;
  char* end_;
  bool overflowed_ = false;
};

} // namespace tessel::sim
