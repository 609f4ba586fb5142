// What a session holds (Session::Impl). Internal to dispatch.
#pragma once

#include <memory>

#include "sim/chip.hpp"
#include "tessel/dispatch/run.hpp"
#include "tessel/dispatch/session.hpp"

namespace tessel::dispatch {

struct Session::Impl {
  SessionConfig config;
  std::shared_ptr<Device> device;
  bool owns_device = false;
  bool closed = false;
  uint32_t kernel_bytes = Session::kDefaultKernelBytes;
  std::shared_ptr<Run> run;

  sim::Chip* chip() const;
  void log(const std::string& line) const {
    if (config.log) config.log(line);
  }
};

// Per-card lock files (card_lock.cpp): a card stays held by the process that
// first opened it until that process exits. Throws CardBusy naming the live
// holder's pid.
void hold_card(int card);
// The holder of card's lock file as its file says, if that process is alive,
// not a zombie, and maps the file; 0 otherwise.
int card_holder(int card);
std::string card_lock_path(int card);

} // namespace tessel::dispatch
