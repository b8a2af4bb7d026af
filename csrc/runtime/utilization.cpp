// Device utilization, as NVML reports a GPU's: the share of recent time in
// which one or more kernels ran. Stream workers mark each task's start and
// end (busy_begin / busy_end); busy intervals are summed per 1/6-second
// period in a small ring, so a query reads at most the last eight periods.
#include <algorithm>
#include <chrono>
#include <mutex>
#include <string>

#include "runtime_internal.h"
#include "utilization.h"

namespace torch_tpu::runtime {
namespace detail {
namespace {

constexpr int64_t kPeriodNs = 1'000'000'000 / 6;
constexpr int64_t kWindowPeriods = 6;  // one second of complete periods

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

// Adds [begin, end) to the periods it spans. Under clock.mu.
void add_busy(BusyClock& clock, int64_t begin, int64_t end) {
  for (int64_t p = begin / kPeriodNs; p * kPeriodNs < end; ++p) {
    const int64_t lo = std::max(begin, p * kPeriodNs);
    const int64_t hi = std::min(end, (p + 1) * kPeriodNs);
    const int slot = static_cast<int>(p % BusyClock::kSlots);
    if (clock.period[slot] != p) {  // a period that left the window: reuse its slot
      clock.period[slot] = p;
      clock.busy_ns[slot] = 0;
    }
    clock.busy_ns[slot] += hi - lo;
  }
}

int utilization_at(const BusyClock& clock, int64_t now) {
  const int64_t current = now / kPeriodNs;
  // The window: the last kWindowPeriods complete periods and the current one so far.
  const int64_t start = (current - kWindowPeriods) * kPeriodNs;
  int64_t busy = 0;
  for (int slot = 0; slot < BusyClock::kSlots; ++slot) {
    const int64_t p = clock.period[slot];
    if (p >= current - kWindowPeriods && p <= current) busy += clock.busy_ns[slot];
  }
  if (clock.running > 0) busy += now - std::max(clock.since_ns, start);  // the open interval
  const int64_t window = now - start;
  return static_cast<int>(std::min<int64_t>(100, (busy * 100 + window / 2) / window));
}

void busy_begin(BusyClock& clock) {
  std::lock_guard<std::mutex> lock(clock.mu);
  if (clock.running++ == 0) clock.since_ns = now_ns();
}

void busy_end(BusyClock& clock) {
  std::lock_guard<std::mutex> lock(clock.mu);
  if (--clock.running == 0) add_busy(clock, clock.since_ns, now_ns());
}

}  // namespace detail

Status utilization(int device, int* percent) {
  detail::Device* d = detail::get_device(device);
  if (d == nullptr) {
    return detail::fail(Status::kInvalidDevice, "utilization: invalid device index " + std::to_string(device));
  }
  std::lock_guard<std::mutex> lock(d->busy.mu);
  *percent = detail::utilization_at(d->busy, detail::now_ns());
  return Status::kSuccess;
}

}  // namespace torch_tpu::runtime
