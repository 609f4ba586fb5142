#include "sim/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>

#include "base/env.hpp"
#include "sim/watchdog.hpp"
#include "tessel/error.hpp"

namespace tessel::sim {

namespace {
constexpr int64_t kAfterNs = 2'000'000'000; // runs shorter than this show nothing
constexpr int64_t kEveryNs = 500'000'000;   // the line's refresh period

// The terminal line is shared by the watchdog's thread (runs) and host
// threads (waits): g_line_mutex orders their writes and the state below
// (taken after the watchdog's registry lock, never before it).
std::mutex g_line_mutex;
std::atomic<bool> g_shown{false};
int64_t g_last_print = 0;
uint64_t g_last_pages = 0;

// Read when a run or wait starts (on the thread that starts it, never the
// watchdog's: a program may change the environment between runs).
bool enabled() {
  const auto text = base::env_text("TESSEL_PROGRESS");
  if (text && *text == "0") return false;
  if (text && *text == "1") return true;
  if (text) throw ValidationError("TESSEL_PROGRESS='" + *text + "' is not valid: expected 1 or 0");
  static const bool terminal = isatty(STDERR_FILENO) == 1; // once: not a system call per run
  return terminal;
}
} // namespace

void check_progress_setting() { enabled(); }

bool progress_wanted() {
  try {
    return enabled();
  } catch (const ValidationError&) {
    return false; // reported by check_progress_setting() when the chip was made
  }
}

namespace {

void write_all(const char* text, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(STDERR_FILENO, text, n);
    if (w <= 0) return;
    text += w, n -= size_t(w);
  }
}

// "1234567" -> "1.23 M"
void human(double v, char* out, size_t size) {
  if (v >= 1e9)
    std::snprintf(out, size, "%.2f G", v / 1e9);
  else if (v >= 1e6)
    std::snprintf(out, size, "%.2f M", v / 1e6);
  else if (v >= 1e3)
    std::snprintf(out, size, "%.1f k", v / 1e3);
  else
    std::snprintf(out, size, "%.0f", v);
}

// "\r[tessel] running 4.5 s: 1.23 M CB pages pushed (274.1 k pages/s)", in place.
void write_line(const char* doing, double seconds, double total, const char* what, double rate, const char* unit) {
  char total_text[32], rate_text[32], line[160];
  human(total, total_text, sizeof total_text);
  human(rate, rate_text, sizeof rate_text);
  const int n = std::snprintf(line, sizeof line, "\r[tessel] %s %.1f s: %s %s (%s %s/s)\033[K", doing, seconds,
                              total_text, what, rate_text, unit);
  write_all(line, size_t(std::clamp(n, 0, int(sizeof line) - 1)));
  g_shown = true;
}
} // namespace

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void sample_progress(std::span<const WatchSlot* const> running, int64_t now_ns) {
  int64_t start = now_ns;
  uint64_t pages = 0;
  bool any = false;
  for (const WatchSlot* s : running)
    if (s->shows_progress.load(std::memory_order_relaxed)) {
      any = true;
      start = std::min(start, s->run_start_ns.load(std::memory_order_relaxed));
      pages += s->pages.load(std::memory_order_relaxed);
    }
  if (!any || now_ns - start < kAfterNs) return;
  std::lock_guard lock(g_line_mutex);
  if (now_ns - g_last_print < kEveryNs) return;
  const double dt = g_shown ? double(now_ns - g_last_print) / 1e9 : double(now_ns - start) / 1e9;
  const double rate = double(pages - std::min(pages, g_shown ? g_last_pages : 0)) / dt;
  write_line("running", double(now_ns - start) / 1e9, double(pages), "CB pages pushed", rate, "pages");
  g_last_print = now_ns;
  g_last_pages = pages;
}

WaitProgress::WaitProgress(uint64_t done)
    : start_ns_(steady_ns()), next_ns_(start_ns_ + kAfterNs), first_(done), last_(done) {}

WaitProgress::~WaitProgress() {
  if (shown_) end_progress_line();
}

void WaitProgress::show(uint64_t done) {
  const int64_t now = steady_ns();
  next_ns_ = now + kEveryNs;
  if (!progress_wanted()) return;
  std::lock_guard lock(g_line_mutex);
  const double dt = double(now - (shown_ ? last_ns_ : start_ns_)) / 1e9;
  const double rate = double(done - (shown_ ? last_ : first_)) / dt;
  write_line("waiting", double(now - start_ns_) / 1e9, double(done), "commands done", rate, "commands");
  last_ = done;
  last_ns_ = now;
  shown_ = true;
}

bool progress_line_shown() { return g_shown.load(std::memory_order_relaxed); }

void end_progress_line() {
  std::lock_guard lock(g_line_mutex);
  if (!g_shown.exchange(false)) return;
  write_all("\r\033[K", 4);
  g_last_print = 0;
}

} // namespace tessel::sim
