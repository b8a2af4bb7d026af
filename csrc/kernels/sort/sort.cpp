// Row sorting (sort.h). Each row becomes (key, index) pairs, then the sorted
// indices gather the row's original elements. CPU's sort with stable=false
// hands float/double/int32/int64 to x86-simd-sort, whose order among ties is
// its own; this one sorts those stably (std::sort for the other dtypes, as
// CPU).
//
// The key is one unsigned 64-bit integer for every dtype (order_key): its
// order is the order CPU's comparators (SortingKernel.cpp, TopKImpl.h) give
// the element values (float16/bfloat16 compared as float, NaN above
// everything and all NaNs equivalent, -0.0 equivalent to +0.0). Every
// comparison the std algorithms make therefore answers as CPU's comparator
// on the values would, so they produce the same permutation, and they are
// instantiated once instead of once per dtype (the pairs are 16 bytes
// either way).
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/common/convert.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/nn/rows.h"
#include "runtime/runtime.h"
#include "kernels/sort/sort.h"
#include "kernels/common/isa.h"

namespace torch_tpu::kernels {
inline namespace TORCH_TPU_ISA {  // see isa.h
namespace {

using Pair = std::pair<uint64_t, int64_t>;

template <typename T>
uint64_t order_key(T x) {
  const auto v = real_value(x);
  using V = std::remove_cv_t<decltype(v)>;
  if constexpr (std::is_floating_point_v<V>) {
    using U = std::conditional_t<sizeof(V) == 4, uint32_t, uint64_t>;
    constexpr U sign = U(1) << (sizeof(U) * 8 - 1);
    if (v != v) return ~uint64_t{0};
    const V w = v == 0 ? V(0) : v;  // -0.0 as +0.0
    U u;
    std::memcpy(&u, &w, sizeof(U));
    return (u & sign) ? U(~u) : U(u | sign);
  } else if constexpr (std::is_signed_v<V>) {
    using U = std::make_unsigned_t<V>;
    return static_cast<U>(static_cast<U>(v) ^ (U(1) << (sizeof(U) * 8 - 1)));
  } else {
    return v;
  }
}

struct Ascending {
  bool operator()(const Pair& a, const Pair& b) const { return a.first < b.first; }
};
struct Descending {
  bool operator()(const Pair& a, const Pair& b) const { return a.first > b.first; }
};

// q = (order_key(row[j]), j) for the n elements of a row of dtype t.
void load_pairs(DType t, const void* row, int64_t n, std::vector<Pair>& q) {
  q.resize(n);
  visit_dtype(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!is_complex_v<T>) {
      const T* r = static_cast<const T*>(row);
      for (int64_t j = 0; j < n; ++j) q[j] = {order_key(r[j]), j};
    }
  });
}

// dst[j] = src[q[j].second] for j < k; elements moved as bits.
void gather_pairs(size_t esize, const void* src, void* dst, const Pair* q, int64_t k) {
  visit_element_size(esize, [&](auto tag) {
    using S = typename decltype(tag)::type;
    const S* s = static_cast<const S*>(src);
    S* d = static_cast<S*>(dst);
    for (int64_t j = 0; j < k; ++j) d[j] = s[q[j].second];
  });
}

void sort_dtype(DType t, void* values, int64_t* indices, int64_t rows, int64_t n, bool descending, bool stable) {
  // x86-simd-sort's types on CPU: stable here (see above).
  const bool simd_sorted = t == DType::kFloat32 || t == DType::kFloat64 || t == DType::kInt32 ||
                           t == DType::kInt64;
  const bool use_stable = stable || simd_sorted;
  if (n == 0) return;
  const size_t esize = dtype_size(t);
  char* base = static_cast<char*>(values);
  runtime::parallel_for(0, rows, nn::rows_grain(n), [&](int64_t b, int64_t e) {
    std::vector<Pair> q;
    std::vector<char> original(n * esize);
    for (int64_t r = b; r < e; ++r) {
      char* row = base + r * n * esize;
      load_pairs(t, row, n, q);
      if (descending) {
        use_stable ? std::stable_sort(q.begin(), q.end(), Descending())
                   : std::sort(q.begin(), q.end(), Descending());
      } else {
        use_stable ? std::stable_sort(q.begin(), q.end(), Ascending())
                   : std::sort(q.begin(), q.end(), Ascending());
      }
      std::memcpy(original.data(), row, n * esize);
      gather_pairs(esize, original.data(), row, q.data(), n);
      for (int64_t j = 0; j < n; ++j) indices[r * n + j] = q[j].second;
    }
  });
}

// TopKImpl.h's steps, in order, with the same comparators.
template <typename Less>
void select_k(std::vector<Pair>& q, int64_t k, bool sorted, Less less) {
  if (k * 64 <= static_cast<int64_t>(q.size())) {
    std::partial_sort(q.begin(), q.begin() + k, q.end(), less);
  } else {
    std::nth_element(q.begin(), q.begin() + k - 1, q.end(), less);
    if (sorted) std::sort(q.begin(), q.begin() + k - 1, less);
  }
}

void topk_dtype(DType t, const void* src, void* values, int64_t* indices, int64_t rows, int64_t n, int64_t k,
                bool largest, bool sorted) {
  if (k == 0) return;
  const size_t esize = dtype_size(t);
  const char* sbase = static_cast<const char*>(src);
  char* vbase = static_cast<char*>(values);
  runtime::parallel_for(0, rows, nn::rows_grain(n), [&](int64_t b, int64_t e) {
    std::vector<Pair> q;
    for (int64_t r = b; r < e; ++r) {
      const char* row = sbase + r * n * esize;
      load_pairs(t, row, n, q);
      if (largest) {
        select_k(q, k, sorted, Descending());
      } else {
        select_k(q, k, sorted, Ascending());
      }
      gather_pairs(esize, row, vbase + r * k * esize, q.data(), k);
      for (int64_t j = 0; j < k; ++j) indices[r * k + j] = q[j].second;
    }
  });
}

// Throws as the per-dtype dispatch did: complex has no order, complex32 is
// not a dtype visit_dtype knows.
void check_ordered(DType t, const char* what) {
  visit_dtype(t, [&](auto tag) {
    if constexpr (is_complex_v<typename decltype(tag)::type>) {
      throw std::invalid_argument(std::string(what) + ": complex tensors have no order");
    }
  });
}

}  // namespace
}  // namespace TORCH_TPU_ISA

// This variant's entries (isa_dispatch.cpp picks one).
void TORCH_TPU_ISA_ENTRY(sort_rows)(DType t, void* values, int64_t* indices, int64_t rows,
                                    int64_t n, bool descending, bool stable) {
  check_ordered(t, "sort");
  sort_dtype(t, values, indices, rows, n, descending, stable);
}

void TORCH_TPU_ISA_ENTRY(topk_rows)(DType t, const void* src, void* values, int64_t* indices,
                                    int64_t rows, int64_t n, int64_t k, bool largest, bool sorted) {
  check_ordered(t, "topk");
  topk_dtype(t, src, values, indices, rows, n, k, largest, sorted);
}

}  // namespace torch_tpu::kernels
