// Streams: create/query/synchronize/destroy, ordering, sticky errors.
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "test_util.h"

using namespace tpu_test;
using rt::Status;

namespace {
void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }
}  // namespace

TEST(stream_create_query_sync) {
  int least = 1, greatest = 1;
  rt::stream_priority_range(&least, &greatest);
  CHECK_EQ(least, 0);
  CHECK_EQ(greatest, -1);
  rt::Stream s = nullptr;
  CHECK_OK(rt::stream_create(0, -1, &s));
  CHECK(s != nullptr);
  CHECK_EQ(rt::stream_device(s), 0);
  CHECK_EQ(rt::stream_priority(s), -1);
  CHECK_OK(rt::stream_query(s));  // nothing enqueued
  std::atomic<bool> release{false}, ran{false};
  CHECK_OK(rt::launch(s, "gate", {}, [&] {
    while (!release.load()) std::this_thread::yield();
    ran = true;
  }));
  CHECK_STATUS(rt::stream_query(s), Status::kNotReady);
  release = true;
  CHECK_OK(rt::stream_synchronize(s));
  CHECK(ran.load());
  CHECK_OK(rt::stream_query(s));
  CHECK_OK(rt::stream_destroy(s));
  CHECK_STATUS(rt::stream_query(s), Status::kInvalidValue);  // destroyed

  rt::Stream d0 = rt::default_stream(0);
  CHECK(d0 != nullptr);
  CHECK(rt::default_stream(rt::device_count()) == nullptr);
  CHECK_STATUS(rt::stream_destroy(d0), Status::kInvalidValue);
  CHECK_OK(rt::stream_synchronize(d0));
  CHECK_OK(rt::stream_synchronize(nullptr));  // the current device's default stream
  CHECK_STATUS(rt::stream_create(rt::device_count(), 0, &s), Status::kInvalidDevice);
  // Priorities outside the range are clamped.
  CHECK_OK(rt::stream_create(0, 5, &s));
  CHECK_EQ(rt::stream_priority(s), 0);
  CHECK_OK(rt::stream_destroy(s));
  CHECK_OK(rt::stream_create(0, -7, &s));
  CHECK_EQ(rt::stream_priority(s), -1);
  CHECK_OK(rt::stream_destroy(s));
}

TEST(stream_destroy_waits_for_work) {
  rt::Stream s = nullptr;
  CHECK_OK(rt::stream_create(0, 0, &s));
  std::atomic<bool> done{false};
  CHECK_OK(rt::launch(s, "slow", {}, [&] {
    sleep_ms(10);
    done = true;
  }));
  CHECK_OK(rt::stream_destroy(s));
  CHECK(done.load());
  // Many create/destroy cycles recycle stream objects (and their threads).
  for (int i = 0; i < 200; ++i) {
    CHECK_OK(rt::stream_create(i % rt::device_count(), 0, &s));
    CHECK_OK(rt::launch(s, "noop", {}, [] {}));
    CHECK_OK(rt::stream_destroy(s));
  }
}

TEST(launch_runs_in_order) {
  rt::Stream s = nullptr;
  CHECK_OK(rt::stream_create(0, 0, &s));
  std::vector<int> order;
  for (int i = 0; i < 1000; ++i) {
    CHECK_OK(rt::launch(s, "append", {}, [&order, i] { order.push_back(i); }));
  }
  CHECK_OK(rt::stream_synchronize(s));
  CHECK_EQ(order.size(), size_t{1000});
  bool in_order = true;
  for (int i = 0; i < static_cast<int>(order.size()); ++i) in_order &= order[static_cast<size_t>(i)] == i;
  CHECK(in_order);
  CHECK_STATUS(rt::launch(s, "empty", {}, std::function<void()>()), Status::kInvalidValue);
  CHECK_OK(rt::stream_destroy(s));
}

TEST(launch_body_sees_device_context) {
  const int dev = rt::device_count() - 1;
  rt::Stream s = rt::default_stream(dev);
  int seen_device = -2, seen_cores = -2;
  CHECK_OK(rt::launch(s, "ctx", {}, [&] {
    seen_device = rt::current_device();
    seen_cores = rt::current_core_count();
  }));
  CHECK_OK(rt::stream_synchronize(s));
  rt::DeviceProperties props;
  CHECK_OK(rt::get_device_properties(dev, &props));
  CHECK_EQ(seen_device, dev);
  CHECK_EQ(seen_cores, props.core_count);
  // A task cannot synchronize its own stream (it would wait for itself).
  Status inner = Status::kSuccess;
  CHECK_OK(rt::launch(s, "self_sync", {}, [&] { inner = rt::stream_synchronize(s); }));
  CHECK_OK(rt::stream_synchronize(s));
  CHECK_STATUS(inner, Status::kInvalidValue);
}

TEST(sticky_kernel_error_reported_once) {
  rt::Stream s = nullptr;
  CHECK_OK(rt::stream_create(0, 0, &s));
  std::atomic<bool> later_ran{false};
  CHECK_OK(rt::launch(s, "thrower", {}, [] { throw std::runtime_error("boom"); }));
  CHECK_OK(rt::launch(s, "second_thrower", {}, [] { throw std::runtime_error("second"); }));
  CHECK_OK(rt::launch(s, "after", {}, [&] { later_ran = true; }));
  CHECK_STATUS(rt::stream_synchronize(s), Status::kKernelFailure);
  CHECK_CONTAINS(rt::last_error_message(), "kernel 'thrower' failed on tpu:0: boom");
  CHECK(later_ran.load());  // the stream kept running
  CHECK_OK(rt::stream_synchronize(s));  // cleared
  CHECK_OK(rt::stream_query(s));

  // Reported by stream_query, too, and by non-std exceptions.
  CHECK_OK(rt::launch(s, "int_thrower", {}, [] { throw 42; }));
  Status q;
  while ((q = rt::stream_query(s)) == Status::kNotReady) std::this_thread::yield();
  CHECK_STATUS(q, Status::kKernelFailure);  // the query that sees completion reports it
  CHECK_OK(rt::stream_synchronize(s));
  CHECK_OK(rt::launch(s, "int_thrower", {}, [] { throw 42; }));
  CHECK_STATUS(rt::stream_synchronize(s), Status::kKernelFailure);
  CHECK_CONTAINS(rt::last_error_message(), "kernel 'int_thrower' failed on tpu:0: unknown exception");

  // device_synchronize covers every stream of the device.
  CHECK_OK(rt::launch(s, "dev_thrower", {}, [] { throw std::logic_error("via device"); }));
  CHECK_STATUS(rt::device_synchronize(0), Status::kKernelFailure);
  CHECK_CONTAINS(rt::last_error_message(), "kernel 'dev_thrower' failed on tpu:0: via device");
  CHECK_OK(rt::device_synchronize(0));

  // event_synchronize covers the recorded stream.
  rt::Event e = nullptr;
  CHECK_OK(rt::event_create(&e));
  CHECK_OK(rt::launch(s, "ev_thrower", {}, [] { throw std::runtime_error("via event"); }));
  CHECK_OK(rt::event_record(e, s));
  CHECK_STATUS(rt::event_synchronize(e), Status::kKernelFailure);
  CHECK_CONTAINS(rt::last_error_message(), "via event");
  CHECK_OK(rt::event_synchronize(e));
  CHECK_OK(rt::event_destroy(e));

  // Still usable.
  int x = 0;
  CHECK_OK(rt::launch(s, "ok", {}, [&] { x = 7; }));
  CHECK_OK(rt::stream_synchronize(s));
  CHECK_EQ(x, 7);
  CHECK_OK(rt::stream_destroy(s));
}

TEST(many_streams_on_all_devices) {
  std::vector<rt::Stream> streams;
  for (int d = 0; d < rt::device_count(); ++d) {
    for (int i = 0; i < 3; ++i) {
      rt::Stream s = nullptr;
      CHECK_OK(rt::stream_create(d, -(i % 2), &s));
      streams.push_back(s);
    }
  }
  std::vector<std::atomic<int>> counters(streams.size());
  for (int round = 0; round < 50; ++round) {
    for (size_t i = 0; i < streams.size(); ++i) {
      CHECK_OK(rt::launch(streams[i], "inc", {}, [&counters, i] { counters[i].fetch_add(1); }));
    }
  }
  for (int d = 0; d < rt::device_count(); ++d) CHECK_OK(rt::device_synchronize(d));
  for (auto& c : counters) CHECK_EQ(c.load(), 50);
  for (rt::Stream s : streams) CHECK_OK(rt::stream_destroy(s));
}

TEST(host_waits_when_far_ahead_of_the_device) {
  // The queue is bounded (65536 tasks): past that, launch waits for the
  // device instead of buffering without limit.
  rt::Stream s = nullptr;
  CHECK_OK(rt::stream_create(0, 0, &s));
  std::atomic<int> count{0};
  CHECK_OK(rt::launch(s, "slow", {}, [] { sleep_ms(30); }));
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 70000; ++i) CHECK_OK(rt::launch(s, "inc", {}, [&] { count.fetch_add(1, std::memory_order_relaxed); }));
  const auto waited = std::chrono::steady_clock::now() - t0;
  CHECK(waited >= std::chrono::milliseconds(20));
  CHECK_OK(rt::stream_synchronize(s));
  CHECK_EQ(count.load(), 70000);
  CHECK_OK(rt::stream_destroy(s));
}
