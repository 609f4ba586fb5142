// tessel's XRT: the subset of XRT's C++ API (xrt::device, xrt::xclbin,
// xrt::hw_context, xrt::kernel, xrt::run, xrt::bo, and the ELF flow's
// xrt::elf, xrt::module, xrt::ext::kernel, xrt::ext::bo) that IRON's C++
// testbenches use, over tessel's simulated device.
//
// An xclbin path stands for the tessel design record beside it (what
// `python -m tessel.iron.run design.py > build/aie.mlir` wrote, or a jit
// design's compile(xclbin_path=...)); the file itself need not exist.
// Calling a kernel runs that design once with the buffer objects given
// after the instruction buffer (the first buffer argument), in order, as
// the design's host buffers (kernel(opcode, bo_instr, instr_count, bo_a,
// bo_b, ...); scalars are ignored, as the NPU's sequence ignores them). The
// instruction buffer is not read: tessel runs the design, not an
// instruction stream.
//
// Objects are handles (copies share state), as XRT's are. A call runs to
// completion before it returns; run::wait() returns its state. Not
// thread-safe beyond XRT's own promises: buffers one thread syncs while
// another runs them race here as on the device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include "tessel/xrt_link.h"

// Buffer flags and sync directions, with XRT's values.
#define XCL_BO_FLAGS_NONE 0u
#define XCL_BO_FLAGS_CACHEABLE (1u << 24)
#define XCL_BO_FLAGS_SVM (1u << 27)
#define XCL_BO_FLAGS_DEV_ONLY (1u << 28)
#define XCL_BO_FLAGS_HOST_ONLY (1u << 29)
#define XCL_BO_FLAGS_P2P (1u << 30)
#define XRT_BO_FLAGS_NONE XCL_BO_FLAGS_NONE
#define XRT_BO_FLAGS_CACHEABLE XCL_BO_FLAGS_CACHEABLE
#define XRT_BO_FLAGS_SVM XCL_BO_FLAGS_SVM
#define XRT_BO_FLAGS_DEV_ONLY XCL_BO_FLAGS_DEV_ONLY
#define XRT_BO_FLAGS_HOST_ONLY XCL_BO_FLAGS_HOST_ONLY
#define XRT_BO_FLAGS_P2P XCL_BO_FLAGS_P2P

enum xclBOSyncDirection { XCL_BO_SYNC_BO_TO_DEVICE = 0, XCL_BO_SYNC_BO_FROM_DEVICE = 1 };

enum ert_cmd_state {
  ERT_CMD_STATE_NEW = 1,
  ERT_CMD_STATE_QUEUED = 2,
  ERT_CMD_STATE_RUNNING = 3,
  ERT_CMD_STATE_COMPLETED = 4,
  ERT_CMD_STATE_ERROR = 5,
  ERT_CMD_STATE_ABORT = 6,
  ERT_CMD_STATE_SUBMITTED = 7,
  ERT_CMD_STATE_TIMEOUT = 8,
  ERT_CMD_STATE_NORESPONSE = 9,
};

using xrtBufferFlags = uint32_t;
using xrtMemoryGroup = uint32_t;
using xclDeviceHandle = void*;  // the driver handle a device converts to

namespace xrt {

class uuid {
 public:
  uuid() = default;
  explicit uuid(std::string text) : text_(std::move(text)) {}
  std::string to_string() const { return text_; }
  explicit operator bool() const { return !text_.empty(); }
  bool operator==(const uuid& o) const { return text_ == o.text_; }
  bool operator!=(const uuid& o) const { return text_ != o.text_; }

 private:
  std::string text_;
};

// An xclbin: the path of the design record it stands for.
class xclbin {
 public:
  // The one kernel of an IRON xclbin.
  class kernel {
   public:
    kernel() = default;
    explicit kernel(std::string name) : name_(std::move(name)) {}
    std::string get_name() const { return name_; }
    size_t get_num_args() const { return 0; }

   private:
    std::string name_;
  };

  xclbin() = default;
  explicit xclbin(const std::string& path) : path_(path) {}
  explicit xclbin(const char* path) : path_(path) {}

  std::vector<kernel> get_kernels() const { return {kernel("MLIR_AIE")}; }
  kernel get_kernel(const std::string& name) const { return kernel(name); }
  uuid get_uuid() const { return uuid("tessel:" + path_); }
  std::string get_xsa_name() const { return "tessel"; }
  const std::string& path() const { return path_; }
  explicit operator bool() const { return !path_.empty(); }

 private:
  std::string path_;
};

class device {
 public:
  device() = default;
  explicit device(unsigned int index) : index_(index), open_(true) {}
  explicit device(const std::string& bdf) : open_(true) { (void)bdf; }

  uuid register_xclbin(const xclbin& x) {
    path_ = x.path();
    return x.get_uuid();
  }
  uuid load_xclbin(const xclbin& x) { return register_xclbin(x); }
  uuid load_xclbin(const std::string& path) { return register_xclbin(xclbin(path)); }
  uuid get_xclbin_uuid() const { return uuid(path_.empty() ? "" : "tessel:" + path_); }
  unsigned int index() const { return index_; }
  explicit operator bool() const { return open_; }
  // XRT's device converts to its driver handle (testbenches print it).
  operator xclDeviceHandle() const { return open_ ? const_cast<device*>(this) : nullptr; }

  // The xclbin path a uuid this device registered stands for.
  static std::string path_of(const uuid& id) {
    std::string s = id.to_string();
    return s.rfind("tessel:", 0) == 0 ? s.substr(7) : s;
  }

 private:
  unsigned int index_ = 0;
  bool open_ = false;
  std::string path_;
};

class hw_context {
 public:
  enum class access_mode : uint8_t { exclusive = 0, shared = 1 };
  hw_context() = default;
  hw_context(const device& dev, const uuid& id) : device_(dev), xclbin_(device::path_of(id)) {}
  hw_context(const device& dev, const uuid& id, access_mode) : hw_context(dev, id) {}
  const std::string& xclbin_path() const { return xclbin_; }
  device get_device() const { return device_; }
  uuid get_xclbin_uuid() const { return uuid("tessel:" + xclbin_); }

 private:
  device device_;
  std::string xclbin_;
};

// A buffer object: host memory the design server maps too (a memfd).
class bo {
 public:
  enum class flags : uint32_t {
    normal = 0,
    cacheable = XCL_BO_FLAGS_CACHEABLE,
    svm = XCL_BO_FLAGS_SVM,
    device_only = XCL_BO_FLAGS_DEV_ONLY,
    host_only = XCL_BO_FLAGS_HOST_ONLY,
    p2p = XCL_BO_FLAGS_P2P,
  };
  using memory_group = xrtMemoryGroup;

  bo() = default;
  bo(const device&, size_t size_bytes, xrtBufferFlags flags, memory_group group) { make(size_bytes, flags, group); }
  bo(const device&, size_t size_bytes, flags f, memory_group group) {
    make(size_bytes, static_cast<uint32_t>(f), group);
  }
  bo(const device&, size_t size_bytes, memory_group group) { make(size_bytes, 0, group); }
  bo(const hw_context&, size_t size_bytes, xrtBufferFlags flags, memory_group group) {
    make(size_bytes, flags, group);
  }
  bo(const hw_context&, size_t size_bytes, flags f, memory_group group) {
    make(size_bytes, static_cast<uint32_t>(f), group);
  }
  bo(const hw_context&, size_t size_bytes, memory_group group) { make(size_bytes, 0, group); }

  template <typename T = void*>
  T map() {
    static_assert(std::is_pointer<T>::value, "xrt::bo::map<T>: T must be a pointer type");
    return reinterpret_cast<T>(data());
  }
  template <typename T = void*>
  T map() const {
    return reinterpret_cast<T>(data());
  }

  // Host memory is the device's memory here: sync checks its range and moves nothing.
  void sync(xclBOSyncDirection, size_t size_bytes, size_t offset_bytes) {
    check_range("sync", size_bytes, offset_bytes);
  }
  void sync(xclBOSyncDirection dir) { sync(dir, size(), 0); }

  void write(const void* src, size_t size_bytes, size_t offset_bytes) {
    check_range("write", size_bytes, offset_bytes);
    std::memcpy(static_cast<char*>(data()) + offset_bytes, src, size_bytes);
  }
  void write(const void* src) { write(src, size(), 0); }
  void read(void* dst, size_t size_bytes, size_t offset_bytes) const {
    check_range("read", size_bytes, offset_bytes);
    std::memcpy(dst, static_cast<const char*>(data()) + offset_bytes, size_bytes);
  }
  void read(void* dst) const { read(dst, size(), 0); }

  size_t size() const { return mem_ ? mem_->size_bytes : 0; }
  uint64_t address() const { return mem_ ? reinterpret_cast<uint64_t>(mem_->ptr) : 0; }
  xrtBufferFlags get_flags() const { return mem_ ? mem_->flags : 0; }
  memory_group get_memory_group() const { return mem_ ? mem_->group : 0; }
  explicit operator bool() const { return static_cast<bool>(mem_); }

  // For the kernel call: the memfd and size of this buffer.
  int tessel_fd() const { return mem_ ? mem_->fd : -1; }

 private:
  struct Memory {
    int fd = -1;
    void* ptr = nullptr;
    size_t size_bytes = 0, mapped_bytes = 0;
    xrtBufferFlags flags = 0;
    memory_group group = 0;
    ~Memory() {
      if (ptr) munmap(ptr, mapped_bytes);
      if (fd >= 0) close(fd);
    }
  };

  void make(size_t size_bytes, xrtBufferFlags flags, memory_group group) {
    auto m = std::make_shared<Memory>();
    m->size_bytes = size_bytes;
    m->mapped_bytes = size_bytes ? size_bytes : 1;
    m->flags = flags;
    m->group = group;
    m->fd = memfd_create("tessel-xrt-bo", MFD_CLOEXEC);
    if (m->fd < 0 || ftruncate(m->fd, static_cast<off_t>(m->mapped_bytes)) != 0)
      throw std::runtime_error("xrt::bo: cannot allocate " + std::to_string(size_bytes) + " bytes: " +
                               std::strerror(errno));
    m->ptr = mmap(nullptr, m->mapped_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, 0);
    if (m->ptr == MAP_FAILED) {
      m->ptr = nullptr;
      throw std::runtime_error("xrt::bo: cannot map " + std::to_string(size_bytes) + " bytes: " +
                               std::strerror(errno));
    }
    mem_ = std::move(m);
  }

  void* data() const {
    if (!mem_) throw std::runtime_error("xrt::bo: map() of a buffer object that holds no buffer");
    return mem_->ptr;
  }

  void check_range(const char* what, size_t size_bytes, size_t offset_bytes) const {
    if (!mem_) throw std::runtime_error(std::string("xrt::bo::") + what + ": the buffer object holds no buffer");
    if (offset_bytes > mem_->size_bytes || size_bytes > mem_->size_bytes - offset_bytes)
      throw std::runtime_error(std::string("xrt::bo::") + what + ": " + std::to_string(size_bytes) +
                               " bytes at offset " + std::to_string(offset_bytes) + " pass the end of a " +
                               std::to_string(mem_->size_bytes) + "-byte buffer");
  }

  std::shared_ptr<Memory> mem_;
};

class kernel;

// One call of a kernel: the arguments, and its state once it ran.
class run {
 public:
  run() = default;
  explicit run(const kernel& k);

  template <typename T>
  void set_arg(int index, T&& value) {
    if (!state_) throw std::runtime_error("xrt::run::set_arg: the run has no kernel");
    if (index < 0) throw std::runtime_error("xrt::run::set_arg: negative argument index");
    auto& args = state_->args;
    if (static_cast<size_t>(index) >= args.size()) args.resize(static_cast<size_t>(index) + 1);
    args[static_cast<size_t>(index)] = arg_of(std::forward<T>(value));
  }

  void start();
  ert_cmd_state wait() const { return state_ ? state_->state : ERT_CMD_STATE_ERROR; }
  ert_cmd_state wait(unsigned int /*timeout_ms*/) const { return wait(); }
  ert_cmd_state wait2() const { return wait(); }
  ert_cmd_state state() const { return wait(); }
  // Nanoseconds the design ran for (host time of the simulated run).
  uint64_t tessel_npu_ns() const { return state_ ? state_->npu_ns : 0; }

 private:
  friend class kernel;
  struct Arg {
    bool is_buffer = false;
    bo buffer;
  };
  struct State {
    std::string xclbin;
    bool skip_first_buffer = true;
    std::vector<Arg> args;
    ert_cmd_state state = ERT_CMD_STATE_NEW;
    uint64_t npu_ns = 0;
  };

  static Arg arg_of(const bo& b) { return Arg{true, b}; }
  static Arg arg_of(bo& b) { return Arg{true, b}; }
  static Arg arg_of(bo&& b) { return Arg{true, std::move(b)}; }
  template <typename T>
  static Arg arg_of(T&&) {
    return Arg{};
  }

  std::shared_ptr<State> state_;
};

class kernel {
 public:
  enum class cu_access_mode : uint8_t { exclusive = 0, shared = 1, none = 2 };
  kernel() = default;
  // Loads the design the context's xclbin stands for (replaying its script once per process).
  kernel(const hw_context& ctx, const std::string& name) : xclbin_(ctx.xclbin_path()), name_(name) { load(); }
  kernel(const device&, const uuid& id, const std::string& name, cu_access_mode = cu_access_mode::shared)
      : xclbin_(device::path_of(id)), name_(name) {
    load();
  }

  // XRT's memory group of argument `index`: the index (bo constructors take it back).
  int group_id(int index) const { return index; }
  std::string get_name() const { return name_; }

  template <typename... Args>
  xrt::run operator()(Args&&... args) const {
    xrt::run r(*this);
    int i = 0;
    (r.set_arg(i++, std::forward<Args>(args)), ...);
    r.start();
    return r;
  }

  const std::string& xclbin_path() const { return xclbin_; }
  // Whether the first buffer argument is the instruction buffer (the xclbin
  // flow) or a host buffer too (the ELF flow's ext::kernel: the
  // instructions are in the ELF).
  bool instruction_buffer_first() const { return instruction_buffer_first_; }

 protected:
  bool instruction_buffer_first_ = true;

 private:
  void load() {
    tessel_xrt::Reply reply = tessel_xrt::Link::get().request(
        "{\"op\": \"load\", \"xclbin\": " + tessel_xrt::json_quote(xclbin_) + "}");
    if (!reply.ok) throw std::runtime_error("xrt::kernel " + name_ + ": " + reply.error);
  }

  std::string xclbin_;
  std::string name_;
};

inline run::run(const kernel& k) : state_(std::make_shared<State>()) {
  state_->xclbin = k.xclbin_path();
  state_->skip_first_buffer = k.instruction_buffer_first();
}

// The design runs with the buffers after the instruction buffer (the first
// buffer argument: kernel(opcode, bo_instr, count, ...), or in IRON's
// oldest testbenches kernel(bo_instr, count, ...)), in order; an ELF-flow
// kernel (ext::kernel(opcode, 0, 0, ...)) with every buffer it is given.
inline void run::start() {
  if (!state_) throw std::runtime_error("xrt::run::start: the run has no kernel");
  std::vector<int> fds;
  std::string sizes;
  bool instructions_seen = !state_->skip_first_buffer;
  for (const Arg& a : state_->args) {
    if (!a.is_buffer || !a.buffer) continue;
    if (!instructions_seen) {
      instructions_seen = true;
      continue;
    }
    fds.push_back(a.buffer.tessel_fd());
    sizes += (sizes.empty() ? "" : ", ") + std::to_string(a.buffer.size());
  }
  state_->state = ERT_CMD_STATE_RUNNING;
  tessel_xrt::Reply reply = tessel_xrt::Link::get().request(
      "{\"op\": \"run\", \"xclbin\": " + tessel_xrt::json_quote(state_->xclbin) + ", \"sizes\": [" + sizes + "]}",
      fds);
  state_->npu_ns = reply.npu_ns;
  if (reply.ok) {
    state_->state = ERT_CMD_STATE_COMPLETED;
    return;
  }
  state_->state = ERT_CMD_STATE_ERROR;
  std::fflush(stdout);
  std::fprintf(stderr, "%s\n", reply.error.c_str());
  tessel_xrt::Link::get().note_failure();
}

// ---- the ELF flow (xrt/experimental/xrt_elf.h, xrt_module.h, xrt_ext.h) ----
// The instructions come in an ELF (the -i path) instead of an instruction
// buffer; tessel runs the design the context's xclbin stands for, so the
// ELF is named, not read.
class elf {
 public:
  elf() = default;
  explicit elf(const std::string& path) : path_(path) {}
  const std::string& tessel_path() const { return path_; }

 private:
  std::string path_;
};

class module {
 public:
  module() = default;
  explicit module(const elf& e) : elf_(e) {}
  elf get_elf() const { return elf_; }

 private:
  elf elf_;
};

namespace ext {

class bo : public xrt::bo {
 public:
  enum class access_mode : uint8_t { none = 0, read = 1, write = 2, read_write = 3, process = 4, shared = 5 };
  bo() = default;
  bo(const xrt::device& d, size_t size_bytes) : xrt::bo(d, size_bytes, xrtMemoryGroup(0)) {}
  bo(const xrt::device& d, size_t size_bytes, access_mode) : bo(d, size_bytes) {}
  bo(const xrt::hw_context& c, size_t size_bytes) : xrt::bo(c, size_bytes, xrtMemoryGroup(0)) {}
  bo(const xrt::hw_context& c, size_t size_bytes, access_mode) : bo(c, size_bytes) {}
};

// A kernel of the ELF flow: every buffer argument is a host buffer of the
// design, in order (kernel(opcode, 0, 0, bo_a, bo_b, ...)).
class kernel : public xrt::kernel {
 public:
  kernel() = default;
  kernel(const xrt::hw_context& ctx, const xrt::module&, const std::string& name) : xrt::kernel(ctx, name) {
    instruction_buffer_first_ = false;
  }
};

}  // namespace ext
}  // namespace xrt
