// parallel_for: coverage, sums, exceptions, inline cases, priorities.
#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "test_util.h"

using namespace tpu_test;
using rt::Status;

TEST(parallel_for_covers_range_exactly_once) {
  const int64_t n = 1000003;
  std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
  std::atomic<int64_t> sum{0};
  std::atomic<int> chunks{0};
  bool min_grain_ok = true;
  CHECK_OK(rt::launch(nullptr, "cover", {}, [&] {
    rt::parallel_for(0, n, 1000, [&](int64_t b, int64_t e) {
      if (e - b < 1000 && e != n) min_grain_ok = false;
      int64_t local = 0;
      for (int64_t i = b; i < e; ++i) {
        hits[static_cast<size_t>(i)].fetch_add(1, std::memory_order_relaxed);
        local += i;
      }
      sum += local;
      ++chunks;
    });
  }));
  CHECK_OK(rt::stream_synchronize(nullptr));
  bool once = true;
  for (auto& h : hits) once &= h.load() == 1;
  CHECK(once);
  CHECK_EQ(sum.load(), n * (n - 1) / 2);
  CHECK(min_grain_ok);
  if (rt::current_core_count() >= 1) CHECK(chunks.load() >= 1);
  // Offsets ranges work too.
  std::atomic<int64_t> sum2{0};
  CHECK_OK(rt::launch(nullptr, "offset", {}, [&] {
    rt::parallel_for(-500, 1500, 7, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) sum2 += i;
    });
  }));
  CHECK_OK(rt::stream_synchronize(nullptr));
  CHECK_EQ(sum2.load(), int64_t{(1499 * 1500) / 2 - (500 * 501) / 2});
}

TEST(parallel_for_uses_several_threads) {
  rt::DeviceProperties props;
  CHECK_OK(rt::get_device_properties(0, &props));
  if (props.core_count < 2) return;
  std::atomic<int> inside{0}, max_inside{0};
  CHECK_OK(rt::launch(nullptr, "concurrency", {}, [&] {
    rt::parallel_for(0, 64, 1, [&](int64_t, int64_t) {
      int now = ++inside;
      int m = max_inside.load();
      while (now > m && !max_inside.compare_exchange_weak(m, now)) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      --inside;
    });
  }));
  CHECK_OK(rt::stream_synchronize(nullptr));
  CHECK(max_inside.load() >= 2);
}

TEST(parallel_for_inline_cases) {
  // On the host (outside a launched body): one inline call.
  std::thread::id caller = std::this_thread::get_id(), ran_on;
  int calls = 0;
  rt::parallel_for(0, 1000000, 1, [&](int64_t b, int64_t e) {
    ++calls;
    ran_on = std::this_thread::get_id();
    CHECK_EQ(b, int64_t{0});
    CHECK_EQ(e, int64_t{1000000});
  });
  CHECK_EQ(calls, 1);
  CHECK(ran_on == caller);
  rt::parallel_for(5, 5, 1, [&](int64_t, int64_t) { ++calls; });  // empty
  CHECK_EQ(calls, 1);
  // Inside a body: range <= grain runs inline; nested calls run inline.
  int small_calls = 0;
  std::atomic<int> nested_calls_max{0}, nested_total{0};  // written by several workers
  CHECK_OK(rt::launch(nullptr, "inline", {}, [&] {
    rt::parallel_for(0, 100, 100, [&](int64_t, int64_t) { ++small_calls; });
    rt::parallel_for(0, 8, 1, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        int calls_here = 0;
        rt::parallel_for(0, 1000, 1, [&](int64_t bb, int64_t ee) {
          ++calls_here;
          nested_total += static_cast<int>(ee - bb);
        });
        int m = nested_calls_max.load();
        while (calls_here > m && !nested_calls_max.compare_exchange_weak(m, calls_here)) {
        }
      }
    });
  }));
  CHECK_OK(rt::stream_synchronize(nullptr));
  CHECK_EQ(small_calls, 1);
  CHECK_EQ(nested_calls_max.load(), 1);
  CHECK_EQ(nested_total.load(), 8 * 1000);
}

TEST(parallel_for_exceptions_propagate) {
  std::string caught;
  std::atomic<int> completed_chunks{0};
  CHECK_OK(rt::launch(nullptr, "pf_throw", {}, [&] {
    try {
      rt::parallel_for(0, 1000, 10, [&](int64_t b, int64_t e) {
        if (b <= 500 && 500 < e) throw std::runtime_error("chunk failed");
        ++completed_chunks;
      });
    } catch (const std::exception& ex) {
      caught = ex.what();
    }
  }));
  CHECK_OK(rt::stream_synchronize(nullptr));
  CHECK_EQ(caught, std::string("chunk failed"));
  // Uncaught: becomes the kernel's sticky error.
  CHECK_OK(rt::launch(nullptr, "pf_kernel", {}, [&] {
    rt::parallel_for(0, 1000, 10, [&](int64_t b, int64_t) {
      if (b == 0) throw std::runtime_error("bad chunk");
    });
  }));
  CHECK_STATUS(rt::stream_synchronize(nullptr), Status::kKernelFailure);
  CHECK_CONTAINS(rt::last_error_message(), "kernel 'pf_kernel' failed on tpu:0: bad chunk");
}

TEST(parallel_for_priorities_keep_results_correct) {
  // High- and low-priority streams on two devices run parallel_for at once.
  std::vector<rt::Stream> streams;
  for (int d = 0; d < rt::device_count(); ++d) {
    for (int prio : {0, -1}) {
      rt::Stream s = nullptr;
      CHECK_OK(rt::stream_create(d, prio, &s));
      streams.push_back(s);
    }
  }
  const int64_t n = 200000;
  std::vector<std::atomic<int64_t>> sums(streams.size());
  for (int round = 0; round < 10; ++round) {
    for (size_t i = 0; i < streams.size(); ++i) {
      CHECK_OK(rt::launch(streams[i], "sum", {}, [&sums, i, n] {
        rt::parallel_for(0, n, 1000, [&](int64_t b, int64_t e) {
          int64_t local = 0;
          for (int64_t k = b; k < e; ++k) local += k;
          sums[i] += local;
        });
      }));
    }
  }
  for (rt::Stream s : streams) CHECK_OK(rt::stream_synchronize(s));
  for (auto& s : sums) CHECK_EQ(s.load(), 10 * (n * (n - 1) / 2));
  for (rt::Stream s : streams) CHECK_OK(rt::stream_destroy(s));
}
