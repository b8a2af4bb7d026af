// Test runner: `tpu_runtime_tests [filter]` runs every test whose name
// contains `filter`; `--list` lists them; `--bench` runs the benchmarks;
// `--child NAME` runs a child entry point (used by crash tests).
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "test_harness.h"

namespace tpu_test {

namespace {

struct Test {
  const char* name;
  TestFn fn;
};

std::vector<Test>& tests() {
  static std::vector<Test> t;
  return t;
}

std::map<std::string, int (*)()>& children() {
  static std::map<std::string, int (*)()> c;
  return c;
}

std::atomic<int> g_failures{0};
std::mutex g_print_mu;

}  // namespace

void register_test(const char* name, TestFn fn) { tests().push_back({name, fn}); }
void register_child(const char* name, int (*fn)()) { children()[name] = fn; }

void report_failure(const char* file, int line, const std::string& what) {
  g_failures.fetch_add(1);
  std::lock_guard<std::mutex> lock(g_print_mu);
  std::fprintf(stderr, "  FAILED %s:%d: %s\n", file, line, what.c_str());
}

int failure_count() { return g_failures.load(); }

void check_status(torch_tpu::runtime::Status got, torch_tpu::runtime::Status want, const char* expr,
                  const char* file, int line) {
  if (got != want) {
    report_failure(file, line,
                   std::string(expr) + " returned " + torch_tpu::runtime::status_name(got) + ", expected " +
                       torch_tpu::runtime::status_name(want) + " (last error: " +
                       torch_tpu::runtime::last_error_message() + ")");
  }
}

ChildResult run_child(const char* name, std::vector<std::string> env) {
  ChildResult r;
  int fds[2];
  if (pipe(fds) != 0) {
    report_failure(__FILE__, __LINE__, "pipe failed");
    return r;
  }
  // Everything exec needs is built before fork: the child of a threaded
  // process may only make async-signal-safe calls until it execs.
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());  // first wins in getenv
  for (char** e = environ; *e; ++e) envp.push_back(*e);
  envp.push_back(nullptr);
  char* argv[] = {const_cast<char*>("tpu_runtime_tests"), const_cast<char*>("--child"), const_cast<char*>(name),
                  nullptr};
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    close(fds[1]);
    execve("/proc/self/exe", argv, envp.data());
    _exit(127);
  }
  close(fds[1]);
  char buf[4096];
  for (;;) {
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0) {
      r.stderr_text.append(buf, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.exited = WIFEXITED(status);
  r.exit_code = r.exited ? WEXITSTATUS(status) : -1;
  r.signaled = WIFSIGNALED(status);
  r.signal = r.signaled ? WTERMSIG(status) : 0;
  return r;
}

int run_benchmarks();

}  // namespace tpu_test

int main(int argc, char** argv) {
  using namespace tpu_test;
  std::string filter;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--child" && i + 1 < argc) {
      auto it = children().find(argv[i + 1]);
      if (it == children().end()) {
        std::fprintf(stderr, "unknown child entry point '%s'\n", argv[i + 1]);
        return 127;
      }
      return it->second();
    }
    if (arg == "--list") {
      for (const Test& t : tests()) std::printf("%s\n", t.name);
      return 0;
    }
    if (arg == "--bench") return run_benchmarks();
    filter = arg;
  }
  int run = 0, failed_tests = 0;
  const auto all_start = std::chrono::steady_clock::now();
  for (const Test& t : tests()) {
    if (!filter.empty() && std::string(t.name).find(filter) == std::string::npos) continue;
    ++run;
    std::fprintf(stderr, "[ RUN  ] %s\n", t.name);
    const int before = failure_count();
    const auto start = std::chrono::steady_clock::now();
    t.fn();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const bool ok = failure_count() == before;
    if (!ok) ++failed_tests;
    std::fprintf(stderr, "[ %s ] %s (%.1f ms)\n", ok ? " OK " : "FAIL", t.name, ms);
  }
  const double total =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - all_start).count();
  if (run == 0) {
    std::fprintf(stderr, "no test matches '%s'\n", filter.c_str());
    return 1;
  }
  std::fprintf(stderr, "%d test(s), %d failed, %d failed check(s), %.0f ms\n", run, failed_tests,
               failure_count(), total);
  return failure_count() == 0 ? 0 : 1;
}
