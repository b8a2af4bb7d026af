// fill: every dtype, contiguous and strided, pattern and all-bytes-equal
// values, stride-0 and empty layouts.
#include <cstring>
#include <vector>

#include "testing/harness.h"
#include "kernels/copy/copy.h"

using namespace torch_tpu::kernels;

namespace {

TensorDesc make_desc(void* p, DType t, std::vector<int64_t> sizes, std::vector<int64_t> strides) {
  TensorDesc d;
  d.data = p;
  d.dtype = t;
  d.sizes = std::move(sizes);
  d.strides = std::move(strides);
  return d;
}

// The value 3.5 - 1i (or what it becomes) in dtype t.
std::vector<unsigned char> value_of(DType t, double re, double im) {
  std::vector<unsigned char> v(dtype_size(t));
  const double z[2] = {re, im};
  convert_element(t, v.data(), DType::kComplex128, z);
  return v;
}

// Fills `sizes`/`strides` at `offset` in a buffer of `storage` elements
// pre-set to 0xCD, then checks exactly the addressed elements hold `value`.
int check_fill(DType t, int64_t storage, int64_t offset, std::vector<int64_t> sizes,
               std::vector<int64_t> strides, const std::vector<unsigned char>& value) {
  const size_t es = dtype_size(t);
  std::vector<unsigned char> buf(storage * es, 0xCD);
  fill(make_desc(buf.data() + offset * es, t, sizes, strides), value.data());

  std::vector<char> hit(storage, 0);
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  std::vector<int64_t> idx(sizes.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t o = offset;
    for (size_t d = 0; d < sizes.size(); ++d) o += idx[d] * strides[d];
    hit[o] = 1;
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
    }
  }
  int bad = 0;
  const std::vector<unsigned char> untouched(es, 0xCD);
  for (int64_t i = 0; i < storage; ++i) {
    const unsigned char* want = hit[i] ? value.data() : untouched.data();
    bad += std::memcmp(buf.data() + i * es, want, es) != 0;
  }
  return bad;
}

}  // namespace

TEST(fill_every_dtype_contiguous_and_strided) {
  for (int i = 0; i < kNumDTypes; ++i) {
    const DType t = static_cast<DType>(i);
    for (const auto& v : {value_of(t, 3.5, -1.0), value_of(t, 0.0, 0.0), value_of(t, -1.0, 0.0)}) {
      CHECK_MSG(check_fill(t, 1003, 0, {1003}, {1}, v) == 0, dtype_name(t) << " contiguous");
      CHECK_MSG(check_fill(t, 1100, 5, {10, 7}, {100, 3}, v) == 0, dtype_name(t) << " strided");
      CHECK_MSG(check_fill(t, 200, 1, {6, 9}, {10, 1}, v) == 0, dtype_name(t) << " padded rows");
      CHECK_MSG(check_fill(t, 60, 0, {4, 5}, {1, 12}, v) == 0, dtype_name(t) << " transposed");
      CHECK_MSG(check_fill(t, 300000, 0, {300000}, {1}, v) == 0, dtype_name(t) << " large");
    }
  }
}

TEST(fill_special_layouts) {
  const auto v = value_of(DType::kInt32, 7, 0);
  CHECK(check_fill(DType::kInt32, 10, 3, {5, 4}, {0, 1}, v) == 0);  // stride-0 dim
  CHECK(check_fill(DType::kInt32, 10, 3, {5, 4}, {0, 0}, v) == 0);  // one element, broadcast
  CHECK(check_fill(DType::kInt32, 4, 2, {}, {}, v) == 0);           // 0-dim
  CHECK(check_fill(DType::kInt32, 4, 0, {3, 0}, {1, 1}, v) == 0);   // empty: nothing written
  fill(make_desc(nullptr, DType::kInt32, {0}, {1}), v.data());      // empty, no storage
  CHECK_THROWS(fill(make_desc(nullptr, DType::kInt32, {2}, {1}), v.data()));
  CHECK_THROWS(fill(make_desc(nullptr, DType::kInt32, {2}, {}), v.data()));
}

TEST(fill_large_64MiB) {
  const int64_t n = 16 * 1024 * 1024;
  std::vector<float> a(n, 1.0f);
  const float pattern = 2.75f, zero = 0.0f;
  fill(make_desc(a.data(), DType::kFloat32, {n}, {1}), &pattern);
  int64_t bad = 0;
  for (float x : a) bad += x != pattern;
  fill(make_desc(a.data(), DType::kFloat32, {n / 2}, {2}), &zero);  // every other element
  for (int64_t i = 0; i < n; ++i) bad += a[i] != (i % 2 ? pattern : 0.0f);
  CHECK_EQ(bad, 0);
}
