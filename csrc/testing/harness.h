// The test harness shared by the torch-free C++ test binaries (no gtest).
// TEST(name) registers a test; the CHECK* macros report file:line and keep
// going, from any thread; harness_main.cpp provides main(): run the tests
// whose name contains the filter argument, `--list`, `--help`, a closing
// "N passed, M failed" line and a nonzero exit code on any failure.
// A binary adds modes of its own (e.g. `--bench`) with TEST_MODE.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>

namespace tpu_test {

using TestFn = void (*)();
void register_test(const char* name, TestFn fn);

// Counts a failed check of the running test and prints it (thread safe).
void report_failure(const char* file, int line, const std::string& what);
// Failed checks so far, over all tests.
int failure_count();

// An extra command-line mode: `binary FLAG args...` runs fn(argc, argv)
// with the arguments after FLAG instead of the tests; its result is the
// exit code.
using ModeFn = int (*)(int argc, char** argv);
void register_mode(const char* flag, const char* help, ModeFn fn);

// Thrown by SKIP_TEST: the test stops and is counted as skipped, with the
// reason printed (for a build that cannot run it, e.g. under a sanitizer).
struct SkipTest {
  const char* reason;
};
#define SKIP_TEST(reason) throw ::tpu_test::SkipTest{reason}

struct TestRegistrar {
  TestRegistrar(const char* name, TestFn fn) { register_test(name, fn); }
};
struct ModeRegistrar {
  ModeRegistrar(const char* flag, const char* help, ModeFn fn) { register_mode(flag, help, fn); }
};

// A value as a failure message shows it: 8-bit integers as numbers (not
// characters), anything without operator<< as a placeholder.
template <typename T>
std::string show(const T& v) {
  using U = std::remove_cv_t<T>;
  std::ostringstream os;
  if constexpr (std::is_same_v<U, int8_t> || std::is_same_v<U, uint8_t>) {
    os << static_cast<int>(v);
  } else if constexpr (std::is_same_v<U, bool>) {
    os << (v ? "true" : "false");
  } else if constexpr (requires(std::ostream& o, const T& x) { o << x; }) {
    os << v;
  } else {
    os << "<" << sizeof(T) << "-byte value>";
  }
  return os.str();
}

// A function, not a macro body, so each side is evaluated exactly once.
template <typename A, typename B>
void check_eq(const A& a, const B& b, const char* expr_a, const char* expr_b, const char* file, int line) {
  if (!(a == b)) {
    report_failure(file, line,
                   std::string("CHECK_EQ(") + expr_a + ", " + expr_b + "): " + show(a) + " vs " + show(b));
  }
}

}  // namespace tpu_test

#define TPU_TEST_CAT2(a, b) a##b
#define TPU_TEST_CAT(a, b) TPU_TEST_CAT2(a, b)

#define TEST(name)                                                                                  \
  static void TPU_TEST_CAT(tpu_test_fn_, name)();                                                   \
  static ::tpu_test::TestRegistrar TPU_TEST_CAT(tpu_test_reg_, name)(#name,                         \
                                                                     &TPU_TEST_CAT(tpu_test_fn_, name)); \
  static void TPU_TEST_CAT(tpu_test_fn_, name)()

// TEST_MODE(bench, "--bench", "runs the benchmarks") { ... return exit_code; }
// The body sees `argc` and `argv`: the arguments after the flag.
#define TEST_MODE(id, flag, help)                                                                     \
  static int TPU_TEST_CAT(tpu_mode_fn_, id)(int argc, char** argv);                                  \
  static ::tpu_test::ModeRegistrar TPU_TEST_CAT(tpu_mode_reg_, id)(flag, help,                        \
                                                                   &TPU_TEST_CAT(tpu_mode_fn_, id)); \
  static int TPU_TEST_CAT(tpu_mode_fn_, id)([[maybe_unused]] int argc, [[maybe_unused]] char** argv)

#define CHECK(cond)                                                                     \
  do {                                                                                  \
    if (!(cond)) ::tpu_test::report_failure(__FILE__, __LINE__, "CHECK(" #cond ")");    \
  } while (0)

// Evaluates each side once; prints both values on failure.
#define CHECK_EQ(a, b) ::tpu_test::check_eq((a), (b), #a, #b, __FILE__, __LINE__)

// Like CHECK, with a message streamed (`<<`) only on failure (for loops).
#define CHECK_MSG(cond, msg)                                                                   \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      std::ostringstream tpu_os_;                                                              \
      tpu_os_ << msg;                                                                          \
      ::tpu_test::report_failure(__FILE__, __LINE__, "CHECK(" #cond ") " + tpu_os_.str());     \
    }                                                                                          \
  } while (0)

#define CHECK_THROWS(expr)                                                                        \
  do {                                                                                            \
    bool tpu_threw_ = false;                                                                      \
    try {                                                                                         \
      (void)(expr);                                                                               \
    } catch (...) {                                                                               \
      tpu_threw_ = true;                                                                          \
    }                                                                                             \
    if (!tpu_threw_) ::tpu_test::report_failure(__FILE__, __LINE__, "expected a throw: " #expr);  \
  } while (0)

#define CHECK_CONTAINS(haystack, needle)                                                         \
  do {                                                                                           \
    const std::string tpu_h_ = (haystack);                                                       \
    const std::string tpu_n_ = (needle);                                                         \
    if (tpu_h_.find(tpu_n_) == std::string::npos)                                                \
      ::tpu_test::report_failure(__FILE__, __LINE__,                                             \
                                 "CHECK_CONTAINS(" #haystack ", " #needle "): '" + tpu_h_ +      \
                                     "' does not contain '" + tpu_n_ + "'");                     \
  } while (0)
