// tessel's environment variables (TESSEL_*), each parsed strictly: a value
// that is set but malformed is a ValidationError naming the variable, the
// value and what was expected, never a silent default.
//
// Every variable tessel reads is listed in kVariables (env.cpp) with what it
// takes; check_variable_names() warns once per process about a TESSEL_*
// variable that is not on the list (a misspelt name would otherwise be
// ignored without a word).
//
// Thread-safety: the readers only read the environment; call them while no
// other thread changes it (as with getenv itself).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace tessel::base {

// The variable's value, or nullopt when it is unset or empty.
std::optional<std::string> env_text(const char* name);

// A non-negative decimal number of seconds ("10", "0.5", "0"), or `fallback`
// when unset.
double env_seconds(const char* name, double fallback);

// A whole number 0..max in decimal digits (no sign, no spaces), or nullopt
// when unset; `expected` says what it is, for the error.
std::optional<uint64_t> env_count(const char* name, uint64_t max, const char* expected);

// A switch: 1/0, true/false, on/off, yes/no (any case), or `fallback` when unset.
bool env_flag(const char* name, bool fallback);

// Writes one line to stderr for each TESSEL_* variable tessel does not read,
// the first time it is called in the process.
void check_variable_names();

} // namespace tessel::base
