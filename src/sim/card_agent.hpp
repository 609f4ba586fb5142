// The plug point through which a card's dispatcher (src/dispatch) takes part
// in a chip's run: a persistent program's kernels never return between
// commands, so while they wait for their next command the run must neither
// report a deadlock nor spin, and the dispatcher must get the run's thread
// now and then to feed them.
//
// Contract
//  - Chip::run calls poll() every kPollSwitches fiber switches, and idle()
//    whenever no fiber is ready and no semaphore waiter can be woken. Both run
//    on the run's thread, between fibers (never on a fiber stack).
//  - idle() returns true once it has made a fiber ready (it may park the
//    thread to wait for the host meanwhile); false lets the run report the
//    deadlock it would report without an agent.
//  - To end the run early, the agent calls Chip::request_stop(); the run then
//    abandons every fiber and throws RunStopped.
//  - keeps_running_on_interrupt(): a run the host's Ctrl-C must not stop
//    (tessel/interrupt.hpp), because the agent's own host side gives way to
//    it and ends the run through its own exit paths (a dispatch session).
//  - Persistent kernels reach the agent through the kernel API's extension
//    hook (TESSEL_EXTENSION_CARD): kernel_table() is what that returns.
#pragma once

#include <cstdint>

namespace tessel::sim {

class Chip;

class CardAgent {
public:
  static constexpr uint32_t kPollSwitches = 64;
  virtual ~CardAgent() = default;
  virtual bool idle(Chip& chip) = 0;
  virtual void poll(Chip& chip) = 0;
  virtual const void* kernel_table() const = 0;
  virtual bool keeps_running_on_interrupt() const { return false; }
};

} // namespace tessel::sim
