// A simulated card is held by one process at a time, from its first open to
// the process's exit, as the driver's chip lock holds a real card. The lock
// is a file per card: its holder has it flock()ed, mapped, and its pid
// written in it. Another process reads the pid without taking the lock and
// believes it only if that process is alive, not a zombie, and still maps
// the file (so a dead holder, a zombie or a reused pid is not the holder).
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "base/env.hpp"
#include "dispatch/session_state.hpp"
#include "tessel/dispatch/errors.hpp"

namespace tessel::dispatch {

namespace {
std::mutex g_mutex;
std::map<int, int> g_held; // card -> fd, kept open until the process exits
} // namespace

std::string card_lock_path(int card) {
  const std::string dir = base::env_text("TESSEL_CARD_LOCK_DIR").value_or("/tmp");
  return dir + "/tessel-card-" + std::to_string(card) + ".lock";
}

int card_holder(int card) {
  const std::string path = card_lock_path(card);
  std::ifstream in(path);
  long pid = 0;
  if (!(in >> pid) || pid <= 0) return 0;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return 0; // not alive
  const size_t paren = line.rfind(')');
  if (paren == std::string::npos || paren + 2 >= line.size() || line[paren + 2] == 'Z') return 0; // a zombie
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  for (std::string m; std::getline(maps, m);)
    if (m.size() >= path.size() && m.compare(m.size() - path.size(), path.size(), path) == 0) return int(pid);
  return 0; // alive, but not mapping the lock: a reused pid
}

void hold_card(int card) {
  std::lock_guard lock(g_mutex);
  if (g_held.count(card)) return;
  const std::string path = card_lock_path(card);
  if (int holder = card_holder(card); holder && holder != getpid())
    throw CardBusy("Session.open: card " + std::to_string(card) + " is held by process " + std::to_string(holder) +
                       " (lock file " + path + "); a card stays held until its process exits",
                   holder);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0)
    throw DispatchError("Session.open: cannot open the lock file " + path + " of card " + std::to_string(card) + ": " +
                        std::strerror(errno) + " (TESSEL_CARD_LOCK_DIR sets its directory)");
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    const int holder = card_holder(card);
    throw CardBusy("Session.open: card " + std::to_string(card) + " is held by " +
                       (holder ? "process " + std::to_string(holder) : std::string("another process")) +
                       " (lock file " + path + ")",
                   holder);
  }
  const std::string pid = std::to_string(getpid()) + "\n";
  if (ftruncate(fd, 0) != 0 || pwrite(fd, pid.data(), pid.size(), 0) != ssize_t(pid.size()) ||
      mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    throw DispatchError("Session.open: cannot record this process in the lock file " + path + ": " + why);
  }
  g_held[card] = fd;
}

} // namespace tessel::dispatch
