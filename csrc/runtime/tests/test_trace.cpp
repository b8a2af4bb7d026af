// Trace records (runtime/trace.h): one per stream task launched while
// tracing is on, none otherwise; the launch's correlation, stream lane and
// a copy's bytes and direction.
#include <cstring>
#include <vector>

#include "runtime/trace.h"
#include "test_util.h"

using namespace tpu_test;

TEST(trace_records_only_while_on) {
  rt::Stream side = nullptr;
  CHECK_OK(rt::stream_create(0, 0, &side));
  const uint64_t before = rt::trace_record_count();
  CHECK_OK(rt::launch(nullptr, "untraced", {}, [] {}));
  CHECK_OK(rt::device_synchronize(0));
  CHECK_EQ(rt::trace_record_count(), before);

  void* dev = nullptr;
  CHECK_OK(rt::malloc(0, 4096, &dev));
  std::vector<char> host(4096, 7);
  rt::trace_start();
  CHECK(rt::tracing());
  rt::trace_push_correlation(41);
  const int64_t t0 = rt::trace_clock_ns();
  CHECK_OK(rt::memcpy_async(dev, host.data(), 4096, rt::MemcpyKind::kHostToDevice, nullptr));
  // The memset below writes `dev` on another stream: it must come after the
  // copy (without this, the two streams raced: ThreadSanitizer found it).
  CHECK_OK(rt::device_synchronize(0));
  rt::trace_push_correlation(42);  // a nested op: its launches take the inner id
  CHECK_OK(rt::launch(side, "traced", {dev}, [] {}));
  rt::trace_pop_correlation();
  CHECK_OK(rt::memset_async(dev, 0, 100, side));
  rt::trace_pop_correlation();
  rt::trace_stop();  // waits for the queued work
  CHECK(!rt::tracing());
  CHECK_OK(rt::launch(side, "after", {}, [] {}));
  CHECK_OK(rt::device_synchronize(0));

  std::vector<rt::TraceRecord> records = rt::trace_take();
  CHECK_EQ(records.size(), size_t{3});
  const rt::TraceRecord* copy = nullptr;
  const rt::TraceRecord* kernel = nullptr;
  const rt::TraceRecord* fill = nullptr;
  for (const auto& r : records) {
    if (r.kind == rt::TraceKind::kMemcpyHtoD) copy = &r;
    if (r.kind == rt::TraceKind::kKernel) kernel = &r;
    if (r.kind == rt::TraceKind::kMemset) fill = &r;
  }
  CHECK(copy && kernel && fill);
  CHECK_EQ(copy->bytes, uint64_t{4096});
  CHECK_EQ(copy->correlation, uint64_t{41});
  CHECK_EQ(copy->stream, 0);
  CHECK_EQ(kernel->name, std::string("traced"));
  CHECK_EQ(kernel->correlation, uint64_t{42});
  CHECK(kernel->stream != 0);
  CHECK_EQ(fill->bytes, uint64_t{100});
  CHECK_EQ(fill->correlation, uint64_t{41});
  for (const auto& r : records) {
    CHECK(t0 <= r.launch_begin_ns && r.launch_begin_ns <= r.launch_end_ns);
    CHECK(r.launch_begin_ns <= r.start_ns && r.start_ns <= r.end_ns);
  }
  CHECK(rt::trace_take().empty());
  CHECK_OK(rt::free(dev));
  CHECK_OK(rt::stream_destroy(side));
}
