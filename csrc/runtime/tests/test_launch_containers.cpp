// The launch path's allocation-free containers (SmallVector, TaskBody) and
// the per-thread allocation lookup cache behind launch().
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/small_vector.h"
#include "runtime/task_body.h"
#include "test_util.h"

using namespace tpu_test;

namespace {

// Counts live instances, so a leak or a double destruction shows.
struct Tracked {
  static inline int live = 0;
  std::string s;
  explicit Tracked(std::string v = "") : s(std::move(v)) { ++live; }
  Tracked(const Tracked& o) : s(o.s) { ++live; }
  Tracked(Tracked&& o) noexcept : s(std::move(o.s)) { ++live; }
  Tracked& operator=(const Tracked&) = default;
  Tracked& operator=(Tracked&&) noexcept = default;
  ~Tracked() { --live; }
};

}  // namespace

TEST(small_vector_inline_heap_copy_move) {
  {
    torch_tpu::SmallVector<Tracked, 2> v;
    v.emplace_back("a");
    v.emplace_back("b");
    CHECK_EQ(v.capacity(), size_t{2});  // still inline
    v.emplace_back("a long string that does not fit in the small-string buffer");
    CHECK(v.capacity() > 2);  // moved to the heap
    CHECK_EQ(Tracked::live, 3);
    v.insert(v.begin() + 1, Tracked("x"));
    CHECK_EQ(v.size(), size_t{4});
    CHECK(v[0].s == "a" && v[1].s == "x" && v[2].s == "b");

    torch_tpu::SmallVector<Tracked, 2> copy = v;
    CHECK_EQ(Tracked::live, 8);
    torch_tpu::SmallVector<Tracked, 2> moved = std::move(copy);  // heap: the buffer is taken
    CHECK(copy.empty());
    CHECK_EQ(moved.size(), size_t{4});
    CHECK_EQ(Tracked::live, 8);

    torch_tpu::SmallVector<Tracked, 2> small;
    small.emplace_back("s");
    torch_tpu::SmallVector<Tracked, 2> small_moved = std::move(small);  // inline: elements move
    CHECK(small.empty());
    CHECK(small_moved.size() == 1 && small_moved[0].s == "s");
    moved = std::move(small_moved);
    CHECK(moved.size() == 1 && moved[0].s == "s");
    CHECK_EQ(Tracked::live, 5);
  }
  CHECK_EQ(Tracked::live, 0);

  torch_tpu::SmallVector<int64_t, 3> from_vector = std::vector<int64_t>{1, 2, 3, 4};
  CHECK(from_vector.vec() == (std::vector<int64_t>{1, 2, 3, 4}));
  from_vector.resize(2);
  CHECK(from_vector == (torch_tpu::SmallVector<int64_t, 3>{1, 2}));
}

TEST(task_body_inline_heap_and_empty) {
  auto token = std::make_shared<int>(7);
  int calls = 0;
  {
    rt::TaskBody small([token, &calls] { calls += *token; });
    CHECK_EQ(token.use_count(), long{2});
    rt::TaskBody moved = std::move(small);
    CHECK(!small);
    CHECK_EQ(token.use_count(), long{2});  // moved, not copied
    moved();
    CHECK_EQ(calls, 7);

    char big[rt::TaskBody::kInlineBytes + 64] = {};
    big[0] = 2;
    rt::TaskBody heap([token, big, &calls] { calls += big[0]; });  // too big: on the heap
    rt::TaskBody heap_moved = std::move(heap);
    heap_moved();
    CHECK_EQ(calls, 9);
    CHECK_EQ(token.use_count(), long{3});
  }
  CHECK_EQ(token.use_count(), long{1});  // every capture destroyed exactly once

  std::function<void()> empty;
  rt::TaskBody from_empty(empty);
  CHECK(!from_empty);
  // launch() refuses an empty body with kInvalidValue, launching nothing.
  const uint64_t before = rt::launch_count();
  CHECK_STATUS(rt::launch(nullptr, "empty", {}, std::move(from_empty)), rt::Status::kInvalidValue);
  CHECK_EQ(rt::launch_count(), before);
}

// A launch names a buffer (its lookup is cached on this thread), the buffer
// is freed, its record goes to another allocation (d, placed in an older
// one-page hole) and its range to a new one (b, best fit): the next launch
// naming b must resolve b, not the cached record (now d's), or strict mode
// would open d's pages and the kernel writing b would fault.
TEST(lookup_cache_survives_free_and_reuse) {
  StrictScope strict(true);
  const size_t page = 4096, n = 3 * page;
  for (int round = 0; round < 3; ++round) {
    void *hole = nullptr, *g1 = nullptr, *a = nullptr, *g2 = nullptr;
    CHECK_OK(rt::malloc(0, page, &hole));
    CHECK_OK(rt::malloc(0, page, &g1));  // guards keep the holes apart
    CHECK_OK(rt::malloc(0, n, &a));
    CHECK_OK(rt::malloc(0, page, &g2));
    CHECK_OK(rt::free(hole));
    CHECK_OK(rt::launch(nullptr, "fill_a", {a}, [a, n] { std::memset(a, 1, n); }));
    CHECK_OK(rt::launch(nullptr, "fill_a_again", {a}, [a, n] { std::memset(a, 2, n); }));
    CHECK_OK(rt::stream_synchronize(nullptr));
    CHECK_OK(rt::free(a));

    void *d = nullptr, *b = nullptr;
    CHECK_OK(rt::malloc(0, page, &d));  // the one-page hole; a's recycled record
    CHECK_OK(rt::malloc(0, n, &b));     // a's range
    CHECK(b == a && d == hole);         // the layout this test relies on
    CHECK_OK(rt::launch(nullptr, "fill_b", {b}, [b, n] { std::memset(b, 3, n); }));
    CHECK_OK(rt::stream_synchronize(nullptr));
    const std::vector<unsigned char> got = read_device(b, n);
    CHECK(got.front() == 3 && got.back() == 3);
    for (void* p : {b, d, g1, g2}) CHECK_OK(rt::free(p));
  }
}
