// Many host threads allocating, copying, launching and synchronizing at
// once on several streams and devices.
#include <atomic>
#include <thread>
#include <vector>

#include "test_util.h"

using namespace tpu_test;
using rt::MemcpyKind;

TEST(many_host_threads) {
  constexpr int kThreads = 8;
  constexpr int kIters = 40;
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &bad] {
      const int dev = t % rt::device_count();
      if (rt::set_device(dev) != rt::Status::kSuccess) ++bad;
      rt::Stream s = nullptr;
      if (rt::stream_create(dev, -(t % 2), &s) != rt::Status::kSuccess) {
        ++bad;
        return;
      }
      rt::Event e = nullptr;
      rt::event_create(&e);
      for (int i = 0; i < kIters; ++i) {
        const size_t n = 1000 + static_cast<size_t>((t * 131 + i * 17) % 5000);
        std::vector<int32_t> host(n), back(n);
        for (size_t k = 0; k < n; ++k) host[k] = static_cast<int32_t>(k + static_cast<size_t>(i));
        void* d = nullptr;
        if (rt::malloc(dev, n * 4, &d) != rt::Status::kSuccess) {
          ++bad;
          continue;
        }
        rt::memcpy_async(d, host.data(), n * 4, MemcpyKind::kHostToDevice, s);
        // Add t to every element on the device.
        rt::launch(s, "add", {d}, [d, n, t] {
          auto* p = static_cast<int32_t*>(d);
          rt::parallel_for(0, static_cast<int64_t>(n), 256, [&](int64_t b, int64_t en) {
            for (int64_t k = b; k < en; ++k) p[k] += t;
          });
        });
        rt::event_record(e, s);
        if (i % 2) rt::stream_wait_event(rt::default_stream(dev), e);
        if (rt::memcpy_async(back.data(), d, n * 4, MemcpyKind::kDeviceToHost, s) != rt::Status::kSuccess) ++bad;
        if (rt::event_synchronize(e) != rt::Status::kSuccess) ++bad;
        for (size_t k = 0; k < n; ++k) {
          if (back[k] != host[k] + t) {
            ++bad;
            break;
          }
        }
        if (rt::free(d) != rt::Status::kSuccess) ++bad;
      }
      if (rt::stream_synchronize(s) != rt::Status::kSuccess) ++bad;
      rt::event_destroy(e);
      rt::stream_destroy(s);
    });
  }
  for (auto& th : threads) th.join();
  CHECK_EQ(bad.load(), 0);
  for (int d = 0; d < rt::device_count(); ++d) CHECK_OK(rt::device_synchronize(d));
}

TEST(concurrent_enqueue_to_one_stream) {
  // Several host threads append to one stream; every task runs once.
  rt::Stream s = nullptr;
  CHECK_OK(rt::stream_create(0, 0, &s));
  std::atomic<int> count{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 5000; ++i) rt::launch(s, "inc", {}, [&] { count.fetch_add(1, std::memory_order_relaxed); });
      rt::stream_synchronize(s);
    });
  }
  for (auto& th : threads) th.join();
  CHECK_OK(rt::stream_synchronize(s));
  CHECK_EQ(count.load(), 20000);
  CHECK_OK(rt::stream_destroy(s));
}

TEST(strict_mode_switching_while_kernels_run) {
  // One thread flips strict mode while others run kernels that write the
  // buffers they name: a wrong protection would crash the test binary.
  const bool was_strict = rt::strict_mode();
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([t, &stop, &bad] {
      const int dev = t % rt::device_count();
      rt::Stream s = nullptr;
      rt::stream_create(dev, 0, &s);
      void* d = nullptr;
      rt::malloc(dev, 8192, &d);
      int iter = 0;
      while (!stop.load()) {
        const int v = ++iter;
        rt::launch(s, "fill", {d}, [d, v] {
          auto* p = static_cast<int*>(d);
          for (int i = 0; i < 2048; ++i) p[i] = v;
        });
        int out = 0;
        rt::memcpy_async(&out, static_cast<int*>(d) + 2047, sizeof out, MemcpyKind::kDeviceToHost, s);
        if (out != v) ++bad;
      }
      rt::stream_synchronize(s);
      rt::free(d);
      rt::stream_destroy(s);
    });
  }
  for (int i = 0; i < 40; ++i) {
    rt::set_strict_mode(i % 2 == 0);
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  stop = true;
  for (auto& th : threads) th.join();
  rt::set_strict_mode(was_strict);
  CHECK_EQ(bad.load(), 0);
}
