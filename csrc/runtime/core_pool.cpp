// parallel_for on a device's cores: per device, (cores - 1) helper threads
// plus the stream worker that calls it. A call posts a job whose chunks the
// caller and idle helpers claim, each its own block first (see Job);
// helpers take chunks of jobs from higher-priority streams first.
#include <pthread.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime_internal.h"

namespace torch_tpu::runtime {

namespace detail {

namespace {

constexpr int64_t kHelperSpinNs = 30'000;
constexpr int64_t kJoinSpinNs = 20'000;
// More chunks than cores balances load when helpers are busy elsewhere.
constexpr int64_t kChunksPerCore = 16;

// Chunks are claimed "home first": participant k (the calling worker is 0,
// helper thread k is k) owns the k-th contiguous block of chunks and takes
// its own chunks front to back before it steals others' from their back
// end. Repeated calls on the same data thus give each core the same part
// every time, so that part stays in the core's caches (as with OpenMP's
// static schedule); a shared counter handed chunks out in arrival order
// and made row reductions and softmax on cache-resident inputs run at half
// CPU's speed. Stealing keeps a late or busy helper from stalling the job.
struct Job {
  const std::function<void(int64_t, int64_t)>* fn = nullptr;
  int64_t begin = 0, end = 0, chunk = 1, nchunks = 0;
  int parts = 1;                        // participants the chunks are split over
  std::unique_ptr<std::atomic<bool>[]> taken;  // per chunk: claimed
  std::atomic<int64_t> claimed{0};      // chunks claimed so far
  std::atomic<bool> failed{false};  // skip the rest after a failure
  std::mutex error_mu;
  std::exception_ptr error;
  int priority = 0;
  uint64_t order = 0;
  const char* task_name = nullptr;
  std::atomic<int> helpers{0};  // helpers inside; changed under the pool mutex
  bool queued = true;           // guarded by the pool mutex

  bool exhausted() const { return claimed.load(std::memory_order_relaxed) >= nchunks; }
  int64_t home_begin(int k) const { return nchunks * k / parts; }
};

void run_chunk(Job& j, int64_t i) {
  if (j.failed.load(std::memory_order_relaxed)) return;
  const int64_t b = j.begin + i * j.chunk;
  const int64_t e = std::min(j.end, b + j.chunk);
  try {
    (*j.fn)(b, e);
  } catch (...) {
    std::lock_guard<std::mutex> lock(j.error_mu);
    if (!j.error) j.error = std::current_exception();
    j.failed.store(true, std::memory_order_relaxed);
  }
}

bool claim(Job& j, int64_t i) {
  if (j.taken[i].load(std::memory_order_relaxed) || j.taken[i].exchange(true, std::memory_order_acq_rel)) {
    return false;
  }
  j.claimed.fetch_add(1, std::memory_order_relaxed);
  return true;
}

// Runs participant k's own chunks, then steals the rest (other blocks from
// their ends), until every chunk is claimed.
void run_chunks(Job& j, int k) {
  k %= j.parts;
  for (int64_t i = j.home_begin(k); i < j.home_begin(k + 1); ++i) {
    if (claim(j, i)) run_chunk(j, i);
  }
  for (int d = 1; d < j.parts && !j.exhausted(); ++d) {
    const int o = (k + d) % j.parts;
    for (int64_t i = j.home_begin(o + 1) - 1; i >= j.home_begin(o); --i) {
      if (claim(j, i)) run_chunk(j, i);
    }
  }
}

}  // namespace

struct CorePool {
  int device = 0;
  int cores = 1;
  std::mutex mu;
  std::condition_variable work_cv;
  std::condition_variable done_cv;
  std::vector<Job*> jobs;  // jobs that may still have chunks to claim
  std::atomic<int> job_count{0};
  int sleeping = 0;
  bool started = false;
  uint64_t next_order = 0;

  void unqueue(Job* j) {  // caller holds mu
    if (!j->queued) return;
    j->queued = false;
    jobs.erase(std::find(jobs.begin(), jobs.end(), j));
    job_count.fetch_sub(1, std::memory_order_relaxed);
  }

  // Highest priority (lowest value), then oldest. Caller holds mu.
  Job* pick() {
    Job* best = nullptr;
    for (size_t i = 0; i < jobs.size();) {
      Job* j = jobs[i];
      if (j->exhausted()) {
        unqueue(j);
        continue;
      }
      if (!best || j->priority < best->priority || (j->priority == best->priority && j->order < best->order)) {
        best = j;
      }
      ++i;
    }
    return best;
  }
};

namespace {

void helper_main(CorePool* p, int index) {
  ExecContext& ctx = t_exec;
  ctx.device = p->device;
  ctx.slot = register_runtime_thread(p->device);
  set_device(p->device);
  char name[16];
  std::snprintf(name, sizeof name, "tpu%d-core%d", p->device, index);
  pthread_setname_np(pthread_self(), name);

  std::unique_lock<std::mutex> lock(p->mu);
  for (;;) {
    Job* j = p->pick();
    if (!j) {
      lock.unlock();
      spin_until([&] { return p->job_count.load(std::memory_order_acquire) > 0; }, kHelperSpinNs);
      lock.lock();
      j = p->pick();
      if (!j) {
        ++p->sleeping;
        p->work_cv.wait(lock);
        --p->sleeping;
        continue;
      }
    }
    j->helpers.fetch_add(1, std::memory_order_relaxed);
    lock.unlock();
    ctx.in_chunk = true;
    ctx.priority = j->priority;
    set_thread_task(ctx.slot, j->task_name);
    run_chunks(*j, index);
    set_thread_task(ctx.slot, nullptr);
    ctx.in_chunk = false;
    lock.lock();
    // After this decrement the caller may return and destroy the job.
    if (j->helpers.fetch_sub(1, std::memory_order_acq_rel) == 1) p->done_cv.notify_all();
  }
}

void start_helpers(CorePool& p) {  // caller holds p.mu
  p.started = true;
  note_thread_started();
  for (int i = 1; i < p.cores; ++i) std::thread(helper_main, &p, i).detach();  // leaky
}

}  // namespace

CorePool* new_core_pool(int device, int cores) {
  auto* p = new CorePool;
  p->device = device;
  p->cores = std::max(cores, 1);
  return p;
}

}  // namespace detail

using namespace detail;

void parallel_for(int64_t begin, int64_t end, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
  if (end <= begin) return;
  if (grain < 1) grain = 1;
  ExecContext& ctx = t_exec;
  const int64_t range = end - begin;
  // Inline: on the host, nested inside a chunk, single core, small range.
  Device* dev = (ctx.stream && !ctx.in_chunk) ? get_device(ctx.device) : nullptr;
  if (!dev || dev->cores <= 1 || range <= grain) {
    fn(begin, end);
    return;
  }
  CorePool& p = *dev->pool;
  int64_t nchunks = std::min<int64_t>(range / grain, int64_t{dev->cores} * kChunksPerCore);
  const int64_t chunk = (range + nchunks - 1) / nchunks;  // >= grain
  nchunks = (range + chunk - 1) / chunk;

  Job job;
  job.fn = &fn;
  job.begin = begin;
  job.end = end;
  job.chunk = chunk;
  job.nchunks = nchunks;
  job.parts = dev->cores;
  job.taken.reset(new std::atomic<bool>[static_cast<size_t>(nchunks)]());
  job.priority = ctx.priority;
  job.task_name = ctx.task_name;
  bool wake;
  {
    std::lock_guard<std::mutex> lock(p.mu);
    if (!p.started) start_helpers(p);
    job.order = p.next_order++;
    p.jobs.push_back(&job);
    p.job_count.fetch_add(1, std::memory_order_release);
    wake = p.sleeping > 0;
  }
  if (wake) p.work_cv.notify_all();

  ctx.in_chunk = true;
  run_chunks(job, 0);
  ctx.in_chunk = false;

  {
    std::unique_lock<std::mutex> lock(p.mu);
    p.unqueue(&job);  // no helper can join from here on
  }
  if (!spin_until([&] { return job.helpers.load(std::memory_order_acquire) == 0; }, kJoinSpinNs)) {
    std::unique_lock<std::mutex> lock(p.mu);
    p.done_cv.wait(lock, [&] { return job.helpers.load(std::memory_order_acquire) == 0; });
  }
  if (job.error) std::rethrow_exception(job.error);
}

int current_core_count() {
  const int d = t_exec.device;
  Device* dev = d >= 0 ? get_device(d) : nullptr;
  return dev ? dev->cores : 1;
}

}  // namespace torch_tpu::runtime
