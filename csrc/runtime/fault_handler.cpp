// SIGSEGV/SIGBUS handler that explains faults inside device address spaces
// (strict mode, use after free, kernels touching unnamed buffers), then
// hands the fault on: to the previous real handler (e.g. Python's
// faulthandler) or to the default action, so the process still dies.
// Everything here must be async-signal-safe: plain loads of atomics, write(2).
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "memory_internal.h"
#include "runtime_internal.h"

namespace torch_tpu::runtime::detail {

namespace {

struct sigaction g_prev_segv;
struct sigaction g_prev_bus;

// Runtime threads (stream workers, core helpers) and what they run.
struct ThreadSlot {
  std::atomic<pid_t> tid{0};
  std::atomic<int> device{-1};
  std::atomic<const char*> task{nullptr};
};
constexpr int kMaxSlots = 4096;
ThreadSlot g_slots[kMaxSlots];
std::atomic<int> g_slot_count{0};

pid_t current_tid() { return static_cast<pid_t>(syscall(SYS_gettid)); }

// Fixed-size message builder (no allocation in a signal handler).
struct Message {
  char data[1024];
  size_t len = 0;
  void put(const char* s) {
    while (*s && len < sizeof data) data[len++] = *s++;
  }
  void put_dec(uint64_t v) {
    char tmp[24];
    int n = 0;
    do {
      tmp[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v);
    while (n && len < sizeof data) data[len++] = tmp[--n];
  }
  void put_hex(uintptr_t v) {
    put("0x");
    char tmp[20];
    int n = 0;
    do {
      tmp[n++] = "0123456789abcdef"[v & 15];
      v >>= 4;
    } while (v);
    while (n && len < sizeof data) data[len++] = tmp[--n];
  }
  void write_stderr() const {
    size_t off = 0;
    while (off < len) {
      ssize_t w = ::write(STDERR_FILENO, data + off, len - off);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) break;
      off += static_cast<size_t>(w);
    }
  }
};

// "tpu:D address space; inside the allocation at B of N bytes". The
// allocation lookup uses try_lock only, so it can never deadlock; if the map
// is busy the allocation is simply not named.
void describe_location(Message& m, int device, uintptr_t addr) {
  m.put("(tpu:");
  m.put_dec(static_cast<uint64_t>(device));
  m.put(" address space");
  Device* dev = get_device(device);
  if (dev && dev->arena->mu.try_lock()) {
    Arena& a = *dev->arena;
    auto it = a.allocs.upper_bound(addr);
    bool found = false;
    if (it != a.allocs.begin()) {
      --it;
      if (addr - it->first < it->second->reserved) {
        found = true;
        m.put("; inside the allocation at ");
        m.put_hex(it->first);
        m.put(" of ");
        m.put_dec(it->second->size);
        m.put(" bytes");
      }
    }
    a.mu.unlock();
    if (!found) m.put("; not inside a live allocation: freed or never allocated");
  }
  m.put(")");
}

void report(int device, const void* fault_addr) {
  const auto addr = reinterpret_cast<uintptr_t>(fault_addr);
  Message m;
  const char* task = nullptr;
  int task_device = -1;
  const pid_t tid = current_tid();
  const int slots = g_slot_count.load(std::memory_order_acquire);
  for (int i = 0; i < slots && i < kMaxSlots; ++i) {
    if (g_slots[i].tid.load(std::memory_order_relaxed) == tid) {
      task = g_slots[i].task.load(std::memory_order_relaxed);
      task_device = g_slots[i].device.load(std::memory_order_relaxed);
      break;
    }
  }
  if (task) {
    m.put("torch_tpu strict mode: kernel '");
    m.put(task);
    m.put("' running on tpu:");
    m.put_dec(static_cast<uint64_t>(task_device));
    m.put(" accessed device memory at ");
    m.put_hex(addr);
    m.put(" ");
    describe_location(m, device, addr);
    m.put(" that is not among the buffers named in its launch. Name every buffer a kernel reads or "
          "writes in launch().\n");
  } else if (strict_enabled()) {
    m.put("torch_tpu strict mode: the host accessed device memory at ");
    m.put_hex(addr);
    m.put(" ");
    describe_location(m, device, addr);
    m.put(". Device memory is not host memory: copy it to the host first (tensor.cpu()).\n");
  } else {
    m.put("torch_tpu: invalid access to device memory at ");
    m.put_hex(addr);
    m.put(" ");
    describe_location(m, device, addr);
    m.put(".\n");
  }
  m.write_stderr();
}

void on_fault(int sig, siginfo_t* info, void* uctx) {
  const int saved_errno = errno;
  // si_code > 0: raised by the kernel for a real access (not kill/raise).
  const bool real_fault = info && info->si_code > 0;
  if (real_fault) {
    const int device = arena_of(info->si_addr);
    if (device >= 0) report(device, info->si_addr);
  }
  errno = saved_errno;
  const struct sigaction& prev = sig == SIGBUS ? g_prev_bus : g_prev_segv;
  if (prev.sa_flags & SA_SIGINFO) {
    if (prev.sa_sigaction) {
      prev.sa_sigaction(sig, info, uctx);
      return;
    }
  } else if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN) {
    prev.sa_handler(sig);
    return;
  }
  // Default action: restore it and return; the faulting access re-executes
  // and kills the process with the same signal. A sent signal is re-raised
  // (it stays blocked until this handler returns).
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  if (!real_fault) raise(sig);
}

}  // namespace

void install_fault_handler() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &g_prev_segv);
  sigaction(SIGBUS, &sa, &g_prev_bus);
}

int register_runtime_thread(int device) {
  const int slot = g_slot_count.fetch_add(1, std::memory_order_acq_rel);
  if (slot >= kMaxSlots) return -1;  // only loses the kernel name in fault messages
  g_slots[slot].device.store(device, std::memory_order_relaxed);
  g_slots[slot].tid.store(current_tid(), std::memory_order_release);
  return slot;
}

void set_thread_task(int slot, const char* task_name) {
  if (slot >= 0) g_slots[slot].task.store(task_name, std::memory_order_relaxed);
}

}  // namespace torch_tpu::runtime::detail
