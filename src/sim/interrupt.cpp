#include "tessel/interrupt.hpp"

#include <atomic>

namespace tessel {

namespace {
// Lock-free, so a signal handler may store to it.
std::atomic<bool> g_interrupt{false};
static_assert(std::atomic<bool>::is_always_lock_free);
} // namespace

namespace {
std::atomic<int> g_host_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);
} // namespace

void note_host_signal(int signal) noexcept { g_host_signal.store(signal, std::memory_order_relaxed); }
int host_signal() noexcept { return g_host_signal.load(std::memory_order_relaxed); }
void clear_host_signal() noexcept { g_host_signal.store(0, std::memory_order_relaxed); }

void request_interrupt() noexcept { g_interrupt.store(true, std::memory_order_relaxed); }
void clear_interrupt() noexcept { g_interrupt.store(false, std::memory_order_relaxed); }
bool interrupt_requested() noexcept { return g_interrupt.load(std::memory_order_relaxed); }

} // namespace tessel
