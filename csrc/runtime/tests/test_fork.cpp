// fork(): a child forked after the runtime started threads refuses device
// work with kForkedProcess; one forked before any thread works normally.
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

using namespace tpu_test;
using rt::Status;

namespace {

// Exit code 0 if the child of a threaded runtime behaves; else the number
// of the first failed expectation. Only runs in the forked child.
int bad_fork_child_checks() {
  if (!rt::in_bad_fork()) return 1;
  if (rt::device_count() < 1) return 2;  // still works
  if (rt::current_device() != 0) return 3;
  void* p = nullptr;
  if (rt::malloc(0, 64, &p) != Status::kForkedProcess) return 4;
  if (rt::last_error_message().find("'spawn'") == std::string::npos) return 5;
  if (rt::stream_synchronize(nullptr) != Status::kForkedProcess) return 6;
  if (rt::launch(nullptr, "k", {}, [] {}) != Status::kForkedProcess) return 7;
  rt::Event e = nullptr;
  if (rt::event_create(&e) != Status::kForkedProcess) return 8;
  int x = 0, y = 0;
  if (rt::memcpy(&x, &y, sizeof x, rt::MemcpyKind::kDefault) != Status::kForkedProcess) return 9;
  if (rt::device_synchronize(0) != Status::kForkedProcess) return 10;
  if (rt::malloc_host(64, &p) != Status::kForkedProcess) return 11;
  return 0;
}

}  // namespace

TEST(bad_fork_is_detected) {
  // Make sure the runtime has started threads in this process.
  CHECK_OK(rt::launch(nullptr, "warm", {}, [] {}));
  CHECK_OK(rt::stream_synchronize(nullptr));
  CHECK(!rt::in_bad_fork());
  const pid_t pid = fork();
  if (pid == 0) _exit(bad_fork_child_checks());
  int status = 0;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
  CHECK(!rt::in_bad_fork());  // the parent is unaffected
}

CHILD_MAIN(fork_before_threads) {
  // A fresh process: initialize the runtime without starting any thread,
  // fork, and use the device in the grandchild.
  if (rt::device_count() < 1) return 2;
  const pid_t pid = fork();
  if (pid == 0) {
    if (rt::in_bad_fork()) _exit(3);
    void* d = nullptr;
    if (rt::malloc(0, 64, &d) != Status::kSuccess) _exit(4);
    int in = 1234, out = 0;
    if (rt::memcpy(d, &in, sizeof in, rt::MemcpyKind::kHostToDevice) != Status::kSuccess) _exit(5);
    if (rt::memcpy(&out, d, sizeof out, rt::MemcpyKind::kDeviceToHost) != Status::kSuccess) _exit(6);
    _exit(out == 1234 ? 0 : 7);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return 8;
  return WEXITSTATUS(status);
}

TEST(fork_before_threads_is_fine) {
  ChildResult r = run_child("fork_before_threads");
  CHECK(r.exited);
  CHECK_EQ(r.exit_code, 0);
}
