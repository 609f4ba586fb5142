#include "jit/process.hpp"

#include "tessel/error.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace tessel::jit {
namespace {

class SpawnActions {
public:
  SpawnActions() { posix_spawn_file_actions_init(&actions_); }
  ~SpawnActions() { posix_spawn_file_actions_destroy(&actions_); }
  SpawnActions(const SpawnActions&) = delete;
  SpawnActions& operator=(const SpawnActions&) = delete;
  posix_spawn_file_actions_t* get() { return &actions_; }

private:
  posix_spawn_file_actions_t actions_;
};

} // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& working_dir, size_t max_output_bytes,
                          const std::string& what) {
  int pipe_fds[2];
  // O_CLOEXEC matters: a program spawned concurrently by another thread must
  // not inherit this pipe's write end, or this read would wait for it too.
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0)
    throw ProgramError(what + " " + argv[0] + " could not be started: pipe: " + std::strerror(errno));

  SpawnActions actions;
  posix_spawn_file_actions_addopen(actions.get(), 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(actions.get(), pipe_fds[1], 1);
  posix_spawn_file_actions_adddup2(actions.get(), pipe_fds[1], 2);
  if (!working_dir.empty()) posix_spawn_file_actions_addchdir_np(actions.get(), working_dir.c_str());

  std::vector<char*> args;
  for (const auto& arg : argv)
    args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);

  ProcessResult result;
  pid_t pid = 0;
  result.spawn_error = ::posix_spawnp(&pid, argv[0].c_str(), actions.get(), nullptr, args.data(), environ);
  ::close(pipe_fds[1]);
  if (result.spawn_error != 0) {
    ::close(pipe_fds[0]);
    result.wait_status = -1;
    return result;
  }

  char buffer[4096];
  while (true) {
    ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    size_t keep = std::min(static_cast<size_t>(n), max_output_bytes - result.output.size());
    result.output.append(buffer, keep);
    result.dropped_bytes += static_cast<size_t>(n) - keep;
  }
  ::close(pipe_fds[0]);
  while (::waitpid(pid, &result.wait_status, 0) < 0) {
    if (errno != EINTR) {
      result.wait_status = -1;
      break;
    }
  }
  return result;
}

bool succeeded(const ProcessResult& result) {
  return result.spawn_error == 0 && result.wait_status != -1 && WIFEXITED(result.wait_status) &&
         WEXITSTATUS(result.wait_status) == 0;
}

std::string describe_failure(const ProcessResult& result, const std::string& tool) {
  std::string text = result.output;
  if (result.spawn_error != 0)
    return text + "[" + tool + " could not be started: " + std::strerror(result.spawn_error) + "]";
  if (result.dropped_bytes != 0)
    text += "\n[... " + std::to_string(result.dropped_bytes) + " more bytes of " + tool + " output]";
  if (result.wait_status == -1)
    text += "\n[" + tool + " status unknown]";
  else if (WIFSIGNALED(result.wait_status))
    text += "\n[" + tool + " killed by signal " + std::to_string(WTERMSIG(result.wait_status)) + "]";
  else if (result.output.empty())
    text += "[" + tool + " exited with status " + std::to_string(WEXITSTATUS(result.wait_status)) + " and no message]";
  return text;
}

} // namespace tessel::jit
