// The persistent-dispatch errors (spec: persistent-dispatch-host-api, Errors):
// one class per row of the spec's table, each carrying the facts it names.
// All derive from DispatchError, a tessel::Error; KernelSizeError and
// KernelInstructionError are also ProgramErrors.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tessel/dispatch/engines.hpp"
#include "tessel/dispatch/result.hpp"
#include "tessel/error.hpp"

namespace tessel::dispatch {

class DispatchError : public Error {
public:
  using Error::Error;
};

// Session::open: another live process holds the card.
class CardBusy : public DispatchError {
public:
  CardBusy(const std::string& message, int pid) : DispatchError(message), pid(pid) {}
  int pid;
};

// A kernel did not compile or the launch failed: the build's message.
class ProgramError : public DispatchError {
public:
  using DispatchError::DispatchError;
};

// The program's kernels do not fit the session's kernel buffer.
class KernelSizeError : public ProgramError {
public:
  KernelSizeError(const std::string& message, KernelSizes sizes) : ProgramError(message), sizes(std::move(sizes)) {}
  KernelSizes sizes;
};

// A kernel holds an instruction its core lacks.
struct InstructionFinding {
  std::string thread, instruction, function, file;
  uint32_t line = 0;
};
class KernelInstructionError : public ProgramError {
public:
  KernelInstructionError(const std::string& message, std::vector<InstructionFinding> findings)
      : ProgramError(message), findings(std::move(findings)) {}
  std::vector<InstructionFinding> findings;
};

// The dispatcher did not start (no READY within `start`).
class StartError : public DispatchError {
public:
  StartError(const std::string& message, std::optional<ResultBlock> result)
      : DispatchError(message), result(std::move(result)) {}
  std::optional<ResultBlock> result;
};

// A host-side wait ran out; the run is still loaded.
class WaitTimeout : public DispatchError {
public:
  WaitTimeout(const std::string& message, std::vector<uint64_t> pending)
      : DispatchError(message), pending(std::move(pending)) {}
  std::vector<uint64_t> pending;
};

// The kernel consumed the command and submitted nothing; the run goes on.
class CommandRejected : public DispatchError {
public:
  CommandRejected(const std::string& message, uint64_t handle, uint32_t reason, std::string reason_name)
      : DispatchError(message), handle(handle), reason(reason), reason_name(std::move(reason_name)) {}
  uint64_t handle;
  uint32_t reason;
  std::string reason_name;
};

// A core of a timed-out group that did not report: where its RISCs were.
struct StuckCore {
  uint32_t x = 0, y = 0;
  std::string reader, writer, compute; // "waits for ... at file:line", or "done"
};

// A group missed its deadline: the grid was stopped and read back.
class CommandTimeout : public DispatchError {
public:
  CommandTimeout(const std::string& message, uint64_t handle, uint32_t slot, uint64_t sequence,
                 std::pair<uint32_t, uint32_t> group, std::vector<StuckCore> cores)
      : DispatchError(message), handle(handle), slot(slot), sequence(sequence), group(group), cores(std::move(cores)) {}
  uint64_t handle;
  uint32_t slot;
  uint64_t sequence;
  std::pair<uint32_t, uint32_t> group;
  std::vector<StuckCore> cores;
};

// The dispatcher or a persistent kernel finished with an error.
class KernelFailed : public DispatchError {
public:
  KernelFailed(const std::string& message, std::optional<ResultBlock> result)
      : DispatchError(message), result(std::move(result)) {}
  std::optional<ResultBlock> result;
};

// The kernel rejected a RUN or CANCEL (KMD_REJECT_ENGINES, KMD_REJECT_REQ,
// KMD_REJECT_EXITED); handle is 0, req the engine's.
class EngineRejected : public CommandRejected {
public:
  EngineRejected(const std::string& message, uint32_t req, uint32_t reason, std::string reason_name)
      : CommandRejected(message, 0, reason, std::move(reason_name)), req(req) {}
  uint32_t req;
};

// A stream or graph ended with an error event.
class EngineError : public DispatchError {
public:
  EngineError(const std::string& message, EngineEvent event, std::shared_ptr<EngineHandle> handle)
      : DispatchError(message), event(std::move(event)), handle(std::move(handle)) {}
  EngineEvent event;
  std::shared_ptr<EngineHandle> handle;
};

// wait_engine ran out, or a RUN or CANCEL was not answered in time.
class EngineTimeout : public WaitTimeout {
public:
  EngineTimeout(const std::string& message, std::shared_ptr<EngineHandle> handle)
      : WaitTimeout(message, {}), handle(std::move(handle)) {}
  std::shared_ptr<EngineHandle> handle;
};

// The grid's kernels did not return within grid_timeout.
class GridTimeout : public DispatchError {
public:
  using DispatchError::DispatchError;
};

} // namespace tessel::dispatch
