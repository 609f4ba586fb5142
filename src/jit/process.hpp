// Running a tool of the kernel build (a compiler, objdump, addr2line):
// posix_spawn without a shell, stdin from /dev/null, stdout and stderr
// captured together.
//
// Thread-safety: run_process may be called from several threads at once; the
// capture pipe is close-on-exec, so a tool spawned by another thread never
// holds it open.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tessel::jit {

struct ProcessResult {
  int spawn_error = 0;      // errno of posix_spawnp (e.g. ENOENT: no such program); 0 if it started
  int wait_status = 0;      // waitpid's status; -1 if unknown
  std::string output;       // stdout and stderr interleaved, at most the limit given
  size_t dropped_bytes = 0; // output beyond that limit
};

// Runs argv[0] (searched in PATH when it has no '/') in `working_dir` (empty:
// the current one) and waits for it. Keeps at most `max_output_bytes` of its
// output. A program that cannot be started is reported in spawn_error; only
// a pipe that cannot be made throws, tessel::ProgramError "<what> <argv[0]>
// could not be started: pipe: <reason>" (what: "kernel compiler", ...).
ProcessResult run_process(const std::vector<std::string>& argv, const std::string& working_dir, size_t max_output_bytes,
                          const std::string& what);

// Whether the program started and exited with status 0.
bool succeeded(const ProcessResult& result);

// The output, followed by what else is known when it does not say why the
// program failed: output dropped, a signal, an exit status without a message.
// `tool` names the program in those notes ("compiler", "objdump").
std::string describe_failure(const ProcessResult& result, const std::string& tool);

} // namespace tessel::jit
