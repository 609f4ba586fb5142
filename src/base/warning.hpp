// Warnings (design §8): what silicon runs correctly but is a likely bug.
// Each is printed once per key (a kernel and its call site, or a host call
// and what it was given) as "tessel: warning: <message>" on stderr, and
// TESSEL_STRICT=1 makes every warning an error, for CI.
//
// Thread-safety: safe to call from any thread.
#pragma once

#include <string>

namespace tessel::base {

enum class Warned {
  Printed, // printed now (the first time for its key)
  Again,   // printed before for this key: nothing more
  Strict,  // TESSEL_STRICT is set: the caller raises the message as its error
};

Warned warn_once(const std::string& key, const std::string& message);

// What a strict warning's error message ends with.
inline constexpr const char* kStrictSuffix = " (a warning, made an error by TESSEL_STRICT=1)";

} // namespace tessel::base
