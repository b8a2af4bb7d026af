// Events: record/query/synchronize/wait/elapsed, re-record, cross-device.
#include <atomic>
#include <chrono>
#include <thread>

#include "test_util.h"

using namespace tpu_test;
using rt::Status;

namespace {
void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }
}  // namespace

TEST(event_record_query_synchronize) {
  rt::Event e = nullptr;
  CHECK_OK(rt::event_create(&e));
  CHECK_EQ(rt::event_device(e), -1);
  CHECK_OK(rt::event_query(e));        // never recorded: complete
  CHECK_OK(rt::event_synchronize(e));  // never recorded: returns at once
  rt::Stream s = nullptr;
  CHECK_OK(rt::stream_create(0, 0, &s));
  std::atomic<bool> release{false}, ran{false};
  CHECK_OK(rt::launch(s, "gate", {}, [&] {
    while (!release.load()) std::this_thread::yield();
    ran = true;
  }));
  CHECK_OK(rt::event_record(e, s));
  CHECK_EQ(rt::event_device(e), 0);
  CHECK_STATUS(rt::event_query(e), Status::kNotReady);
  // Work enqueued after the record is not captured by it.
  release = true;
  CHECK_OK(rt::event_synchronize(e));
  CHECK(ran.load());
  CHECK_OK(rt::event_query(e));

  // Re-recording replaces the capture.
  std::atomic<bool> release2{false};
  CHECK_OK(rt::launch(s, "gate2", {}, [&] {
    while (!release2.load()) std::this_thread::yield();
  }));
  CHECK_OK(rt::event_record(e, s));
  CHECK_STATUS(rt::event_query(e), Status::kNotReady);
  release2 = true;
  CHECK_OK(rt::event_synchronize(e));
  CHECK_OK(rt::stream_destroy(s));
  CHECK_OK(rt::event_destroy(e));
  CHECK_STATUS(rt::event_create(nullptr), Status::kInvalidValue);
}

TEST(event_destroy_with_pending_work) {
  rt::Stream s = nullptr;
  CHECK_OK(rt::stream_create(0, 0, &s));
  rt::Event e = nullptr;
  CHECK_OK(rt::event_create(&e));
  CHECK_OK(rt::launch(s, "slow", {}, [] { sleep_ms(5); }));
  CHECK_OK(rt::event_record(e, s));
  CHECK_OK(rt::event_destroy(e));
  CHECK_OK(rt::stream_synchronize(s));
  // An event that captured a stream stays valid after the stream is gone.
  CHECK_OK(rt::event_create(&e));
  CHECK_OK(rt::event_record(e, s));
  CHECK_OK(rt::stream_destroy(s));
  CHECK_OK(rt::event_query(e));
  CHECK_OK(rt::event_synchronize(e));
  CHECK_OK(rt::event_destroy(e));
}

TEST(event_elapsed_time) {
  rt::Stream s = nullptr;
  CHECK_OK(rt::stream_create(0, 0, &s));
  rt::Event a = nullptr, b = nullptr, never = nullptr, untimed = nullptr;
  CHECK_OK(rt::event_create(&a));
  CHECK_OK(rt::event_create(&b));
  CHECK_OK(rt::event_create(&never));
  CHECK_OK(rt::event_create(&untimed, rt::kEventDisableTiming));
  float ms = -1;
  CHECK_STATUS(rt::event_elapsed_time(&ms, a, b), Status::kEventNotRecorded);

  std::atomic<bool> release{false};
  CHECK_OK(rt::event_record(a, s));
  CHECK_OK(rt::launch(s, "work", {}, [&] {
    while (!release.load()) std::this_thread::yield();
    sleep_ms(20);
  }));
  CHECK_OK(rt::event_record(b, s));
  CHECK_STATUS(rt::event_elapsed_time(&ms, a, b), Status::kNotReady);
  // The elapsed time is device time: the host waiting here before the
  // kernel runs does not count... but the kernel's 20 ms does.
  release = true;
  CHECK_OK(rt::event_synchronize(b));
  CHECK_OK(rt::event_elapsed_time(&ms, a, b));
  CHECK(ms >= 19.0f && ms < 2000.0f);
  CHECK_STATUS(rt::event_elapsed_time(&ms, a, never), Status::kEventNotRecorded);
  CHECK_OK(rt::event_record(untimed, s));
  CHECK_OK(rt::event_synchronize(untimed));
  CHECK_STATUS(rt::event_elapsed_time(&ms, a, untimed), Status::kTimingDisabled);
  CHECK_STATUS(rt::event_elapsed_time(&ms, untimed, b), Status::kTimingDisabled);

  // Re-record a after b: elapsed(b, a) is small and non-negative.
  CHECK_OK(rt::event_record(a, s));
  CHECK_OK(rt::event_synchronize(a));
  CHECK_OK(rt::event_elapsed_time(&ms, b, a));
  CHECK(ms >= 0.0f && ms < 1000.0f);

  for (rt::Event e : {a, b, never, untimed}) CHECK_OK(rt::event_destroy(e));
  CHECK_OK(rt::stream_destroy(s));
}

TEST(stream_wait_event_orders_streams) {
  rt::Stream producer = nullptr, consumer = nullptr;
  CHECK_OK(rt::stream_create(0, 0, &producer));
  CHECK_OK(rt::stream_create(0, -1, &consumer));
  rt::Event e = nullptr;
  CHECK_OK(rt::event_create(&e, rt::kEventDisableTiming));
  std::atomic<int> flag{0};
  int seen = -1;
  CHECK_OK(rt::launch(producer, "produce", {}, [&] {
    sleep_ms(20);
    flag = 1;
  }));
  CHECK_OK(rt::event_record(e, producer));
  CHECK_OK(rt::stream_wait_event(consumer, e));
  CHECK_OK(rt::launch(consumer, "consume", {}, [&] { seen = flag.load(); }));
  CHECK_OK(rt::stream_synchronize(consumer));
  CHECK_EQ(seen, 1);
  // Waiting on a never-recorded event is a no-op.
  rt::Event fresh = nullptr;
  CHECK_OK(rt::event_create(&fresh));
  CHECK_OK(rt::stream_wait_event(consumer, fresh));
  CHECK_OK(rt::stream_synchronize(consumer));
  CHECK_OK(rt::event_destroy(fresh));
  CHECK_OK(rt::event_destroy(e));
  CHECK_OK(rt::stream_destroy(producer));
  CHECK_OK(rt::stream_destroy(consumer));
}

TEST(stream_wait_event_cross_device) {
  if (rt::device_count() < 2) return;
  rt::Stream s0 = rt::default_stream(0), s1 = rt::default_stream(1);
  rt::Event e = nullptr;
  CHECK_OK(rt::event_create(&e));
  std::atomic<int> flag{0};
  int seen = -1;
  CHECK_OK(rt::launch(s0, "produce", {}, [&] {
    sleep_ms(20);
    flag = 1;
  }));
  CHECK_OK(rt::event_record(e, s0));
  CHECK_EQ(rt::event_device(e), 0);
  CHECK_OK(rt::stream_wait_event(s1, e));
  CHECK_OK(rt::launch(s1, "consume", {}, [&] { seen = flag.load(); }));
  CHECK_OK(rt::stream_synchronize(s1));
  CHECK_EQ(seen, 1);

  // Timing across devices: both records complete, so elapsed works.
  rt::Event e1 = nullptr;
  CHECK_OK(rt::event_create(&e1));
  CHECK_OK(rt::event_record(e1, s1));
  CHECK_OK(rt::event_synchronize(e1));
  float ms = -1;
  CHECK_OK(rt::event_elapsed_time(&ms, e, e1));
  CHECK(ms >= 0.0f);
  CHECK_OK(rt::event_destroy(e));
  CHECK_OK(rt::event_destroy(e1));
}
