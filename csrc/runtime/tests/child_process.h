// Tests that must observe a separate process (crashes, environment
// variables read once at start-up): CHILD_MAIN(name) registers an entry
// point that `tpu_runtime_tests --child name` runs instead of the tests, and
// run_child starts this binary that way and reports how it ended.
#pragma once

#include <string>
#include <vector>

#include "testing/harness.h"

namespace tpu_test {

using ChildFn = int (*)();  // returns the child's exit code
void register_child(const char* name, ChildFn fn);

struct ChildRegistrar {
  ChildRegistrar(const char* name, ChildFn fn) { register_child(name, fn); }
};

// Result of running this test binary as a child process.
struct ChildResult {
  bool exited = false;
  int exit_code = -1;
  bool signaled = false;
  int signal = 0;
  std::string stderr_text;
};
// Runs `tpu_runtime_tests --child name` (fork + exec of /proc/self/exe),
// capturing its stderr through a pipe.
// `env` entries ("NAME=value") take precedence over the inherited ones.
ChildResult run_child(const char* name, std::vector<std::string> env = {});

}  // namespace tpu_test

#define CHILD_MAIN(name)                                                                          \
  static int TPU_TEST_CAT(tpu_child_fn_, name)();                                                 \
  static ::tpu_test::ChildRegistrar TPU_TEST_CAT(tpu_child_reg_, name)(#name,                     \
                                                                       &TPU_TEST_CAT(tpu_child_fn_, name)); \
  static int TPU_TEST_CAT(tpu_child_fn_, name)()
