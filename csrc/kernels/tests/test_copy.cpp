// copy_strided: every dtype pair on small strided layouts (checked element by
// element against convert_element), the layout special cases, errors, and
// large copies against simple reference loops.
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "testing/harness.h"
#include "kernels/copy/copy.h"

using namespace torch_tpu::kernels;

namespace {

// A storage buffer and a strided view into it.
struct View {
  DType dtype;
  std::vector<unsigned char> storage;  // storage_elems * dtype_size bytes
  int64_t offset;                      // in elements
  std::vector<int64_t> sizes, strides;

  size_t es() const { return dtype_size(dtype); }
  unsigned char* at(int64_t elem) { return storage.data() + elem * es(); }
  TensorDesc desc() {
    TensorDesc t;
    t.data = at(offset);
    t.dtype = dtype;
    t.sizes = sizes;
    t.strides = strides;
    return t;
  }
};

View make_view(DType dt, int64_t storage_elems, int64_t offset, std::vector<int64_t> sizes,
               std::vector<int64_t> strides) {
  return View{dt, std::vector<unsigned char>(storage_elems * dtype_size(dt), 0xAB), offset,
              std::move(sizes), std::move(strides)};
}

// Interesting values: exact small numbers, negatives (wrap for unsigned),
// fractions, out-of-range for narrow types, inf and NaN.
const double kValues[] = {0.0, 1.0, -1.0, 2.5, 3.0, 100.0, -7.25, 0.5, 250.0, 1000.0, -3.75, 42.0,
                          65504.0, 1e-3, -0.0, 70000.0, 1e10, INFINITY, NAN, -1e-40, 123456789.0};
constexpr int kNumValues = sizeof(kValues) / sizeof(kValues[0]);

// Fills every storage element with values (complex ones also get an
// imaginary part, so complex -> bool sees it).
void fill_storage(View& v, int seed) {
  const int64_t n = static_cast<int64_t>(v.storage.size() / v.es());
  for (int64_t i = 0; i < n; ++i) {
    const double re = kValues[(i + seed) % kNumValues];
    const double im = kValues[(i * 7 + seed + 3) % kNumValues];
    const double z[2] = {re, im};
    convert_element(v.dtype, v.at(i), DType::kComplex128, z);
  }
}

// Visits every multi-index of `sizes`, passing the flat element offsets of
// the two views.
template <typename F>
void for_each_index(const std::vector<int64_t>& sizes, const View& a, const View& b, F&& f) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  std::vector<int64_t> idx(sizes.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t oa = a.offset, ob = b.offset;
    for (size_t d = 0; d < sizes.size(); ++d) {
      oa += idx[d] * a.strides[d];
      ob += idx[d] * b.strides[d];
    }
    f(oa, ob);
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
    }
  }
}

// Runs copy_strided(dst, src) and checks every dst element against
// convert_element of the src element, and that nothing outside dst changed.
// Returns the number of mismatches.
int check_copy(View dst, View src, int seed = 0) {
  fill_storage(src, seed);
  const View before = dst;
  copy_strided(dst.desc(), src.desc());
  int bad = 0;
  std::vector<char> written(dst.storage.size() / dst.es(), 0);
  unsigned char want[16];
  for_each_index(dst.sizes, dst, src, [&](int64_t od, int64_t os) {
    convert_element(dst.dtype, want, src.dtype, src.at(os));
    written[od] = 1;
    if (std::memcmp(dst.at(od), want, dst.es()) != 0) ++bad;
  });
  for (size_t i = 0; i < written.size(); ++i) {
    if (!written[i] && std::memcmp(dst.storage.data() + i * dst.es(),
                                   before.storage.data() + i * dst.es(), dst.es()) != 0) {
      ++bad;
    }
  }
  return bad;
}

DType dt(int i) { return static_cast<DType>(i); }

}  // namespace

TEST(every_dtype_pair_non_contiguous_src) {
  for (int d = 0; d < kNumDTypes; ++d) {
    for (int s = 0; s < kNumDTypes; ++s) {
      // src: every other column of a 5x7 buffer from offset 1; dst contiguous.
      View src = make_view(dt(s), 40, 1, {3, 4}, {14, 2});
      View dst = make_view(dt(d), 12, 0, {3, 4}, {4, 1});
      CHECK_MSG(check_copy(dst, src, d) == 0, dtype_name(dt(d)) << " <- " << dtype_name(dt(s)));
    }
  }
}

TEST(every_dtype_pair_transposed_dst) {
  for (int d = 0; d < kNumDTypes; ++d) {
    for (int s = 0; s < kNumDTypes; ++s) {
      View src = make_view(dt(s), 12, 0, {3, 4}, {4, 1});
      View dst = make_view(dt(d), 14, 2, {3, 4}, {1, 3});  // column-major, offset 2
      CHECK_MSG(check_copy(dst, src, s) == 0, dtype_name(dt(d)) << " <- " << dtype_name(dt(s)));
    }
  }
}

TEST(every_dtype_pair_broadcast_src) {
  for (int d = 0; d < kNumDTypes; ++d) {
    for (int s = 0; s < kNumDTypes; ++s) {
      View col = make_view(dt(s), 3, 0, {3, 4}, {1, 0});  // expand a column
      View dst = make_view(dt(d), 12, 0, {3, 4}, {4, 1});
      CHECK_MSG(check_copy(dst, col, 5) == 0, "column " << dtype_name(dt(d)) << " <- " << dtype_name(dt(s)));
      View row = make_view(dt(s), 4, 0, {3, 4}, {0, 1});  // expand a row
      CHECK_MSG(check_copy(dst, row, 9) == 0, "row " << dtype_name(dt(d)) << " <- " << dtype_name(dt(s)));
      View scalar = make_view(dt(s), 1, 0, {5, 6}, {0, 0});
      View dst2 = make_view(dt(d), 30, 0, {5, 6}, {6, 1});
      CHECK_MSG(check_copy(dst2, scalar, 2) == 0, "scalar " << dtype_name(dt(d)) << " <- " << dtype_name(dt(s)));
    }
  }
}

TEST(every_dtype_pair_contiguous_vector_loops) {
  // Long enough for the vectorized body plus a ragged tail; also a copy that
  // becomes contiguous only after coalescing (2-D dense).
  for (int d = 0; d < kNumDTypes; ++d) {
    for (int s = 0; s < kNumDTypes; ++s) {
      View src = make_view(dt(s), 1001, 0, {1001}, {1});
      View dst = make_view(dt(d), 1001, 0, {1001}, {1});
      CHECK_MSG(check_copy(dst, src, d + s) == 0, dtype_name(dt(d)) << " <- " << dtype_name(dt(s)));
      View src2 = make_view(dt(s), 64, 3, {7, 3, 2}, {6, 2, 1});
      View dst2 = make_view(dt(d), 42, 0, {7, 3, 2}, {6, 2, 1});
      CHECK_MSG(check_copy(dst2, src2) == 0, "2-D " << dtype_name(dt(d)) << " <- " << dtype_name(dt(s)));
    }
  }
}

TEST(every_dtype_pair_tiled_transpose) {
  // Transposes big enough for the tiled path, with ragged tile edges, and a
  // 3-D permutation.
  for (int d = 0; d < kNumDTypes; ++d) {
    for (int s = 0; s < kNumDTypes; ++s) {
      View src = make_view(dt(s), 37 * 45, 0, {37, 45}, {1, 37});
      View dst = make_view(dt(d), 37 * 45, 0, {37, 45}, {45, 1});
      CHECK_MSG(check_copy(dst, src, s) == 0, dtype_name(dt(d)) << " <- " << dtype_name(dt(s)));
      View src3 = make_view(dt(s), 3 * 40 * 33, 0, {3, 33, 40}, {40 * 33, 1, 33});
      View dst3 = make_view(dt(d), 40 * 3 * 33, 0, {3, 33, 40}, {33, 1, 99});
      CHECK_MSG(check_copy(dst3, src3, d) == 0, "3-D " << dtype_name(dt(d)) << " <- " << dtype_name(dt(s)));
    }
  }
}

TEST(layout_cases_same_dtype) {
  for (DType t : {DType::kBool, DType::kInt16, DType::kFloat32, DType::kFloat64, DType::kComplex128}) {
    // 3-D permuted source into contiguous dst.
    CHECK(check_copy(make_view(t, 30, 0, {2, 3, 5}, {15, 5, 1}), make_view(t, 30, 0, {2, 3, 5}, {5, 10, 1})) == 0);
    // Padded rows on both sides.
    CHECK(check_copy(make_view(t, 60, 1, {5, 9}, {11, 1}), make_view(t, 80, 2, {5, 9}, {15, 1})) == 0);
    // Strided on both sides, inner strides not 1.
    CHECK(check_copy(make_view(t, 80, 0, {4, 6}, {18, 3}), make_view(t, 90, 1, {4, 6}, {2, 8})) == 0);
    // Scalar (0-dim) and size-1 dims.
    CHECK(check_copy(make_view(t, 2, 1, {}, {}), make_view(t, 3, 2, {}, {})) == 0);
    CHECK(check_copy(make_view(t, 5, 0, {1, 5, 1}, {9, 1, 4}), make_view(t, 15, 0, {1, 5, 1}, {0, 3, 0})) == 0);
    // Contiguous, large enough to be split across cores.
    CHECK(check_copy(make_view(t, 300000, 0, {300000}, {1}), make_view(t, 300000, 0, {300000}, {1})) == 0);
  }
}

TEST(empty_self_and_errors) {
  View a = make_view(DType::kFloat32, 4, 0, {0, 4}, {4, 1});
  View b = make_view(DType::kInt32, 4, 0, {0, 4}, {4, 1});
  copy_strided(a.desc(), b.desc());  // nothing to do
  TensorDesc e1 = a.desc(), e2 = b.desc();
  e1.data = e2.data = nullptr;  // empty tensors may have no storage
  copy_strided(e1, e2);

  View c = make_view(DType::kFloat32, 8, 0, {8}, {1});
  fill_storage(c, 0);
  const auto saved = c.storage;
  copy_strided(c.desc(), c.desc());  // onto itself
  CHECK(c.storage == saved);

  View d = make_view(DType::kFloat32, 12, 0, {3, 4}, {4, 1});
  View s = make_view(DType::kFloat32, 12, 0, {4, 3}, {3, 1});
  CHECK_THROWS(copy_strided(d.desc(), s.desc()));  // sizes differ
  TensorDesc bad = s.desc();
  bad.sizes = {3, 4};
  bad.strides = {4};
  CHECK_THROWS(copy_strided(d.desc(), bad));
  bad.strides = {-4, 1};
  CHECK_THROWS(copy_strided(d.desc(), bad));
  TensorDesc null_src = d.desc();
  null_src.data = nullptr;
  CHECK_THROWS(copy_strided(d.desc(), null_src));
}

// ---- large copies against reference loops -----------------------------------

namespace {

TensorDesc make_desc(void* p, DType t, std::vector<int64_t> sizes, std::vector<int64_t> strides) {
  TensorDesc d;
  d.data = p;
  d.dtype = t;
  d.sizes = std::move(sizes);
  d.strides = std::move(strides);
  return d;
}

constexpr int64_t k16M = 16 * 1024 * 1024;  // 64 MiB of float32

}  // namespace

TEST(large_contiguous_float32_64MiB) {
  std::vector<float> src(k16M), dst(k16M, -1.0f);
  for (int64_t i = 0; i < k16M; ++i) src[i] = static_cast<float>(i) * 0.5f;
  copy_strided(make_desc(dst.data(), DType::kFloat32, {k16M}, {1}),
               make_desc(src.data(), DType::kFloat32, {k16M}, {1}));
  int64_t bad = 0;
  for (int64_t i = 0; i < k16M; ++i) bad += dst[i] != static_cast<float>(i) * 0.5f;
  CHECK_EQ(bad, 0);
}

TEST(large_transpose_float32_4096x4096) {
  const int64_t n = 4096;
  std::vector<float> src(n * n), dst(n * n, -1.0f);
  for (int64_t i = 0; i < n * n; ++i) src[i] = static_cast<float>(i);
  // dst[i][j] = src[j][i]
  copy_strided(make_desc(dst.data(), DType::kFloat32, {n, n}, {n, 1}),
               make_desc(src.data(), DType::kFloat32, {n, n}, {1, n}));
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) bad += dst[i * n + j] != src[j * n + i];
  CHECK_EQ(bad, 0);
}

TEST(large_strided_int64_and_padded_rows) {
  // Every other element of a 64 MiB int64 buffer.
  const int64_t n = 4 * 1024 * 1024;
  std::vector<int64_t> src(2 * n), dst(n, -1);
  std::iota(src.begin(), src.end(), int64_t(7));
  copy_strided(make_desc(dst.data(), DType::kInt64, {n}, {1}),
               make_desc(src.data(), DType::kInt64, {n}, {2}));
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i) bad += dst[i] != src[2 * i];
  CHECK_EQ(bad, 0);

  // 64 MiB float32 into padded rows of float64 (convert + strided dst).
  const int64_t rows = 4096, cols = 4096, pitch = 4100;
  std::vector<float> a(rows * cols);
  std::vector<double> b(rows * pitch, -5.0);
  for (int64_t i = 0; i < rows * cols; ++i) a[i] = static_cast<float>(i % 1000003) * 0.25f;
  copy_strided(make_desc(b.data(), DType::kFloat64, {rows, cols}, {pitch, 1}),
               make_desc(a.data(), DType::kFloat32, {rows, cols}, {cols, 1}));
  bad = 0;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < pitch; ++c) {
      const double want = c < cols ? static_cast<double>(a[r * cols + c]) : -5.0;
      bad += b[r * pitch + c] != want;
    }
  }
  CHECK_EQ(bad, 0);
}

TEST(large_conversions_match_scalar_path) {
  std::vector<float> f(k16M);
  uint64_t x = 12345;
  for (int64_t i = 0; i < k16M; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const uint32_t b = static_cast<uint32_t>(x >> 32);
    float v;
    std::memcpy(&v, &b, 4);
    f[i] = (i % 3 == 0) ? v : static_cast<float>(static_cast<int32_t>(b)) * 1e-6f;
  }
  auto check = [&](DType to, size_t es) {
    std::vector<unsigned char> out(k16M * es);
    copy_strided(make_desc(out.data(), to, {k16M}, {1}), make_desc(f.data(), DType::kFloat32, {k16M}, {1}));
    int64_t bad = 0;
    unsigned char want[16];
    for (int64_t i = 0; i < k16M; ++i) {
      convert_element(to, want, DType::kFloat32, &f[i]);
      bad += std::memcmp(want, out.data() + i * es, es) != 0;
    }
    CHECK_MSG(bad == 0, dtype_name(to) << ": " << bad << " mismatches");
  };
  check(DType::kBFloat16, 2);
  check(DType::kFloat16, 2);
  check(DType::kFloat64, 8);
  check(DType::kInt32, 4);
  check(DType::kUInt8, 1);

  std::vector<int32_t> ints(k16M);
  for (int64_t i = 0; i < k16M; ++i) ints[i] = static_cast<int32_t>(i * 2654435761u);
  std::vector<float> out(k16M);
  copy_strided(make_desc(out.data(), DType::kFloat32, {k16M}, {1}), make_desc(ints.data(), DType::kInt32, {k16M}, {1}));
  int64_t bad = 0;
  for (int64_t i = 0; i < k16M; ++i) bad += out[i] != static_cast<float>(ints[i]);
  CHECK_EQ(bad, 0);
}
