// Kernel code that would end the process (kernel_prelude.h's replacements,
// sim/fault.cpp's SIGABRT and terminate handling): abort, assert, the exit
// family, std::terminate, an exception escaping kernel_main, pthread_exit and
// an abort inside the C library each become an error naming core, RISC and
// the kernel's line, and the process and the device stay alive.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <exception>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

// One kernel for every case (one JIT compile): arg 0 selects the call.
constexpr const char* kEnders = R"(#include "api/dataflow/dataflow_api.h"
#include <cassert>
#include <cstdlib>
#include <exception>
#include <csignal>
#include <pthread.h>
#include <string>
#include <unistd.h>

void kernel_main() {
  const uint32_t how = get_arg_val<uint32_t>(0);
  volatile uint32_t n = get_arg_val<uint32_t>(1);
  std::string s = "abc"; // short: no heap memory to lose when the kernel is stopped
  switch (how) {
  case 0: abort(); // @abort
  case 1: assert(n == 5); break; // @assert
  case 2: exit(int(n)); // @exit
  case 3: _exit(int(n)); // @_exit
  case 4: _Exit(int(n)); // @_Exit
  case 5: quick_exit(int(n)); // @quick_exit
  case 6: std::terminate(); // @terminate
  case 7: s.at(n) = 'x'; break; // @throw
  case 8: pthread_exit(nullptr); // @pthread_exit
  case 9: free(reinterpret_cast<void*>(uintptr_t(get_write_ptr(0)) + 16)); break; // @free
  case 10: raise(SIGABRT); break; // @raise
  }
}
)";

class KernelExitTest : public ::testing::Test {
protected:
  void SetUp() override { device = open_device(); }

  // The message of the error (KernelError or KernelFault) running case `how`.
  template <class E>
  std::string error(uint32_t how, uint32_t n = 0) {
    Program p;
    p.add_circular_buffer(CoreCoord{1, 0}, one_cb_config(4096, 2048));
    KernelHandle k = p.add_kernel_from_source(kEnders, "enders.cpp", CoreCoord{1, 0}, DataMovementConfig{});
    p.set_runtime_args(k, CoreCoord{1, 0}, {how, n});
    std::string message = error_of<E>(device->command_queue(), p);
    expect_device_works(device);
    return message;
  }
  static std::string site(const std::string& marker) {
    return "enders.cpp:" + std::to_string(marker_line(kEnders, marker)) + ": core (1,0) BRISC: ";
  }

  std::shared_ptr<Device> device;
};

TEST_F(KernelExitTest, AssertNamesTheExpressionAndLine) {
  // The assertion's own file and line: no addr2line needed.
  EXPECT_EQ(error<KernelError>(1, 4), site("assert") + "assertion 'n == 5' failed in void kernel_main()");
}

TEST_F(KernelExitTest, AbortIsAKernelFault) {
  if (!have_addr2line()) GTEST_SKIP() << "addr2line (binutils) is needed for the source line";
  EXPECT_EQ(error<KernelFault>(0), site("abort") + "kernel 'enders.cpp' crashed: abort() was called");
}

TEST_F(KernelExitTest, TheExitFamilyIsAKernelError) {
  if (!have_addr2line()) GTEST_SKIP() << "addr2line (binutils) is needed for the source line";
  const std::string tail = " called: a kernel cannot end the process; return from kernel_main to end the kernel";
  EXPECT_EQ(error<KernelError>(2, 3), site("exit") + "exit(3)" + tail);
  EXPECT_EQ(error<KernelError>(3, 4), site("_exit") + "_exit(4)" + tail);
  EXPECT_EQ(error<KernelError>(4, 5), site("_Exit") + "_Exit(5)" + tail);
  EXPECT_EQ(error<KernelError>(5, 6), site("quick_exit") + "quick_exit(6)" + tail);
}

TEST_F(KernelExitTest, TerminateIsAKernelFault) {
  if (!have_addr2line()) GTEST_SKIP() << "addr2line (binutils) is needed for the source line";
  EXPECT_EQ(error<KernelFault>(6), site("terminate") + "kernel 'enders.cpp' crashed: std::terminate() was called");
}

TEST_F(KernelExitTest, AnExceptionEscapingKernelMainNamesItsTypeAndTheThrowingCall) {
  if (!have_addr2line()) GTEST_SKIP() << "addr2line (binutils) is needed for the source line";
  EXPECT_EQ(error<KernelFault>(7, 10),
            site("throw") + "kernel 'enders.cpp' crashed: an exception escaped kernel_main: std::out_of_range: "
                            "basic_string::at: __n (which is 10) >= this->size() (which is 3)");
  // The exception was freed and this thread's exception state is clean.
  EXPECT_EQ(std::uncaught_exceptions(), 0);
  EXPECT_EQ(std::current_exception(), nullptr);
}

TEST_F(KernelExitTest, PthreadExitIsAKernelError) {
  if (!have_addr2line()) GTEST_SKIP() << "addr2line (binutils) is needed for the source line";
  EXPECT_EQ(error<KernelError>(8), site("pthread_exit") +
                                       "pthread_exit called: kernels run on the simulator's fibers, not on threads of "
                                       "their own; return from kernel_main to end the kernel");
}

TEST_F(KernelExitTest, AnAbortInsideTheCLibraryIsBlamedOnTheKernelsCall) {
  if (!have_addr2line()) GTEST_SKIP() << "addr2line (binutils) is needed for the source line";
  const std::string message = error<KernelFault>(10);
  EXPECT_EQ(message.rfind(site("raise") + "kernel 'enders.cpp' crashed: aborted (SIGABRT) (in libc", 0), 0u) << message;
  EXPECT_NE(message.find(", called from here): the C library or C++ runtime found an error it cannot continue from"),
            std::string::npos)
      << message;
}

TEST_F(KernelExitTest, AHeapErrorTheCLibraryAbortsOnIsBlamedOnTheKernelsCall) {
#if defined(TESSEL_SANITIZE)
  GTEST_SKIP() << "the sanitizers' allocator reports a bad free itself and ends the process";
#endif
  if (!have_addr2line()) GTEST_SKIP() << "addr2line (binutils) is needed for the source line";
  // free() of a pointer malloc never gave out: glibc prints its complaint and aborts.
  const std::string message = error<KernelFault>(9);
  EXPECT_EQ(message.rfind(site("free") + "kernel 'enders.cpp' crashed: aborted (SIGABRT) (in libc", 0), 0u) << message;
}

TEST_F(KernelExitTest, EveryCaseInTurnLeavesTheDeviceUsable) {
  // Errors of different kinds back to back on one device, each followed by a correct program.
  for (uint32_t round = 0; round < 2; ++round) {
    EXPECT_FALSE(error<KernelError>(1, 4).empty());
    EXPECT_FALSE(error<KernelFault>(0).empty());
    EXPECT_FALSE(error<KernelFault>(7, 10).empty());
    EXPECT_FALSE(error<KernelError>(2, 1).empty());
  }
}

using KernelExitDeathTest = KernelExitTest;

TEST_F(KernelExitDeathTest, TheHostsOwnAbortAndTerminateStillEndTheProcess) {
  // The handlers act only while a kernel runs on the calling thread.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::abort(), ::testing::KilledBySignal(SIGABRT), "");
  EXPECT_EXIT(std::terminate(), ::testing::KilledBySignal(SIGABRT), "");
  EXPECT_EXIT(std::exit(7), ::testing::ExitedWithCode(7), "");
}

} // namespace
} // namespace tessel::test
