// The staging cache behind memcpy_async from pageable memory: size classes,
// reuse, the byte and buffer bounds, eviction order, thread safety, and that
// repeated memcpy_async calls reuse one buffer without breaking the rule
// that the caller's buffer is free as soon as the call returns.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "runtime/staging_cache.h"
#include "test_util.h"

using namespace tpu_test;
using rt::MemcpyKind;
using rt::detail::StagingCache;

TEST(staging_capacity_classes) {
  CHECK_EQ(StagingCache::capacity_for(1), size_t{4096});
  CHECK_EQ(StagingCache::capacity_for(4096), size_t{4096});
  CHECK_EQ(StagingCache::capacity_for(4097), size_t{8192});
  CHECK_EQ(StagingCache::capacity_for((size_t{64} << 20) - 5), size_t{64} << 20);
  CHECK_EQ(StagingCache::capacity_for((size_t{64} << 20) + 1), size_t{128} << 20);
}

TEST(staging_buffers_are_reused_by_size_class) {
  StagingCache cache(size_t{1} << 20, 8);
  char* first = nullptr;
  {
    auto a = cache.take(100);
    CHECK(a != nullptr);
    first = a.get();
    std::memset(a.get(), 1, 4096);  // the whole capacity is usable
  }
  auto st = cache.stats();
  CHECK_EQ(st.fresh, uint64_t{1});
  CHECK_EQ(st.idle_buffers, size_t{1});
  CHECK_EQ(st.idle_bytes, size_t{4096});
  {
    auto b = cache.take(4000);  // same class: the same buffer
    CHECK(b.get() == first);
    auto c = cache.take(5000);  // larger class: a new one
    CHECK(c.get() != first);
  }
  st = cache.stats();
  CHECK_EQ(st.fresh, uint64_t{2});
  CHECK_EQ(st.reused, uint64_t{1});
  CHECK_EQ(st.idle_buffers, size_t{2});
  cache.clear();
  CHECK_EQ(cache.stats().idle_buffers, size_t{0});
  CHECK_EQ(cache.stats().idle_bytes, size_t{0});
}

TEST(staging_cache_stays_within_its_bounds) {
  // Bytes: 3 buffers of 8 KiB fit in 24 KiB, the 4th returned evicts the
  // least recently returned one.
  StagingCache by_bytes(3 * 8192, 100);
  {
    std::vector<std::shared_ptr<char>> held;
    for (int i = 0; i < 4; ++i) held.push_back(by_bytes.take(8192));
    char* oldest = held[0].get();
    char* newest = held[3].get();
    for (auto& h : held) h.reset();  // returned in order 0, 1, 2, 3
    auto st = by_bytes.stats();
    CHECK_EQ(st.idle_buffers, size_t{3});
    CHECK_EQ(st.idle_bytes, size_t{3 * 8192});
    auto again = by_bytes.take(8192);
    CHECK(again.get() == newest);  // most recently returned first
    CHECK(again.get() != oldest);
  }
  // Count: at most two idle buffers whatever their size.
  StagingCache by_count(size_t{1} << 30, 2);
  {
    std::vector<std::shared_ptr<char>> held;
    for (size_t n : {100, 10000, 100000, 1000000}) held.push_back(by_count.take(n));
    for (auto& h : held) h.reset();
  }
  CHECK_EQ(by_count.stats().idle_buffers, size_t{2});
  CHECK_EQ(by_count.stats().idle_bytes, size_t{131072 + 1048576});  // the two returned last
  // A buffer larger than the whole cache is freed, not cached.
  StagingCache small(16384, 8);
  { auto keep = small.take(4096); }
  { auto big = small.take(20000); }
  CHECK_EQ(small.stats().idle_buffers, size_t{1});
  CHECK_EQ(small.stats().idle_bytes, size_t{4096});
}

TEST(staging_cache_is_thread_safe) {
  StagingCache cache(64 * 1024, 6);
  constexpr int kThreads = 4, kRounds = 2000;
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&cache, &bad, t] {
      for (int i = 0; i < kRounds; ++i) {
        const size_t n = size_t{1} + static_cast<size_t>((i * 7919 + t * 104729) % 20000);
        auto buf = cache.take(n);
        // Each buffer has one owner at a time: the bytes stay ours.
        const char mark = static_cast<char>(t * 31 + i);
        std::memset(buf.get(), mark, n);
        std::this_thread::yield();
        if (buf.get()[0] != mark || buf.get()[n - 1] != mark) bad.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK_EQ(bad.load(), 0);
  const auto st = cache.stats();
  CHECK_EQ(st.fresh + st.reused, uint64_t{kThreads * kRounds});
  CHECK(st.reused > 0);
  CHECK(st.idle_buffers <= 6);
  CHECK(st.idle_bytes <= size_t{64 * 1024});
}

TEST(repeated_memcpy_async_reuses_one_staging_buffer) {
  StreamHolder s;
  const size_t n = (size_t{3} << 20) + 17;
  DeviceBuf d(0, n);
  std::vector<unsigned char> src = pattern(n, 21);
  auto& cache = rt::detail::staging_cache();
  CHECK_OK(rt::memcpy_async(d.p, src.data(), n, MemcpyKind::kHostToDevice, s.s));
  CHECK_OK(rt::stream_synchronize(s.s));  // the buffer is back in the cache now
  const auto before = cache.stats();
  for (int i = 0; i < 10; ++i) {
    src[static_cast<size_t>(i)] = static_cast<unsigned char>(0xF0 + i);
    CHECK_OK(rt::memcpy_async(d.p, src.data(), n, MemcpyKind::kHostToDevice, s.s));
    CHECK_OK(rt::stream_synchronize(s.s));
  }
  const auto after = cache.stats();
  CHECK_EQ(after.fresh, before.fresh);
  CHECK_EQ(after.reused - before.reused, uint64_t{10});
  CHECK(read_device(d.p, n) == src);
}

TEST(staging_buffer_is_not_reused_while_its_copy_is_queued) {
  // Both copies wait in the queue; each must keep its own staged bytes.
  SlowScope slow(5000);
  StreamHolder s;
  const size_t n = 10000;
  DeviceBuf d1(0, n), d2(0, n);
  std::vector<unsigned char> src(n, 1);
  CHECK_OK(rt::memcpy_async(d1.p, src.data(), n, MemcpyKind::kHostToDevice, s.s));
  std::fill(src.begin(), src.end(), 2);
  CHECK_OK(rt::memcpy_async(d2.p, src.data(), n, MemcpyKind::kHostToDevice, s.s));
  std::fill(src.begin(), src.end(), 3);
  CHECK_OK(rt::stream_synchronize(s.s));
  CHECK(read_device(d1.p, n) == std::vector<unsigned char>(n, 1));
  CHECK(read_device(d2.p, n) == std::vector<unsigned char>(n, 2));
}
