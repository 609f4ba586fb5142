// tessel's XRT for IRON's C++ testbenches: the link to the design server.
//
// A testbench (test.cpp) compiled by `python -m tessel.iron.testbench` talks
// XRT; tessel runs the design itself, in Python. The first xrt::kernel a
// process makes starts one server process (`python -m
// tessel.iron.testbench.server`) connected by a Unix socket pair, and every
// load and run is one request on it.
//
// Protocol (one request, one reply, in order; the link's mutex keeps
// requests whole when threads share it):
//   request  = u32 length, then that many bytes of JSON; the file
//              descriptors of the run's buffers ride on its first bytes
//              (SCM_RIGHTS), one per "sizes" entry, in order.
//   reply    = u32 length, then JSON {"ok": true, "npu_ns": N} or
//              {"ok": false, "error": MESSAGE}.
// A buffer object (xrt::bo) is a memfd the testbench maps; the server maps
// the same memory, so a run moves no data between the processes.
//
// Lifetime: the link lives until the process exits; the server exits when
// its end of the socket closes. A run that fails is reported on stderr
// when it happens, its wait() returns ERT_CMD_STATE_ERROR, and the process
// exits with status 1 however main returns (a testbench that ignores the
// state must not print PASS and succeed).
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

#ifndef TESSEL_XRT_PYTHON
#define TESSEL_XRT_PYTHON "python3"
#endif
#ifndef TESSEL_XRT_PYTHONPATH
#define TESSEL_XRT_PYTHONPATH ""
#endif

namespace tessel_xrt {

// A JSON string literal of `text`.
inline std::string json_quote(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\u%04x", c);
      out += esc;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// The reply's fields this side reads: ok, npu_ns, error.
struct Reply {
  bool ok = false;
  uint64_t npu_ns = 0;
  std::string error;
};

inline std::string json_unquote_at(const std::string& s, size_t pos) {
  std::string out;
  for (size_t i = pos + 1; i < s.size() && s[i] != '"'; ++i) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out += s[i];
      continue;
    }
    char e = s[++i];
    if (e == 'n') out += '\n';
    else if (e == 't') out += '\t';
    else if (e == 'u' && i + 4 < s.size()) {
      unsigned code = static_cast<unsigned>(std::strtoul(s.substr(i + 1, 4).c_str(), nullptr, 16));
      out += code < 0x80 ? static_cast<char>(code) : '?';
      i += 4;
    } else out += e;
  }
  return out;
}

inline Reply parse_reply(const std::string& s) {
  Reply r;
  r.ok = s.find("\"ok\": true") != std::string::npos;
  size_t at = s.find("\"npu_ns\": ");
  if (at != std::string::npos) r.npu_ns = std::strtoull(s.c_str() + at + 10, nullptr, 10);
  at = s.find("\"error\": ");
  if (at != std::string::npos) r.error = json_unquote_at(s, at + 9);
  return r;
}

class Link {
 public:
  static Link& get() {
    static Link link;
    return link;
  }

  // One request; fds ride along. Throws std::runtime_error when the server
  // cannot be reached (its own errors come back in the Reply).
  Reply request(const std::string& json, const std::vector<int>& fds = {}) {
    std::lock_guard<std::mutex> hold(mu_);
    start();
    std::fflush(stdout);  // the testbench's lines first, then what the run prints
    std::string frame(4, '\0');
    uint32_t n = static_cast<uint32_t>(json.size());
    std::memcpy(&frame[0], &n, 4);
    frame += json;
    send_all(frame, fds);
    uint32_t len = 0;
    recv_exact(reinterpret_cast<char*>(&len), 4);
    std::string body(len, '\0');
    recv_exact(&body[0], len);
    return parse_reply(body);
  }

  // A run failed: the process will exit with status 1 (see the top comment).
  void note_failure() {
    if (!failed_) {
      failed_ = true;
      std::atexit([] {
        std::fflush(stdout);
        std::fprintf(stderr, "tessel: a kernel run failed (reported above); exiting with status 1\n");
        std::_Exit(1);
      });
    }
  }

  ~Link() {
    if (sock_ >= 0) close(sock_);
    if (pid_ > 0) waitpid(pid_, nullptr, 0);
  }

 private:
  Link() = default;

  void start() {
    if (sock_ >= 0) return;
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
      throw std::runtime_error(std::string("tessel xrt: socketpair: ") + std::strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pair[1], 3);  // dup2 clears close-on-exec
    const char* python = std::getenv("TESSEL_PYTHON");
    if (!python || !*python) python = TESSEL_XRT_PYTHON;
    std::vector<std::string> env;
    std::string path = TESSEL_XRT_PYTHONPATH;
    for (char** e = environ; *e; ++e) {
      if (std::strncmp(*e, "PYTHONPATH=", 11) == 0) {
        if (**e && (*e)[11]) path = path.empty() ? std::string(*e + 11) : path + ":" + (*e + 11);
        continue;
      }
      env.emplace_back(*e);
    }
    if (!path.empty()) env.push_back("PYTHONPATH=" + path);
    std::vector<char*> envp;
    for (auto& s : env) envp.push_back(&s[0]);
    envp.push_back(nullptr);
    std::string py = python, dash_m = "-m", mod = "tessel.iron.testbench.server", fd = "3";
    char* argv[] = {&py[0], &dash_m[0], &mod[0], &fd[0], nullptr};
    int rc = posix_spawnp(&pid_, python, &actions, nullptr, argv, envp.data());
    posix_spawn_file_actions_destroy(&actions);
    close(pair[1]);
    if (rc != 0) {
      close(pair[0]);
      throw std::runtime_error(std::string("tessel xrt: cannot start ") + python +
                               " -m tessel.iron.testbench.server: " + std::strerror(rc) +
                               " (set TESSEL_PYTHON to the Python that has tessel)");
    }
    sock_ = pair[0];
  }

  void send_all(const std::string& frame, const std::vector<int>& fds) {
    size_t sent = 0;
    while (sent < frame.size()) {
      struct iovec iov = {const_cast<char*>(frame.data()) + sent, frame.size() - sent};
      struct msghdr msg = {};
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      std::vector<char> control;
      if (sent == 0 && !fds.empty()) {
        control.assign(CMSG_SPACE(sizeof(int) * fds.size()), 0);
        msg.msg_control = control.data();
        msg.msg_controllen = control.size();
        struct cmsghdr* c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
        std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
      }
      ssize_t n = sendmsg(sock_, &msg, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) lost("sending a request");
      sent += static_cast<size_t>(n);
    }
  }

  void recv_exact(char* out, size_t len) {
    size_t got = 0;
    while (got < len) {
      ssize_t n = recv(sock_, out + got, len - got, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) lost("waiting for its reply");
      got += static_cast<size_t>(n);
    }
  }

  [[noreturn]] void lost(const char* doing) {
    int status = 0;
    std::string why = "it closed the connection";
    if (pid_ > 0 && waitpid(pid_, &status, 0) == pid_) {
      why = WIFSIGNALED(status) ? "it was killed by signal " + std::to_string(WTERMSIG(status))
                                : "it exited with status " + std::to_string(WEXITSTATUS(status));
      pid_ = -1;
    }
    throw std::runtime_error("tessel xrt: the design server stopped while " + std::string(doing) + ": " + why);
  }

  std::mutex mu_;
  int sock_ = -1;
  pid_t pid_ = -1;
  bool failed_ = false;
};

// An exception the testbench does not catch (a design that cannot load, a
// cxxopts option with no value) ends it with its message and status 1,
// not an abort and a core file.
[[noreturn]] inline void report_uncaught() {
  std::fflush(stdout);
  if (std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      std::fprintf(stderr, "%s\n", x.what());
    } catch (...) {
      std::fprintf(stderr, "tessel: the testbench ended with an exception that is not a std::exception\n");
    }
  } else {
    std::fprintf(stderr, "tessel: the testbench called std::terminate\n");
  }
  std::_Exit(1);
}

inline const bool kReportsUncaught = (std::set_terminate(report_uncaught), true);

}  // namespace tessel_xrt
