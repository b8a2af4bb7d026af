// `tpu_runtime_tests --bench`: host-side costs of the hot paths.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "test_util.h"

namespace tpu_test {

namespace {

using Clock = std::chrono::steady_clock;

double us_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

// 64 MiB host-to-device copies, each complete before the next starts, from
// pageable and pinned memory through every copy entry point.
void bench_host_to_device(rt::Stream s) {
  const size_t n = size_t{64} << 20;
  std::vector<char> pageable(n, 1);
  void* pinned = nullptr;
  rt::malloc_host(n, &pinned);
  std::memset(pinned, 1, n);
  void* device = nullptr;
  rt::malloc(0, n, &device);
  auto report = [&](const char* what, auto&& copy) {
    copy();  // warm up: first touch of the device pages
    constexpr int kReps = 10;
    const auto t0 = Clock::now();
    for (int i = 0; i < kReps; ++i) copy();
    std::printf("H2D 64 MiB, %s: %.2f GB/s\n", what, kReps * double(n) / us_since(t0) / 1e3);
  };
  report("pageable, memcpy", [&] { rt::memcpy(device, pageable.data(), n, rt::MemcpyKind::kHostToDevice); });
  report("pageable, memcpy_async + stream_synchronize", [&] {
    rt::memcpy_async(device, pageable.data(), n, rt::MemcpyKind::kHostToDevice, s);
    rt::stream_synchronize(s);
  });
  report("pageable, memcpy_and_sync", [&] {
    rt::memcpy_and_sync(device, pageable.data(), n, rt::MemcpyKind::kHostToDevice, s);
  });
  report("pinned, memcpy_async + stream_synchronize", [&] {
    rt::memcpy_async(device, pinned, n, rt::MemcpyKind::kHostToDevice, s);
    rt::stream_synchronize(s);
  });
  rt::free(device);
  rt::free_host(pinned);
}

int run_benchmarks() {
  rt::Stream s = nullptr;
  rt::stream_create(0, 0, &s);
  rt::launch(s, "warm", {}, [] {});
  rt::stream_synchronize(s);

  constexpr int kLaunches = 100000;
  for (int rep = 0; rep < 3; ++rep) {
    auto t0 = Clock::now();
    for (int i = 0; i < kLaunches; ++i) rt::launch(s, "empty", {}, [] {});
    const double enqueue_us = us_since(t0);
    rt::stream_synchronize(s);
    const double total_us = us_since(t0);
    std::printf("empty launch: %.3f us/launch host cost (enqueue only), %.3f us/launch incl. drain\n",
                enqueue_us / kLaunches, total_us / kLaunches);
  }

  void* d = nullptr;
  rt::malloc(0, 4096, &d);
  {
    auto t0 = Clock::now();
    for (int i = 0; i < kLaunches; ++i) rt::launch(s, "one_buffer", {d}, [] {});
    const double enqueue_us = us_since(t0);
    rt::stream_synchronize(s);
    std::printf("launch naming 1 buffer: %.3f us/launch host cost\n", enqueue_us / kLaunches);
  }

  rt::Event e = nullptr, u = nullptr;
  rt::event_create(&e);
  rt::event_create(&u, rt::kEventDisableTiming);
  {
    auto t0 = Clock::now();
    for (int i = 0; i < kLaunches; ++i) rt::event_record(e, s);
    const double us = us_since(t0);
    rt::stream_synchronize(s);
    t0 = Clock::now();
    for (int i = 0; i < kLaunches; ++i) rt::event_record(u, s);
    const double us_untimed = us_since(t0);
    std::printf("event_record: %.3f us (timing enabled), %.3f us (timing disabled)\n", us / kLaunches,
                us_untimed / kLaunches);
  }

  constexpr int kSyncs = 20000;
  {
    auto t0 = Clock::now();
    for (int i = 0; i < kSyncs; ++i) {
      rt::launch(s, "empty", {}, [] {});
      rt::stream_synchronize(s);
    }
    std::printf("launch + stream_synchronize round trip (hot worker): %.3f us\n", us_since(t0) / kSyncs);
    t0 = Clock::now();
    for (int i = 0; i < kSyncs; ++i) rt::stream_synchronize(s);
    std::printf("stream_synchronize on an idle stream: %.3f us\n", us_since(t0) / kSyncs);
    // Worker asleep: wake-up latency dominates.
    double cold = 0;
    for (int i = 0; i < 200; ++i) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      auto t1 = Clock::now();
      rt::launch(s, "empty", {}, [] {});
      rt::stream_synchronize(s);
      cold += us_since(t1);
    }
    std::printf("launch + stream_synchronize round trip (sleeping worker): %.3f us\n", cold / 200);
  }

  bench_host_to_device(s);
  rt::event_destroy(e);
  rt::event_destroy(u);
  rt::free(d);
  rt::stream_destroy(s);
  return 0;
}

}  // namespace
}  // namespace tpu_test

TEST_MODE(bench, "--bench", "run the benchmarks (host-side costs of the hot paths)") {
  return tpu_test::run_benchmarks();
}
