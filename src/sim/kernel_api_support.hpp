// Helpers the kernel API's implementation files share (kernel_api.cpp,
// noc_api.cpp, dprint_api.cpp, compute.cpp, memory_check.cpp): finding the
// fiber and core of a kernel context, a CB's page counts, and failing the
// calling kernel with a message.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "sim/chip.hpp"

namespace tessel::sim {

inline Fiber* fiber_of(tessel_kernel_ctx* k) { return static_cast<Fiber*>(k->sim_fiber); }
inline Core& core_of(tessel_kernel_ctx* k) { return *static_cast<Core*>(k->sim_core); }

inline std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// A CB's pages the consumer can see, and those the producer may fill
// (TT-Metalium's 16-bit counters: visible = received - acked mod 2^16).
inline uint32_t visible_pages(const tessel_cb_iface& q) { return uint16_t(q.received - q.acked); }
inline uint32_t free_pages(const tessel_cb_iface& q) { return q.num_pages - visible_pages(q); }

// Error paths are cold and out of line, so the checks on hot paths stay a
// few instructions each and their callers stay small enough to inline.
#define TESSEL_COLD __attribute__((cold, noinline))

// The frames of the failing fiber are abandoned, never unwound: build the
// message in a statement of its own (see Chip::fail).
[[noreturn]] TESSEL_COLD inline void fail(tessel_kernel_ctx* k, std::string msg, const char* file, uint32_t line) {
  core_of(k).chip->fail(fiber_of(k), std::move(msg), file, line);
}

// A CB index that is out of range or not configured on this core
// (kernel_api.cpp).
[[noreturn]] TESSEL_COLD void cb_unusable(tessel_kernel_ctx* k, const char* call, uint32_t cb, const char* file,
                                          uint32_t line);

} // namespace tessel::sim
