// Host tests of the AIE API header (kernel/include/aie_api/aie.hpp): a
// misuse the header reports through its fail path throws AieFailure here, so
// a test can assert on the message and the reported call site.
#pragma once

#include <stdexcept>
#include <string>

struct AieFailure : std::runtime_error {
  std::string file;
  unsigned line;
  AieFailure(const char* message, const char* f, unsigned l) : std::runtime_error(message), file(f), line(l) {}
};

#define TESSEL_AIE_FAIL(message, file, line) throw AieFailure(message, file, line)

#include <aie_api/aie.hpp>
