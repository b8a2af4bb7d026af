// Strict mode: device pages are PROT_NONE unless a running task names them.
// Access is reference counted per allocation (two kernels on two streams may
// share one) and changed under a single mutex, so an allocation is never
// protected while any task still uses it.
#include <sys/mman.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "memory_internal.h"
#include "runtime_internal.h"

namespace torch_tpu::runtime {

namespace detail {

namespace {

std::atomic<bool> g_strict{false};
// Launches record every named buffer (see set_strict_mode); on a little
// before strict mode is, off a little after.
std::atomic<bool> g_record_all{false};

void set_protection(Allocation* a, bool accessible) {
  if (mprotect(a->base, a->reserved, accessible ? PROT_READ | PROT_WRITE : PROT_NONE) != 0) {
    // Only possible when the kernel runs out of memory maps; say so, since
    // the next access will fault without another explanation.
    std::fprintf(stderr, "torch_tpu: mprotect(%p, %zu) failed: %s\n", static_cast<void*>(a->base),
                 a->reserved, std::strerror(errno));
  }
}

}  // namespace

std::mutex& protection_mutex() {
  static auto* mu = new std::mutex;  // leaky: used by detached workers
  return *mu;
}

bool strict_enabled() { return g_strict.load(std::memory_order_relaxed); }

bool record_all_buffers() { return g_record_all.load(std::memory_order_relaxed); }

void init_strict_mode(bool on) {
  g_strict.store(on, std::memory_order_relaxed);
  g_record_all.store(on, std::memory_order_relaxed);
}

bool protect_new_allocation(Allocation* a) {
  // Free ranges are PROT_NONE already; only non-strict mode opens them.
  if (g_strict.load(std::memory_order_relaxed)) return true;
  return mprotect(a->base, a->reserved, PROT_READ | PROT_WRITE) == 0;
}

void begin_access(const AllocList& allocs) {
  if (allocs.empty()) return;
  std::lock_guard<std::mutex> lock(protection_mutex());
  const bool strict = g_strict.load(std::memory_order_relaxed);
  for (Allocation* a : allocs) {
    if (a->users++ == 0 && strict) set_protection(a, true);
  }
}

void end_access(const AllocList& allocs) {
  if (allocs.empty()) return;
  {
    std::lock_guard<std::mutex> lock(protection_mutex());
    const bool strict = g_strict.load(std::memory_order_relaxed);
    for (Allocation* a : allocs) {
      if (--a->users == 0 && strict) set_protection(a, false);
    }
  }
  // Last: once pending drops to zero, free() may unmap the range.
  drop_pending(allocs);
}

}  // namespace detail

using namespace detail;

void set_strict_mode(bool on) {
  const int n = num_devices();
  if (bad_fork()) {
    g_strict.store(on);  // no workers to drain, nothing safe to re-protect
    return;
  }
  static auto* switch_mu = new std::mutex;  // one switch at a time
  std::lock_guard<std::mutex> switching(*switch_mu);
  if (g_strict.load() == on) return;
  if (on) {
    // Outside strict mode a launch keeps no record of its own device's
    // buffers (launch.cpp), so no page may close while such a task can
    // still run: first make every launch record them, then wait until each
    // launch that read the old setting has published its task (it reads the
    // setting under its stream's lock), then for those tasks to finish.
    g_record_all.store(true);
    wait_for_launches_in_progress();
  }
  // In-flight tasks were started under the old mode; let them finish first.
  wait_all_devices_idle();
  std::lock_guard<std::mutex> prot(protection_mutex());
  g_strict.store(on);
  for (int d = 0; d < n; ++d) {
    Arena& arena = *get_device(d)->arena;
    std::lock_guard<std::mutex> lock(arena.mu);
    for (auto& [base, a] : arena.allocs) {
      if (a->users == 0) set_protection(a, !on);
    }
  }
  if (!on) g_record_all.store(false);  // every page is open now
}

bool strict_mode() {
  num_devices();  // the env default is applied at runtime start
  return g_strict.load(std::memory_order_relaxed);
}

}  // namespace torch_tpu::runtime
