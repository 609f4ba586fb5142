#include "tessel/dispatch/result.hpp"

#include "tessel/dispatch/run.hpp"
#include "tessel/engine_abi.h"
#include "tessel/persistent_abi.h"

namespace tessel::dispatch {

const char* event_kind_name(EventKind kind) {
  switch (kind) {
  case EventKind::Done: return "done";
  case EventKind::Timeout: return "timeout";
  case EventKind::Pong: return "pong";
  case EventKind::Rejected: return "rejected";
  }
  return "unknown";
}

const char* reject_reason_name(uint32_t reason) {
  switch (reason) {
  case KMD_REJECT_HANDLER: return "handler";
  case KMD_REJECT_FLAGS: return "flags";
  case KMD_REJECT_GROUP: return "group";
  case KMD_REJECT_EXITED: return "exited";
  case KMD_REJECT_QUEUE: return "queue";
  case KMD_REJECT_ENGINES: return "engines";
  case KMD_REJECT_REQ: return "req";
  default: return "unknown";
  }
}

const char* error_name(uint32_t error) {
  switch (error) {
  case KM_ERROR_NONE: return "none";
  case KM_ERROR_DEADLINE: return "deadline";
  case KM_ERROR_IDLE: return "idle";
  case KM_ERROR_KERNEL_IDLE: return "kernel_idle";
  case KM_ERROR_KERNEL: return "kernel";
  case KM_ERROR_STOPPED: return "stopped";
  case KM_ERROR_WAIT: return "wait";
  default: return "unknown";
  }
}

std::optional<uint64_t> read_sequence(uint64_t previous, uint32_t low16) {
  const uint32_t delta = (low16 - uint32_t(previous)) & 0xFFFFu;
  // Fewer than 32,768 commands of other sources between: delta <= 32,768.
  if (delta <= 32768u) return previous + delta;
  const uint32_t lag = 65536u - delta;
  if (lag <= 2048u && previous >= lag) return previous - lag;
  return std::nullopt;
}

} // namespace tessel::dispatch
