// The stream's task ring (stream.cpp): slots filled in place across block
// boundaries by several producers, a worker that enqueues onto its own
// stream, and finished tasks destroyed on host threads (swept) by the next
// enqueue or synchronize.
#include <pthread.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"

using namespace tpu_test;
using torch_tpu::runtime::Status;

namespace {

// Records the thread that destroys it.
struct DestroyProbe {
  std::atomic<int>* destroyed;
  std::atomic<bool>* on_worker;
  DestroyProbe(std::atomic<int>* d, std::atomic<bool>* w) : destroyed(d), on_worker(w) {}
  ~DestroyProbe() {
    char name[16] = {};
    pthread_getname_np(pthread_self(), name, sizeof name);
    if (std::string(name).find("-stream") != std::string::npos) on_worker->store(true);
    destroyed->fetch_add(1);
  }
};

}  // namespace

TEST(ring_keeps_each_producers_order_across_blocks) {
  rt::Stream s = nullptr;
  CHECK_OK(rt::stream_create(0, 0, &s));
  constexpr int kThreads = 3, kPerThread = 3000;  // ~140 blocks of 64 slots
  std::vector<std::vector<int>> seen(kThreads);   // written by the worker only
  std::vector<std::thread> producers;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    producers.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        if (rt::launch(s, "tag", {}, [&seen, t, i] { seen[t].push_back(i); }) != Status::kSuccess) {
          failures.fetch_add(1);
        }
      }
    });
  }
  for (auto& p : producers) p.join();
  CHECK_OK(rt::stream_synchronize(s));
  CHECK_EQ(failures.load(), 0);
  for (int t = 0; t < kThreads; ++t) {
    CHECK_EQ(seen[t].size(), size_t{kPerThread});
    bool in_order = true;
    for (int i = 0; i < static_cast<int>(seen[t].size()); ++i) in_order &= seen[t][i] == i;
    CHECK(in_order);
  }
  CHECK_OK(rt::stream_destroy(s));
}

TEST(ring_task_enqueues_onto_its_own_stream) {
  // The worker fills slots (crossing several blocks) while it runs a task in
  // an earlier slot; the new tasks run after it, in order.
  rt::Stream s = nullptr;
  CHECK_OK(rt::stream_create(0, 0, &s));
  std::vector<int> order;
  Status inner = Status::kSuccess;
  CHECK_OK(rt::launch(s, "spawner", {}, [&] {
    order.push_back(-1);
    for (int i = 0; i < 300 && inner == Status::kSuccess; ++i) {
      inner = rt::launch(s, "child", {}, [&order, i] { order.push_back(i); });
    }
    order.push_back(-2);
  }));
  // A synchronize covers the work submitted before it: if it reads the tail
  // before the spawner ran, that is the spawner alone. Once the spawner is
  // done its children are all submitted, so the second one covers them.
  CHECK_OK(rt::stream_synchronize(s));
  CHECK_OK(rt::stream_synchronize(s));
  CHECK_STATUS(inner, Status::kSuccess);
  CHECK_EQ(order.size(), size_t{302});
  bool ok = order.size() == 302 && order[0] == -1 && order[1] == -2;
  for (int i = 0; ok && i < 300; ++i) ok = order[static_cast<size_t>(i) + 2] == i;
  CHECK(ok);
  CHECK_OK(rt::stream_destroy(s));
}

TEST(ring_destroys_finished_tasks_on_the_host_by_synchronize) {
  rt::Stream s = nullptr;
  CHECK_OK(rt::stream_create(0, 0, &s));
  std::atomic<int> destroyed{0};
  std::atomic<bool> on_worker{false};
  constexpr int kTasks = 200;  // crosses blocks, so blocks are recycled too
  for (int i = 0; i < kTasks; ++i) {
    auto probe = std::make_shared<DestroyProbe>(&destroyed, &on_worker);
    CHECK_OK(rt::launch(s, "holder", {}, [probe] { (void)probe; }));
  }
  CHECK_OK(rt::stream_synchronize(s));
  // Every capture is released by the synchronization, none on the worker.
  CHECK_EQ(destroyed.load(), kTasks);
  CHECK(!on_worker.load());
  CHECK_OK(rt::stream_destroy(s));
}

TEST(ring_capture_destructor_may_launch) {
  // Sweeping runs capture destructors; one that launches onto the same
  // stream re-enters enqueue (whose nested sweep must skip, not deadlock).
  rt::Stream s = nullptr;
  CHECK_OK(rt::stream_create(0, 0, &s));
  std::atomic<int> ran{0};
  struct Relauncher {
    rt::Stream s;
    std::atomic<int>* ran;
    Relauncher(rt::Stream st, std::atomic<int>* r) : s(st), ran(r) {}
    ~Relauncher() { (void)rt::launch(s, "from_dtor", {}, [r = ran] { r->fetch_add(1); }); }
  };
  for (int i = 0; i < 100; ++i) {
    auto r = std::make_shared<Relauncher>(s, &ran);
    CHECK_OK(rt::launch(s, "holder", {}, [r] { (void)r; }));
  }
  CHECK_OK(rt::stream_synchronize(s));  // sweeps the holders: 100 launches
  CHECK_OK(rt::stream_synchronize(s));  // runs them
  CHECK_EQ(ran.load(), 100);
  CHECK_OK(rt::stream_destroy(s));
}
