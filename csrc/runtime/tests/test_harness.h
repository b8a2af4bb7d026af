// A tiny self-contained test harness for the runtime tests (no gtest):
// TEST(name) registers a function; CHECK* report file:line and continue;
// CHILD_MAIN(name) registers an entry point run by `tpu_runtime_tests
// --child name` for tests that must observe a separate process (crashes).
#pragma once

#include <atomic>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/runtime.h"

namespace tpu_test {

using TestFn = void (*)();
void register_test(const char* name, TestFn fn);
void register_child(const char* name, int (*fn)());
void report_failure(const char* file, int line, const std::string& what);
int failure_count();

struct Registrar {
  Registrar(const char* name, TestFn fn) { register_test(name, fn); }
};
struct ChildRegistrar {
  ChildRegistrar(const char* name, int (*fn)()) { register_child(name, fn); }
};

template <class A, class B>
void check_eq(const A& a, const B& b, const char* sa, const char* sb, const char* file, int line) {
  if (!(a == b)) {
    std::ostringstream os;
    os << "CHECK_EQ(" << sa << ", " << sb << "): " << a << " != " << b;
    report_failure(file, line, os.str());
  }
}

void check_status(torch_tpu::runtime::Status got, torch_tpu::runtime::Status want, const char* expr,
                  const char* file, int line);

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

#define TPU_TEST_CAT2(a, b) a##b
#define TPU_TEST_CAT(a, b) TPU_TEST_CAT2(a, b)

#define TEST(name)                                                          \
  static void tpu_test_##name();                                            \
  static ::tpu_test::Registrar tpu_test_reg_##name(#name, tpu_test_##name); \
  static void tpu_test_##name()

#define CHILD_MAIN(name)                                                              \
  static int tpu_child_##name();                                                      \
  static ::tpu_test::ChildRegistrar tpu_child_reg_##name(#name, tpu_child_##name);    \
  static int tpu_child_##name()

#define CHECK(cond)                                                               \
  do {                                                                            \
    if (!(cond)) ::tpu_test::report_failure(__FILE__, __LINE__, "CHECK(" #cond ")"); \
  } while (0)

#define CHECK_EQ(a, b) ::tpu_test::check_eq((a), (b), #a, #b, __FILE__, __LINE__)

#define CHECK_STATUS(expr, want) ::tpu_test::check_status((expr), (want), #expr, __FILE__, __LINE__)
#define CHECK_OK(expr) CHECK_STATUS(expr, ::torch_tpu::runtime::Status::kSuccess)

#define CHECK_CONTAINS(haystack, needle)                                                         \
  do {                                                                                           \
    const std::string tpu_h_ = (haystack);                                                       \
    const std::string tpu_n_ = (needle);                                                         \
    if (tpu_h_.find(tpu_n_) == std::string::npos)                                                \
      ::tpu_test::report_failure(__FILE__, __LINE__,                                             \
                                 "CHECK_CONTAINS(" #haystack ", " #needle "): '" + tpu_h_ +      \
                                     "' does not contain '" + tpu_n_ + "'");                     \
  } while (0)
