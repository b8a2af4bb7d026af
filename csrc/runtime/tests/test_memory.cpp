// Device and pinned memory: alignment, budget, OOM, accounting, attributes.
#include <cstdint>
#include <cstring>

#include "test_util.h"

using namespace tpu_test;
using rt::Status;

namespace {
constexpr size_t kPage = 4096;
}

TEST(malloc_alignment_and_zero_size) {
  void* p = reinterpret_cast<void*>(1);
  CHECK_OK(rt::malloc(0, 0, &p));
  CHECK(p == nullptr);
  CHECK_OK(rt::free(nullptr));
  for (size_t n : {size_t{1}, size_t{7}, size_t{4095}, size_t{4096}, size_t{4097}, size_t{1} << 20}) {
    void* q = nullptr;
    CHECK_OK(rt::malloc(0, n, &q));
    CHECK(q != nullptr);
    CHECK_EQ(reinterpret_cast<uintptr_t>(q) % kPage, uintptr_t{0});
    CHECK_OK(rt::free(q));
  }
  CHECK_STATUS(rt::malloc(rt::device_count(), 16, &p), Status::kInvalidDevice);
  CHECK_STATUS(rt::malloc(0, 16, nullptr), Status::kInvalidValue);
}

TEST(mem_get_info_accounting) {
  size_t free0 = 0, total = 0;
  CHECK_OK(rt::mem_get_info(0, &free0, &total));
  rt::DeviceProperties props;
  CHECK_OK(rt::get_device_properties(0, &props));
  CHECK_EQ(total, props.total_memory);
  void *a = nullptr, *b = nullptr;
  CHECK_OK(rt::malloc(0, 1, &a));  // page rounded
  size_t free1 = 0;
  CHECK_OK(rt::mem_get_info(0, &free1, nullptr));
  CHECK_EQ(free0 - free1, kPage);
  CHECK_OK(rt::malloc(0, 3 * kPage + 5, &b));
  CHECK_OK(rt::mem_get_info(0, &free1, nullptr));
  CHECK_EQ(free0 - free1, 5 * kPage);
  CHECK_OK(rt::free(a));
  CHECK_OK(rt::free(b));
  CHECK_OK(rt::mem_get_info(0, &free1, nullptr));
  CHECK_EQ(free1, free0);
}

TEST(out_of_memory_and_recovery) {
  size_t free0 = 0, total = 0;
  CHECK_OK(rt::mem_get_info(0, &free0, &total));
  void* p = nullptr;
  CHECK_STATUS(rt::malloc(0, total + 1, &p), Status::kOutOfMemory);
  CHECK(p == nullptr);
  CHECK_CONTAINS(rt::last_error_message(), "tpu:0 out of memory");
  CHECK_CONTAINS(rt::last_error_message(), std::to_string(total + 1));
  CHECK_CONTAINS(rt::last_error_message(), std::to_string(total) + " total");

  // Take (almost) the whole budget; the next page does not fit.
  const size_t big_bytes = free0 / kPage * kPage;
  void* big = nullptr;
  CHECK_OK(rt::malloc(0, big_bytes, &big));
  size_t free1 = 1;
  CHECK_OK(rt::mem_get_info(0, &free1, nullptr));
  CHECK(free1 < kPage);
  CHECK_STATUS(rt::malloc(0, kPage, &p), Status::kOutOfMemory);
  CHECK_CONTAINS(rt::last_error_message(), "bytes free of");
  // Other devices have their own budget.
  if (rt::device_count() > 1) {
    void* q = nullptr;
    CHECK_OK(rt::malloc(1, kPage, &q));
    CHECK_OK(rt::free(q));
  }
  CHECK_OK(rt::free(big));
  // Still usable afterwards, and the freed range coalesced back.
  CHECK_OK(rt::malloc(0, big_bytes, &big));
  CHECK_OK(rt::free(big));
  CHECK_OK(rt::malloc(0, 100, &p));
  std::vector<unsigned char> data = pattern(100, 3);
  CHECK_OK(rt::memcpy(p, data.data(), 100, rt::MemcpyKind::kHostToDevice));
  CHECK(read_device(p, 100) == data);
  CHECK_OK(rt::free(p));
  CHECK_OK(rt::mem_get_info(0, &free1, nullptr));
  CHECK_EQ(free1, free0);
}

TEST(allocator_reuses_and_coalesces) {
  // Free a middle block and reuse it; then free everything and take one
  // block spanning all three (coalescing).
  void *a, *b, *c, *d;
  CHECK_OK(rt::malloc(0, 3 * kPage, &a));
  CHECK_OK(rt::malloc(0, 3 * kPage, &b));
  CHECK_OK(rt::malloc(0, 3 * kPage, &c));
  CHECK_OK(rt::free(b));
  CHECK_OK(rt::malloc(0, 2 * kPage, &d));
  CHECK(d == b);  // best fit takes the hole
  CHECK_OK(rt::free(d));
  CHECK_OK(rt::free(a));
  CHECK_OK(rt::free(c));
  void* all = nullptr;
  CHECK_OK(rt::malloc(0, 9 * kPage, &all));
  CHECK(all == a);
  CHECK_OK(rt::free(all));
}

TEST(invalid_pointer_errors) {
  int on_stack = 0;
  CHECK_STATUS(rt::free(&on_stack), Status::kInvalidDevicePointer);
  void* p = nullptr;
  CHECK_OK(rt::malloc(0, 2 * kPage, &p));
  CHECK_STATUS(rt::free(static_cast<char*>(p) + 8), Status::kInvalidDevicePointer);
  CHECK_CONTAINS(rt::last_error_message(), "not the base of a live device allocation");
  CHECK_OK(rt::free(p));
  CHECK_STATUS(rt::free(p), Status::kInvalidDevicePointer);  // double free
  CHECK_STATUS(rt::free_host(&on_stack), Status::kInvalidHostPointer);
  void* h = nullptr;
  CHECK_OK(rt::malloc_host(100, &h));
  CHECK_STATUS(rt::free_host(static_cast<char*>(h) + 1), Status::kInvalidHostPointer);
  CHECK_STATUS(rt::free(h), Status::kInvalidDevicePointer);
  CHECK_OK(rt::free_host(h));
  CHECK_STATUS(rt::free_host(h), Status::kInvalidHostPointer);
  CHECK_OK(rt::free_host(nullptr));
}

TEST(pointer_attributes) {
  rt::PointerAttributes attr;
  int on_stack = 0;
  CHECK_OK(rt::pointer_get_attributes(&on_stack, &attr));
  CHECK(attr.type == rt::MemoryType::kHostPageable);
  CHECK_EQ(attr.device, -1);

  const int dev = rt::device_count() > 1 ? 1 : 0;
  void* d = nullptr;
  CHECK_OK(rt::malloc(dev, 3 * kPage + 10, &d));
  CHECK_OK(rt::pointer_get_attributes(static_cast<char*>(d) + kPage + 3, &attr));
  CHECK(attr.type == rt::MemoryType::kDevice);
  CHECK_EQ(attr.device, dev);
  CHECK(attr.base == d);
  CHECK_EQ(attr.size, 3 * kPage + 10);

  void* h = nullptr;
  CHECK_OK(rt::malloc_host(5000, &h));
  CHECK_EQ(reinterpret_cast<uintptr_t>(h) % kPage, uintptr_t{0});
  CHECK_OK(rt::pointer_get_attributes(static_cast<char*>(h) + 4999, &attr));
  CHECK(attr.type == rt::MemoryType::kHostPinned);
  CHECK(attr.base == h);
  CHECK_EQ(attr.size, size_t{5000});
  CHECK_EQ(attr.device, -1);
  CHECK_OK(rt::free_host(h));

  CHECK_OK(rt::free(d));
  // A freed device pointer is not host memory either.
  CHECK_STATUS(rt::pointer_get_attributes(d, &attr), Status::kInvalidDevicePointer);
  CHECK_OK(rt::pointer_get_attributes(nullptr, &attr));
  CHECK(attr.type == rt::MemoryType::kHostPageable);
}

TEST(free_inside_a_kernel) {
  // A kernel may free memory it does not use, but not a buffer it named
  // (that would wait for itself).
  void *used = nullptr, *other = nullptr;
  CHECK_OK(rt::malloc(0, 4096, &used));
  CHECK_OK(rt::malloc(0, 4096, &other));
  Status own = Status::kSuccess, unrelated = Status::kInvalidValue;
  CHECK_OK(rt::launch(nullptr, "freer", {used}, [&] {
    own = rt::free(used);
    unrelated = rt::free(other);
  }));
  CHECK_OK(rt::stream_synchronize(nullptr));
  CHECK_STATUS(own, Status::kInvalidValue);
  CHECK_STATUS(unrelated, Status::kSuccess);
  CHECK_OK(rt::free(used));
}
