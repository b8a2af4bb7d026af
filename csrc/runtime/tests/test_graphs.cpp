// Stream capture and graphs: recording instead of running, replay order,
// joined streams, refused waits and their invalidation, strict mode.
#include <atomic>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"

using namespace tpu_test;
using rt::Status;

namespace {

// Adds `v` to every int of a device buffer.
rt::Status add_kernel(rt::Stream s, int* p, int n, int v) {
  return rt::launch(s, "add", {p}, [p, n, v] {
    for (int i = 0; i < n; ++i) p[i] += v;
  });
}

std::vector<int> read_ints(const void* p, int n) {
  std::vector<int> out(n);
  CHECK_OK(rt::memcpy(out.data(), p, n * sizeof(int), rt::MemcpyKind::kDeviceToHost));
  return out;
}

}  // namespace

TEST(capture_records_and_replay_runs) {
  StreamHolder sh;
  DeviceBuf buf(0, 64 * sizeof(int));
  int* p = static_cast<int*>(buf.p);
  CHECK_OK(rt::memset_async(p, 0, 64 * sizeof(int), sh.s));
  CHECK_OK(rt::stream_synchronize(sh.s));
  const uint64_t before = rt::launch_count();
  CHECK_EQ(rt::stream_capture_id(sh.s), uint64_t{0});
  CHECK_OK(rt::stream_begin_capture(sh.s, rt::CaptureMode::kGlobal));
  CHECK(rt::stream_capture_id(sh.s) != 0);
  CHECK_OK(add_kernel(sh.s, p, 64, 1));
  CHECK_OK(add_kernel(sh.s, p, 64, 10));
  CHECK_OK(rt::memset_async(p, 0, sizeof(int), sh.s));  // p[0] = 0 after the adds
  rt::Graph g = nullptr;
  CHECK_OK(rt::stream_end_capture(sh.s, &g));
  CHECK_EQ(rt::stream_capture_id(sh.s), uint64_t{0});
  CHECK_EQ(rt::launch_count(), before);  // nothing ran
  CHECK_EQ(rt::graph_node_count(g), size_t{3});
  CHECK_EQ(read_ints(p, 2)[1], 0);
  for (int r = 1; r <= 3; ++r) {
    CHECK_OK(rt::graph_launch(g, sh.s));
    CHECK_OK(rt::stream_synchronize(sh.s));
    const std::vector<int> v = read_ints(p, 64);
    CHECK_EQ(v[0], 0);
    CHECK_EQ(v[63], 11 * r);
  }
  // Replay on another stream of the same device; queued replays outlive destroy.
  CHECK_OK(rt::graph_launch(g, rt::default_stream(0)));
  CHECK_OK(rt::graph_launch(g, rt::default_stream(0)));
  CHECK_OK(rt::graph_destroy(g));
  CHECK_OK(rt::stream_synchronize(rt::default_stream(0)));
  CHECK_EQ(read_ints(p, 64)[5], 55);
}

TEST(capture_on_default_stream_and_twice_refused) {
  CHECK_STATUS(rt::stream_begin_capture(rt::default_stream(0), rt::CaptureMode::kGlobal), Status::kInvalidValue);
  StreamHolder sh;
  CHECK_OK(rt::stream_begin_capture(sh.s, rt::CaptureMode::kGlobal));
  CHECK_STATUS(rt::stream_begin_capture(sh.s, rt::CaptureMode::kGlobal), Status::kInvalidValue);
  CHECK_STATUS(rt::stream_destroy(sh.s), Status::kInvalidValue);
  rt::Graph g = nullptr;
  CHECK_OK(rt::stream_end_capture(sh.s, &g));
  CHECK_EQ(rt::graph_node_count(g), size_t{0});
  rt::Graph none = g;
  CHECK_STATUS(rt::stream_end_capture(sh.s, &none), Status::kInvalidValue);  // not capturing
  CHECK(none == nullptr);
  CHECK_OK(rt::graph_destroy(g));
}

TEST(capture_refuses_waits_and_invalidates) {
  DeviceBuf buf(0, 4096);
  int host = 0;
  struct Case {
    const char* what;
    std::function<Status(rt::Stream)> call;
  };
  rt::Event ev = nullptr;
  CHECK_OK(rt::event_create(&ev));
  const std::vector<Case> cases = {
      {"stream_synchronize", [](rt::Stream s) { return rt::stream_synchronize(s); }},
      {"stream_query", [](rt::Stream s) { return rt::stream_query(s); }},
      {"memcpy_and_sync", [&](rt::Stream s) {
         return rt::memcpy_and_sync(&host, buf.p, sizeof host, rt::MemcpyKind::kDeviceToHost, s);
       }},
      {"pageable memcpy_async", [&](rt::Stream s) {
         return rt::memcpy_async(buf.p, &host, sizeof host, rt::MemcpyKind::kHostToDevice, s);
       }},
      {"device_synchronize", [](rt::Stream) { return rt::device_synchronize(0); }},
      {"memcpy", [&](rt::Stream) { return rt::memcpy(&host, buf.p, sizeof host, rt::MemcpyKind::kDeviceToHost); }},
      {"event_synchronize", [&](rt::Stream s) {
         CHECK_OK(rt::event_record(ev, s));
         return rt::event_synchronize(ev);
       }},
  };
  for (const Case& c : cases) {
    StreamHolder sh;
    CHECK_OK(rt::stream_begin_capture(sh.s, rt::CaptureMode::kGlobal));
    CHECK_STATUS(c.call(sh.s), Status::kCaptureUnsupported);
    CHECK(rt::last_error_message().find("capturing a graph") != std::string::npos);
    // Later work fails; ending reports the first failure and ends the capture.
    CHECK_STATUS(add_kernel(sh.s, static_cast<int*>(buf.p), 1, 1), Status::kCaptureInvalidated);
    rt::Graph g = nullptr;
    CHECK_STATUS(rt::stream_end_capture(sh.s, &g), Status::kCaptureInvalidated);
    CHECK(g == nullptr);
    // The device stays usable.
    CHECK_OK(add_kernel(sh.s, static_cast<int*>(buf.p), 1, 1));
    CHECK_OK(rt::stream_synchronize(sh.s));
    CHECK_OK(rt::device_synchronize(0));
  }
  CHECK_OK(rt::event_destroy(ev));
}

TEST(capture_modes_decide_what_other_calls_may_do) {
  DeviceBuf buf(0, 4096);
  int host = 0;
  for (rt::CaptureMode mode : {rt::CaptureMode::kThreadLocal, rt::CaptureMode::kRelaxed}) {
    StreamHolder sh;
    CHECK_OK(rt::stream_begin_capture(sh.s, mode));
    // Another thread's sync copy is allowed unless the mode is global.
    Status other = Status::kInvalidValue;
    std::thread t([&] { other = rt::memcpy(&host, buf.p, sizeof host, rt::MemcpyKind::kDeviceToHost); });
    t.join();
    CHECK_OK(other);
    // Other devices are never affected.
    if (rt::device_count() > 1) CHECK_OK(rt::device_synchronize(1));
    // The capturing thread itself: refused in thread_local mode only.
    const Status mine = rt::device_synchronize(0);
    rt::Graph g = nullptr;
    if (mode == rt::CaptureMode::kRelaxed) {
      CHECK_OK(mine);
      CHECK_OK(rt::stream_end_capture(sh.s, &g));
      CHECK_OK(rt::graph_destroy(g));
    } else {
      CHECK_STATUS(mine, Status::kCaptureUnsupported);
      CHECK_STATUS(rt::stream_end_capture(sh.s, &g), Status::kCaptureInvalidated);
    }
  }
}

TEST(capture_joined_streams_replay_in_recorded_order) {
  StreamHolder a, b;
  DeviceBuf buf(0, 4096);
  int* p = static_cast<int*>(buf.p);
  CHECK_OK(rt::memset_async(p, 0, 4096, a.s));
  CHECK_OK(rt::stream_synchronize(a.s));
  rt::Event fork = nullptr, join = nullptr, outside = nullptr;
  CHECK_OK(rt::event_create(&fork));
  CHECK_OK(rt::event_create(&join));
  CHECK_OK(rt::event_create(&outside));
  CHECK_OK(rt::event_record(outside, rt::default_stream(0)));
  CHECK_OK(rt::stream_begin_capture(a.s, rt::CaptureMode::kGlobal));
  CHECK_OK(rt::launch(a.s, "set", {p}, [p] { p[0] = 3; }));
  CHECK_OK(rt::event_record(fork, a.s));
  CHECK_OK(rt::stream_wait_event(b.s, fork));  // b joins
  CHECK_EQ(rt::stream_capture_id(b.s), rt::stream_capture_id(a.s));
  CHECK_OK(rt::launch(b.s, "times 5", {p}, [p] { p[1] = p[0] * 5; }));
  CHECK_OK(rt::event_record(join, b.s));
  CHECK_OK(rt::stream_wait_event(a.s, join));
  CHECK_OK(rt::launch(a.s, "plus 1", {p}, [p] { p[2] = p[1] + 1; }));
  rt::Graph g = nullptr;
  CHECK_OK(rt::stream_end_capture(a.s, &g));
  CHECK_EQ(rt::stream_capture_id(b.s), uint64_t{0});  // left with the capture
  CHECK_EQ(rt::graph_node_count(g), size_t{3});
  CHECK_OK(rt::event_query(fork));  // recorded in a finished capture: nothing to wait for
  CHECK_OK(rt::graph_launch(g, a.s));
  CHECK_OK(rt::stream_synchronize(a.s));
  const std::vector<int> v = read_ints(p, 3);
  CHECK_EQ(v[0], 3);
  CHECK_EQ(v[1], 15);
  CHECK_EQ(v[2], 16);
  // Waiting for outside work from a capturing stream is refused.
  CHECK_OK(rt::stream_begin_capture(a.s, rt::CaptureMode::kGlobal));
  CHECK_STATUS(rt::stream_wait_event(a.s, outside), Status::kCaptureUnsupported);
  rt::Graph bad = nullptr;
  CHECK_STATUS(rt::stream_end_capture(a.s, &bad), Status::kCaptureInvalidated);
  CHECK_OK(rt::graph_destroy(g));
  for (rt::Event e : {fork, join, outside}) CHECK_OK(rt::event_destroy(e));
}

TEST(capture_pinned_copies_read_at_replay) {
  StreamHolder sh;
  DeviceBuf dev(0, 4096);
  PinnedBuf in(sizeof(int)), out(sizeof(int));
  CHECK_OK(rt::stream_begin_capture(sh.s, rt::CaptureMode::kGlobal));
  CHECK_OK(rt::memcpy_async(dev.p, in.p, sizeof(int), rt::MemcpyKind::kHostToDevice, sh.s));
  CHECK_OK(add_kernel(sh.s, static_cast<int*>(dev.p), 1, 100));
  CHECK_OK(rt::memcpy_async(out.p, dev.p, sizeof(int), rt::MemcpyKind::kDeviceToHost, sh.s));
  rt::Graph g = nullptr;
  CHECK_OK(rt::stream_end_capture(sh.s, &g));
  for (int x : {1, 7, -3}) {
    std::memcpy(in.p, &x, sizeof x);  // refill the static input in place
    CHECK_OK(rt::graph_launch(g, sh.s));
    CHECK_OK(rt::stream_synchronize(sh.s));
    int y = 0;
    std::memcpy(&y, out.p, sizeof y);
    CHECK_EQ(y, x + 100);
  }
  CHECK_OK(rt::graph_destroy(g));
}

TEST(graph_replay_errors_name_the_node_and_freed_buffers_are_refused) {
  StreamHolder sh;
  void* p = nullptr;
  CHECK_OK(rt::malloc(0, 4096, &p));
  CHECK_OK(rt::stream_begin_capture(sh.s, rt::CaptureMode::kGlobal));
  CHECK_OK(rt::launch(sh.s, "touch", {p}, [] {}));
  CHECK_OK(rt::launch(sh.s, "boom", {}, [] { throw std::runtime_error("bad value"); }));
  rt::Graph g = nullptr;
  CHECK_OK(rt::stream_end_capture(sh.s, &g));
  CHECK_OK(rt::graph_launch(g, sh.s));
  CHECK_STATUS(rt::stream_synchronize(sh.s), Status::kKernelFailure);
  CHECK(rt::last_error_message().find("captured kernel 'boom': bad value") != std::string::npos);
  CHECK_OK(rt::free(p));
  CHECK_STATUS(rt::graph_launch(g, sh.s), Status::kInvalidDevicePointer);
  CHECK(rt::last_error_message().find("'touch'") != std::string::npos);
  const std::string path = "/tmp/tpu_graph_dump_" + std::to_string(getpid()) + ".dot";
  CHECK_OK(rt::graph_debug_dump(g, path));
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  CHECK(text.str().find("1: boom") != std::string::npos);
  CHECK(text.str().find("n0 -> n1") != std::string::npos);
  std::remove(path.c_str());
  CHECK_OK(rt::graph_destroy(g));
}

TEST(graph_replay_in_strict_mode_opens_only_its_buffers) {
  StrictScope strict(true);
  StreamHolder sh;
  DeviceBuf a(0, 4096), b(0, 4096);
  CHECK_OK(rt::memset_async(a.p, 0, 4096, sh.s));
  CHECK_OK(rt::stream_begin_capture(sh.s, rt::CaptureMode::kGlobal));
  CHECK_OK(add_kernel(sh.s, static_cast<int*>(a.p), 16, 2));
  rt::Graph g = nullptr;
  CHECK_OK(rt::stream_end_capture(sh.s, &g));
  CHECK_OK(rt::graph_launch(g, sh.s));
  CHECK_OK(rt::graph_launch(g, sh.s));
  CHECK_OK(rt::stream_synchronize(sh.s));
  CHECK_EQ(read_ints(a.p, 16)[15], 4);
  CHECK(!host_can_read(a.p));
  CHECK(!host_can_read(b.p));
  CHECK_OK(rt::graph_destroy(g));
}

TEST(graph_launch_inside_a_capture_is_one_node) {
  StreamHolder sh;
  DeviceBuf buf(0, 4096);
  int* p = static_cast<int*>(buf.p);
  CHECK_OK(rt::memset_async(p, 0, 4096, sh.s));
  CHECK_OK(rt::stream_begin_capture(sh.s, rt::CaptureMode::kGlobal));
  CHECK_OK(add_kernel(sh.s, p, 1, 1));
  rt::Graph inner = nullptr;
  CHECK_OK(rt::stream_end_capture(sh.s, &inner));
  CHECK_OK(rt::stream_begin_capture(sh.s, rt::CaptureMode::kGlobal));
  CHECK_OK(rt::graph_launch(inner, sh.s));
  CHECK_OK(rt::graph_launch(inner, sh.s));
  rt::Graph outer = nullptr;
  CHECK_OK(rt::stream_end_capture(sh.s, &outer));
  CHECK_EQ(rt::graph_node_count(outer), size_t{2});
  CHECK_OK(rt::graph_launch(outer, sh.s));
  CHECK_OK(rt::stream_synchronize(sh.s));
  CHECK_EQ(read_ints(p, 1)[0], 2);
  CHECK_OK(rt::graph_destroy(inner));
  CHECK_OK(rt::graph_launch(outer, sh.s));  // holds the inner body
  CHECK_OK(rt::stream_synchronize(sh.s));
  CHECK_EQ(read_ints(p, 1)[0], 4);
  CHECK_OK(rt::graph_destroy(outer));
}

TEST(graph_launch_refuses_memory_that_now_belongs_to_another_allocation) {
  StreamHolder sh;
  void* a = nullptr;
  CHECK_OK(rt::malloc(0, 8192, &a));
  CHECK_OK(rt::stream_begin_capture(sh.s, rt::CaptureMode::kGlobal));
  int* inner = static_cast<int*>(a) + 1024;
  CHECK_OK(rt::launch(sh.s, "write", {inner}, [inner] { inner[0] = 1; }));
  rt::Graph g = nullptr;
  CHECK_OK(rt::stream_end_capture(sh.s, &g));
  CHECK_OK(rt::graph_launch(g, sh.s));  // instantiates, and launches
  CHECK_OK(rt::stream_synchronize(sh.s));
  CHECK_EQ(read_ints(inner, 1)[0], 1);
  CHECK_OK(rt::free(a));
  void* c = nullptr;
  CHECK_OK(rt::malloc(0, 8192, &c));  // typically at the same address
  const uint64_t before = rt::launch_count();
  CHECK_STATUS(rt::graph_launch(g, sh.s), Status::kInvalidDevicePointer);
  CHECK(rt::last_error_message().find("'write'") != std::string::npos);
  CHECK_EQ(rt::launch_count(), before);
  CHECK_OK(rt::free(c));
  CHECK_OK(rt::graph_destroy(g));
}

TEST(global_capture_refuses_other_threads_device_waits) {
  StreamHolder sh;
  CHECK_OK(rt::stream_begin_capture(sh.s, rt::CaptureMode::kGlobal));
  Status other = Status::kSuccess;
  std::thread t([&] { other = rt::device_synchronize(0); });
  t.join();
  CHECK_STATUS(other, Status::kCaptureUnsupported);
  rt::Graph g = nullptr;
  CHECK_STATUS(rt::stream_end_capture(sh.s, &g), Status::kCaptureInvalidated);
}

TEST(default_stream_cannot_join_a_capture) {
  StreamHolder sh;
  rt::Event e = nullptr;
  CHECK_OK(rt::event_create(&e));
  CHECK_OK(rt::stream_begin_capture(sh.s, rt::CaptureMode::kGlobal));
  CHECK_OK(rt::event_record(e, sh.s));
  CHECK_STATUS(rt::stream_wait_event(rt::default_stream(0), e), Status::kCaptureUnsupported);
  CHECK_EQ(rt::stream_capture_id(rt::default_stream(0)), uint64_t{0});
  rt::Graph g = nullptr;
  CHECK_STATUS(rt::stream_end_capture(sh.s, &g), Status::kCaptureInvalidated);
  CHECK_OK(rt::event_destroy(e));
}

TEST(concurrent_begin_capture_on_one_stream_lets_one_win) {
  for (int round = 0; round < 50; ++round) {
    StreamHolder sh;
    std::atomic<int> ok{0};
    std::thread t1([&] { ok += rt::stream_begin_capture(sh.s, rt::CaptureMode::kRelaxed) == Status::kSuccess; });
    std::thread t2([&] { ok += rt::stream_begin_capture(sh.s, rt::CaptureMode::kRelaxed) == Status::kSuccess; });
    t1.join();
    t2.join();
    CHECK_EQ(ok.load(), 1);
    rt::Graph g = nullptr;
    CHECK_OK(rt::stream_end_capture(sh.s, &g));
    CHECK_OK(rt::graph_destroy(g));
  }
}
