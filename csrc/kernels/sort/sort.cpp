// Row sorting (sort.h). Each row becomes (key, index) pairs, the key the
// element's value in a type that orders it as CPU compares it (float for
// float16/bfloat16, the type itself otherwise); the sorted indices then
// gather the row's original elements. CPU's sort with stable=false hands
// float/double/int32/int64 to x86-simd-sort, whose order among ties is its
// own; this one sorts those stably (std::sort for the other dtypes, as CPU).
#include <algorithm>
#include <cmath>
#include <cstring>
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

template <typename K>
bool is_nan(K x) {
  if constexpr (std::is_floating_point_v<K>) {
    return std::isnan(x);
  } else {
    return false;
  }
}

// CPU's comparators (SortingKernel.cpp, TopKImpl.h): NaN above everything.
template <typename K>
struct Ascending {
  bool operator()(const std::pair<K, int64_t>& a, const std::pair<K, int64_t>& b) const {
    return (!is_nan(a.first) && is_nan(b.first)) || a.first < b.first;
  }
};
template <typename K>
struct Descending {
  bool operator()(const std::pair<K, int64_t>& a, const std::pair<K, int64_t>& b) const {
    return (is_nan(a.first) && !is_nan(b.first)) || a.first > b.first;
  }
};

template <typename T>
using KeyOf = decltype(real_value(T{}));

template <typename T>
void load_pairs(const T* row, int64_t n, std::vector<std::pair<KeyOf<T>, int64_t>>& q) {
  q.resize(n);
  for (int64_t j = 0; j < n; ++j) q[j] = {real_value(row[j]), j};
}

template <typename T>
void sort_typed(T* values, int64_t* indices, int64_t rows, int64_t n, bool descending, bool stable) {
  using K = KeyOf<T>;
  // x86-simd-sort's types on CPU: stable here (see above).
  constexpr bool simd_sorted = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                               std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>;
  const bool use_stable = stable || simd_sorted;
  runtime::parallel_for(0, rows, nn::rows_grain(n), [&](int64_t b, int64_t e) {
    std::vector<std::pair<K, int64_t>> q;
    std::vector<T> original(n);
    for (int64_t r = b; r < e; ++r) {
      T* row = values + r * n;
      load_pairs(row, n, q);
      if (descending) {
        use_stable ? std::stable_sort(q.begin(), q.end(), Descending<K>())
                   : std::sort(q.begin(), q.end(), Descending<K>());
      } else {
        use_stable ? std::stable_sort(q.begin(), q.end(), Ascending<K>())
                   : std::sort(q.begin(), q.end(), Ascending<K>());
      }
      std::copy(row, row + n, original.begin());
      for (int64_t j = 0; j < n; ++j) {
        row[j] = original[q[j].second];
        indices[r * n + j] = q[j].second;
      }
    }
  });
}

// TopKImpl.h's steps, in order, with the same comparators.
template <typename K, typename Less>
void select_k(std::vector<std::pair<K, int64_t>>& q, int64_t k, bool sorted, Less less) {
  if (k * 64 <= static_cast<int64_t>(q.size())) {
    std::partial_sort(q.begin(), q.begin() + k, q.end(), less);
  } else {
    std::nth_element(q.begin(), q.begin() + k - 1, q.end(), less);
    if (sorted) std::sort(q.begin(), q.begin() + k - 1, less);
  }
}

template <typename T>
void topk_typed(const T* src, T* values, int64_t* indices, int64_t rows, int64_t n, int64_t k, bool largest,
                bool sorted) {
  using K = KeyOf<T>;
  if (k == 0) return;
  runtime::parallel_for(0, rows, nn::rows_grain(n), [&](int64_t b, int64_t e) {
    std::vector<std::pair<K, int64_t>> q;
    for (int64_t r = b; r < e; ++r) {
      const T* row = src + r * n;
      load_pairs(row, n, q);
      if (largest) {
        select_k(q, k, sorted, Descending<K>());
      } else {
        select_k(q, k, sorted, Ascending<K>());
      }
      for (int64_t j = 0; j < k; ++j) {
        values[r * k + j] = row[q[j].second];
        indices[r * k + j] = q[j].second;
      }
    }
  });
}

}  // namespace
}  // namespace TORCH_TPU_ISA

// This variant's entries (isa_dispatch.cpp picks one).
void TORCH_TPU_ISA_ENTRY(sort_rows)(DType t, void* values, int64_t* indices, int64_t rows,
                                    int64_t n, bool descending, bool stable) {
  visit_dtype(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_complex_v<T>) {
      throw std::invalid_argument("sort: complex tensors have no order");
    } else {
      sort_typed(static_cast<T*>(values), indices, rows, n, descending, stable);
    }
  });
}

void TORCH_TPU_ISA_ENTRY(topk_rows)(DType t, const void* src, void* values, int64_t* indices,
                                    int64_t rows, int64_t n, int64_t k, bool largest, bool sorted) {
  visit_dtype(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_complex_v<T>) {
      throw std::invalid_argument("topk: complex tensors have no order");
    } else {
      topk_typed(static_cast<const T*>(src), static_cast<T*>(values), indices, rows, n, k, largest, sorted);
    }
  });
}

}  // namespace torch_tpu::kernels
