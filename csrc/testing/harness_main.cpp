// main() of the torch-free C++ test binaries (harness.h):
//   binary [FILTER]   runs every test whose name contains FILTER
//   binary --list     prints the test names
//   binary --help     prints this usage and the binary's extra modes
//   binary FLAG ...   runs an extra mode registered with TEST_MODE
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

#include "testing/harness.h"

namespace tpu_test {

namespace {

struct Test {
  const char* name;
  TestFn fn;
};

struct Mode {
  const char* flag;
  const char* help;
  ModeFn fn;
};

// Function-local statics: registrars in other files run during static
// initialization, in no particular order relative to this file.
std::vector<Test>& tests() {
  static std::vector<Test> t;
  return t;
}

std::vector<Mode>& modes() {
  static std::vector<Mode> m;
  return m;
}

// A broken loop should not flood the log: after this many lines per test
// the remaining failures are only counted.
constexpr int kMaxReportsPerTest = 20;

std::atomic<int> g_failures{0};
std::atomic<int> g_failures_before_test{0};
std::mutex g_print_mu;

void print_line(const std::string& line) {
  std::lock_guard<std::mutex> lock(g_print_mu);
  std::fputs(line.c_str(), stdout);
  std::fflush(stdout);  // a crashing test must not swallow the lines before it
}

std::string milliseconds(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f ms", ms);
  return buf;
}

int run_tests(const char* filter) {
  int passed = 0, failed = 0, skipped = 0;
  const auto all_start = std::chrono::steady_clock::now();
  for (const Test& t : tests()) {
    if (filter && !std::strstr(t.name, filter)) continue;
    print_line(std::string("[ RUN  ] ") + t.name + "\n");
    const int before = g_failures.load();
    g_failures_before_test.store(before);
    const auto start = std::chrono::steady_clock::now();
    try {
      t.fn();
    } catch (const SkipTest& skip) {
      skipped++;
      print_line(std::string("[ SKIP ] ") + t.name + ": " + skip.reason + "\n");
      continue;
    } catch (const std::exception& e) {
      report_failure(__FILE__, __LINE__, std::string("uncaught exception: ") + e.what());
    } catch (...) {
      report_failure(__FILE__, __LINE__, "uncaught exception not derived from std::exception");
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const bool ok = g_failures.load() == before;
    (ok ? passed : failed)++;
    print_line(std::string(ok ? "[  OK  ] " : "[ FAIL ] ") + t.name + " (" + milliseconds(ms) + ")\n");
  }
  if (passed + failed + skipped == 0) {
    std::printf("no test matches '%s'\n", filter ? filter : "");
    return 1;
  }
  const double total =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - all_start).count();
  std::printf("%d passed, %d failed, %d skipped (%d failed checks, %.0f ms)\n", passed, failed, skipped,
              g_failures.load(), total);
  return failed == 0 ? 0 : 1;
}

void print_usage(std::FILE* out, const char* binary) {
  std::fprintf(out, "usage: %s [FILTER]   run the tests whose name contains FILTER\n", binary);
  std::fprintf(out, "       %s --list     list the tests\n", binary);
  for (const Mode& m : modes()) std::fprintf(out, "       %s %s   %s\n", binary, m.flag, m.help);
}

}  // namespace

void register_test(const char* name, TestFn fn) { tests().push_back({name, fn}); }

void register_mode(const char* flag, const char* help, ModeFn fn) { modes().push_back({flag, help, fn}); }

void report_failure(const char* file, int line, const std::string& what) {
  const int index_in_test = g_failures.fetch_add(1) - g_failures_before_test.load();
  if (index_in_test >= kMaxReportsPerTest) return;
  std::lock_guard<std::mutex> lock(g_print_mu);
  std::printf("  FAILED %s:%d: %s\n", file, line, what.c_str());
  if (index_in_test == kMaxReportsPerTest - 1) std::printf("  (further failures of this test are not shown)\n");
  std::fflush(stdout);
}

int failure_count() { return g_failures.load(); }

}  // namespace tpu_test

int main(int argc, char** argv) {
  using namespace tpu_test;
  if (argc > 1) {
    const std::string arg = argv[1];
    if (arg == "--list") {
      for (const Test& t : tests()) std::printf("%s\n", t.name);
      return 0;
    }
    if (arg == "--help" || arg == "-h") {
      print_usage(stdout, argv[0]);
      return 0;
    }
    for (const Mode& m : modes()) {
      if (arg == m.flag) return m.fn(argc - 2, argv + 2);
    }
    if (arg.starts_with("-") || argc > 2) {
      std::fprintf(stderr, "unknown argument '%s'\n", arg.starts_with("-") ? argv[1] : argv[2]);
      print_usage(stderr, argv[0]);
      return 2;
    }
  }
  return run_tests(argc > 1 ? argv[1] : nullptr);
}
