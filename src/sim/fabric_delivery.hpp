// The fabric's deliveries (fabric_delivery.cpp), shared with the sending
// side (fabric.cpp). Internal to the sim layer.
#pragma once

#include <cstdint>
#include <string>

#include "base/warning.hpp"
#include "sim/chip.hpp"
#include "tessel/fabric_abi.h"

namespace tessel::sim {

// Stops the sending fiber with the report (its frames are abandoned, never unwound).
[[noreturn]] void fail_sender(Fiber* f, std::string message, const char* file, uint32_t line);

// A delivery's failure: from a kernel's send, the sending fiber stops; from
// another rank's packet, there is no fiber, so the report is thrown to
// Fabric::deliver, which keeps it for the run to end with.
struct DeliveryFailed {
  std::string message;
};

class Failer {
public:
  Failer(Fiber* f, const char* file, uint32_t line, const std::string* origin)
      : f_(f), file_(file), line_(line), origin_(origin) {}
  [[noreturn]] void fail(std::string message) const {
    if (f_) fail_sender(f_, std::move(message), file_, line_);
    throw DeliveryFailed{*origin_ + std::move(message)};
  }
  void warn(std::string message) const {
    if (f_) return f_->core->chip->warn(f_, std::move(message), file_, line_);
    base::warn_once(*origin_ + message, *origin_ + message);
  }

private:
  Fiber* f_;
  const char* file_;
  uint32_t line_;
  const std::string* origin_;
};

// Packet `h` (with `payload`) takes effect on chip `dst`; `arrival`: its
// estimated arrival under the cycle estimate (0: untimed).
void apply(const Failer& fail, Chip& dst, const tessel_fabric_header& h, const uint8_t* payload, uint64_t arrival);

} // namespace tessel::sim
