// Runs every registered test (optionally only those whose name contains
// argv[1]), prints one line per failing check and a closing summary line.
#include <cstdio>
#include <cstring>
#include <exception>

#include "harness.h"

namespace tpu_test {

namespace {
int g_current_failures = 0;
constexpr int kMaxReportsPerTest = 20;  // a broken loop should not flood the log
}

std::vector<TestCase>& registry() {
  static std::vector<TestCase> r;
  return r;
}

void report_failure(const char* file, int line, const std::string& what) {
  if (g_current_failures++ < kMaxReportsPerTest) std::printf("  %s:%d: %s\n", file, line, what.c_str());
}

int failures_in_current_test() { return g_current_failures; }

}  // namespace tpu_test

int main(int argc, char** argv) {
  using namespace tpu_test;
  const char* filter = argc > 1 ? argv[1] : nullptr;
  int passed = 0, failed = 0;
  for (const TestCase& t : registry()) {
    if (filter && !std::strstr(t.name, filter)) continue;
    g_current_failures = 0;
    std::printf("[ RUN  ] %s\n", t.name);
    std::fflush(stdout);
    try {
      t.fn();
    } catch (const std::exception& e) {
      report_failure(__FILE__, __LINE__, std::string("uncaught exception: ") + e.what());
    } catch (...) {
      report_failure(__FILE__, __LINE__, "uncaught non-std exception");
    }
    if (g_current_failures == 0) {
      ++passed;
      std::printf("[  OK  ] %s\n", t.name);
    } else {
      ++failed;
      std::printf("[ FAIL ] %s (%d failed checks)\n", t.name, g_current_failures);
    }
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
