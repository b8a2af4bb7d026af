// run_child and the `--child NAME` mode of tpu_runtime_tests (child_process.h).
#include "child_process.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <map>

namespace tpu_test {

namespace {

std::map<std::string, ChildFn>& children() {
  static std::map<std::string, ChildFn> c;
  return c;
}

}  // namespace

void register_child(const char* name, ChildFn fn) { children()[name] = fn; }

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

}  // namespace tpu_test

TEST_MODE(child, "--child", "NAME  run a child entry point (used by run_child)") {
  if (argc < 1) {
    std::fprintf(stderr, "--child needs the name of an entry point\n");
    return 127;
  }
  auto it = tpu_test::children().find(argv[0]);
  if (it == tpu_test::children().end()) {
    std::fprintf(stderr, "unknown child entry point '%s'\n", argv[0]);
    return 127;
  }
  return it->second();
}
