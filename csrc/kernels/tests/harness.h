// A tiny self-contained test harness: TEST(name) registers a test, CHECK*
// report file:line and keep going, main() (harness_main.cpp) runs them all
// and exits nonzero on any failure.
#pragma once

#include <cstdint>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace tpu_test {

struct TestCase {
  const char* name;
  std::function<void()> fn;
};

std::vector<TestCase>& registry();
void report_failure(const char* file, int line, const std::string& what);
int failures_in_current_test();

struct Registrar {
  Registrar(const char* name, std::function<void()> fn) { registry().push_back({name, std::move(fn)}); }
};

template <typename T>
std::string show(const T& v) {
  std::ostringstream os;
  if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>) {
    os << static_cast<int>(v);
  } else {
    os << v;
  }
  return os.str();
}

}  // namespace tpu_test

#define TPU_TEST_CAT2(a, b) a##b
#define TPU_TEST_CAT(a, b) TPU_TEST_CAT2(a, b)
#define TEST(name)                                                                  \
  static void TPU_TEST_CAT(test_fn_, name)();                                       \
  static ::tpu_test::Registrar TPU_TEST_CAT(test_reg_, name)(#name, &TPU_TEST_CAT(test_fn_, name)); \
  static void TPU_TEST_CAT(test_fn_, name)()

#define CHECK(cond)                                                          \
  do {                                                                       \
    if (!(cond)) ::tpu_test::report_failure(__FILE__, __LINE__, "CHECK(" #cond ")"); \
  } while (0)

// Evaluates each side once; prints both values on failure.
#define CHECK_EQ(a, b)                                                                     \
  do {                                                                                     \
    const auto& tpu_a_ = (a);                                                              \
    const auto& tpu_b_ = (b);                                                              \
    if (!(tpu_a_ == tpu_b_))                                                               \
      ::tpu_test::report_failure(__FILE__, __LINE__,                                       \
                                 "CHECK_EQ(" #a ", " #b "): " + ::tpu_test::show(tpu_a_) + \
                                     " vs " + ::tpu_test::show(tpu_b_));                   \
  } while (0)

// Like CHECK but with a message built only on failure (for loops).
#define CHECK_MSG(cond, msg)                                                                    \
  do {                                                                                          \
    if (!(cond)) {                                                                              \
      std::ostringstream tpu_os_;                                                               \
      tpu_os_ << msg;                                                                           \
      ::tpu_test::report_failure(__FILE__, __LINE__, "CHECK(" #cond ") " + tpu_os_.str());      \
    }                                                                                           \
  } while (0)

#define CHECK_THROWS(expr)                                                          \
  do {                                                                              \
    bool tpu_threw_ = false;                                                        \
    try {                                                                           \
      (void)(expr);                                                                 \
    } catch (...) {                                                                 \
      tpu_threw_ = true;                                                            \
    }                                                                               \
    if (!tpu_threw_) ::tpu_test::report_failure(__FILE__, __LINE__, "expected throw: " #expr); \
  } while (0)
