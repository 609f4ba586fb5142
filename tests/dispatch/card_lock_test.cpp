// A card is held by one live process (spec: CardBusy): the holder's pid is
// read from the lock file without taking the lock, and a dead process, a
// zombie or a reused pid is not taken for the holder.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "dispatch/session_state.hpp"
#include "tessel/dispatch/errors.hpp"

namespace fs = std::filesystem;
using namespace tessel::dispatch;

namespace {
struct LockDir : ::testing::Test {
  fs::path dir;
  void SetUp() override {
    dir = fs::temp_directory_path() / ("tessel-lock-test-" + std::to_string(getpid()));
    fs::create_directories(dir);
    setenv("TESSEL_CARD_LOCK_DIR", dir.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("TESSEL_CARD_LOCK_DIR");
    fs::remove_all(dir);
  }
  void write_pid(int card, long pid) { std::ofstream(card_lock_path(card)) << pid << "\n"; }
};
} // namespace

TEST_F(LockDir, ALiveHolderIsNamed) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  if (child == 0) {
    hold_card(7);
    char c = 1;
    (void)!write(ready[1], &c, 1);
    pause();
    _exit(0);
  }
  char c;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  EXPECT_EQ(card_holder(7), child);
  try {
    hold_card(7);
    FAIL() << "expected CardBusy";
  } catch (const CardBusy& e) {
    EXPECT_EQ(e.pid, child);
    EXPECT_NE(std::string(e.what()).find("card 7 is held by process " + std::to_string(child)), std::string::npos)
        << e.what();
  }
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  EXPECT_EQ(card_holder(7), 0); // dead: its lock went with it
  EXPECT_NO_THROW(hold_card(7));
  EXPECT_EQ(card_holder(7), getpid());
}

TEST_F(LockDir, AZombieIsNotTheHolder) {
  const pid_t child = fork();
  if (child == 0) {
    hold_card(8);
    _exit(0);
  }
  // Wait for the child to exit without reaping it: a zombie whose pid is in the file.
  for (int i = 0; i < 500; ++i) {
    std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
    std::string line;
    std::getline(stat, line);
    if (line.find(") Z") != std::string::npos) break;
    usleep(2000);
  }
  EXPECT_EQ(card_holder(8), 0);
  EXPECT_NO_THROW(hold_card(8));
  waitpid(child, nullptr, 0);
}

TEST_F(LockDir, AReusedOrDeadPidIsNotTheHolder) {
  write_pid(9, getppid()); // alive, but it does not map the lock file
  EXPECT_EQ(card_holder(9), 0);
  write_pid(10, 999999999); // no such process
  EXPECT_EQ(card_holder(10), 0);
  EXPECT_NO_THROW(hold_card(9));
  EXPECT_NO_THROW(hold_card(10));
}
