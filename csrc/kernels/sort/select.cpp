// Row selection (select.h). Each row's values become keys in the type CPU
// compares them in (float for float16/bfloat16, the type itself otherwise);
// the chosen position then reads the row's original element. std::nth_element
// and std::sort are the same algorithms CPU's build runs (libstdc++), called
// with CPU's comparators, so even the order among equivalent elements (all-NaN
// rows in nanmedian, equal values in mode) comes out as CPU's.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/common/convert.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/nn/rows.h"
#include "kernels/sort/select.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

template <typename K>
bool select_isnan(K x) {
  if constexpr (std::is_floating_point_v<K>) {
    return std::isnan(x);
  } else {
    return false;
  }
}

template <typename T>
using SelectKey = decltype(real_value(T{}));

// The row's keys: the row itself when T is its own key type, else `buf`.
template <typename T>
const SelectKey<T>* select_keys(const T* row, int64_t n, std::vector<SelectKey<T>>& buf) {
  if constexpr (std::is_same_v<SelectKey<T>, T>) {
    return row;
  } else {
    buf.resize(n);
    for (int64_t j = 0; j < n; ++j) buf[j] = real_value(row[j]);
    return buf.data();
  }
}

// The comparators and std algorithm calls depend on the key type only
// (float16/bfloat16/float share float's), so they are written as
// functions of K: named comparators, instantiated once per key type.
template <typename K>
struct IndexLess {  // (value, index)
  const K* ip;
  bool operator()(int64_t i, int64_t j) const { return ip[i] < ip[j] || (ip[i] == ip[j] && i < j); }
};
template <typename K>
struct IndexLessNanLast {  // (value, index), NaN largest
  const K* ip;
  bool operator()(int64_t i, int64_t j) const {
    return ip[i] < ip[j] || (ip[i] == ip[j] && i < j) || (select_isnan(ip[j]) && !select_isnan(ip[i]));
  }
};
template <typename K>
struct NanLast {
  bool operator()(K a, K b) const { return a < b || (select_isnan(b) && !select_isnan(a)); }
};
template <typename K>
struct PairFirstLess {
  bool operator()(const std::pair<K, int64_t>& a, const std::pair<K, int64_t>& b) const { return a.first < b.first; }
};

// The position of the median of the row's keys ip[0, n).
template <typename K>
int64_t median_position(const K* ip, int64_t n, std::vector<int64_t>& idx, bool ignore_nan) {
  if (!ignore_nan) {  // median: a row holding NaN answers its first NaN
    const K* nanp = std::find_if(ip, ip + n, select_isnan<K>);
    if (nanp != ip + n) return nanp - ip;
  }
  std::iota(idx.begin(), idx.end(), int64_t{0});
  auto nth = idx.begin();
  if (!ignore_nan) {
    nth += (n - 1) / 2;
    std::nth_element(idx.begin(), nth, idx.end(), IndexLess<K>{ip});
  } else {
    const int64_t num_nan = std::count_if(ip, ip + n, select_isnan<K>);
    nth += (n - num_nan - 1) / 2;  // 0 for an all-NaN row (C++ truncates -1/2)
    std::nth_element(idx.begin(), nth, idx.end(), IndexLessNanLast<K>{ip});
  }
  return *nth;
}

template <typename T>
void median_rows_typed(const T* src, T* values, int64_t* indices, int64_t rows, int64_t n, bool ignore_nan) {
  using K = SelectKey<T>;
  runtime::parallel_for(0, rows, nn::rows_grain(n), [&](int64_t b, int64_t e) {
    std::vector<K> buf;
    std::vector<int64_t> idx(n);
    for (int64_t r = b; r < e; ++r) {
      const T* row = src + r * n;
      const int64_t pos = median_position(select_keys(row, n, buf), n, idx, ignore_nan);
      values[r] = row[pos];
      indices[r] = pos;
    }
  });
}

// The median key of keys[0, n) (reordered), or nullptr when NaN answers.
template <typename K>
const K* median_key(K* keys, int64_t n, bool ignore_nan) {
  K* last = keys + n;
  if (!ignore_nan && std::any_of(keys, last, select_isnan<K>)) return nullptr;
  K* median = keys;
  if (!ignore_nan) {
    median += (n - 1) / 2;
    std::nth_element(keys, median, last);
  } else {
    const int64_t num_nan = std::count_if(keys, last, select_isnan<K>);
    median += (n - num_nan - 1) / 2;
    std::nth_element(keys, median, last, NanLast<K>());
  }
  return median;
}

template <typename T>
void median_all_typed(T* first, int64_t n, T* out, bool ignore_nan) {
  using K = SelectKey<T>;
  std::vector<K> buf;
  K* keys;
  if constexpr (std::is_same_v<K, T>) {
    keys = first;
  } else {
    buf.resize(n);
    for (int64_t j = 0; j < n; ++j) buf[j] = real_value(first[j]);
    keys = buf.data();
  }
  const K* median = median_key(keys, n, ignore_nan);
  // exact: a key holds its element's value
  *out = median ? convert<T>(*median) : convert<T>(std::numeric_limits<float>::quiet_NaN());
}

// CPU's quickselect for kthvalue (Sedgewick's partitioning with a
// median-of-three pivot, Sorting.cpp), NaN largest, on keys and positions.
template <typename K>
void kth_quickselect(K* arr, int64_t* ind, int64_t n, int64_t k) {
  auto gt_or_nan = [](K x, K y) { return (select_isnan(x) && !select_isnan(y)) || x > y; };
  auto swap_at = [&](int64_t i, int64_t j) {
    std::swap(arr[i], arr[j]);
    std::swap(ind[i], ind[j]);
  };
  int64_t L = 0, R = n - 1;
  while (true) {
    if (R <= L) return;
    if (R == L + 1) {
      if (gt_or_nan(arr[L], arr[R])) swap_at(L, R);
      return;
    }
    const int64_t P = (L + R) >> 1;
    swap_at(P, L + 1);
    if (gt_or_nan(arr[L + 1], arr[R])) swap_at(L + 1, R);
    if (gt_or_nan(arr[L], arr[R])) swap_at(L, R);
    if (gt_or_nan(arr[L + 1], arr[L])) swap_at(L + 1, L);
    int64_t i = L + 1, j = R;
    const K piv = arr[L];
    while (true) {
      do ++i; while (gt_or_nan(piv, arr[i]));
      do --j; while (gt_or_nan(arr[j], piv));
      if (j < i) break;
      swap_at(i, j);
    }
    swap_at(L, j);
    if (j <= k) L = i;
    if (j >= k) R = j - 1;
  }
}

template <typename T>
void kthvalue_rows_typed(const T* src, T* values, int64_t* indices, int64_t rows, int64_t n, int64_t k) {
  using K = SelectKey<T>;
  runtime::parallel_for(0, rows, nn::rows_grain(n), [&](int64_t b, int64_t e) {
    std::vector<K> keys(n);
    std::vector<int64_t> idx(n);
    for (int64_t r = b; r < e; ++r) {
      const T* row = src + r * n;
      for (int64_t j = 0; j < n; ++j) keys[j] = real_value(row[j]);
      std::iota(idx.begin(), idx.end(), int64_t{0});
      kth_quickselect(keys.data(), idx.data(), n, k - 1);
      values[r] = row[idx[k - 1]];
      indices[r] = idx[k - 1];
    }
  });
}

// The position CPU's mode picks from the row's (key, index) pairs (sorted here).
template <typename K>
int64_t mode_position(std::vector<std::pair<K, int64_t>>& elements) {
  const int64_t n = static_cast<int64_t>(elements.size());
  // By value only, unstable: CPU's call, so ties land where CPU's do.
  std::sort(elements.begin(), elements.end(), PairFirstLess<K>());
  int64_t modei = 0, run = 0, best = 0;
  for (int64_t j = 0; j < n; ++j) {
    ++run;
    if (j == n - 1 || elements[j].first != elements[j + 1].first) {
      if (run > best) {
        modei = elements[j].second;
        best = run;
      }
      run = 0;
    }
  }
  return modei;
}

template <typename T>
void mode_rows_typed(const T* src, T* values, int64_t* indices, int64_t rows, int64_t n) {
  using K = SelectKey<T>;
  runtime::parallel_for(0, rows, nn::rows_grain(n), [&](int64_t b, int64_t e) {
    std::vector<std::pair<K, int64_t>> elements(n);
    for (int64_t r = b; r < e; ++r) {
      const T* row = src + r * n;
      for (int64_t j = 0; j < n; ++j) elements[j] = {real_value(row[j]), j};
      const int64_t modei = mode_position(elements);
      values[r] = row[modei];
      indices[r] = modei;
    }
  });
}

bool is_unsigned_wide(DType t) { return t == DType::kUInt16 || t == DType::kUInt32 || t == DType::kUInt64; }

// Instantiates the kernels for the dtypes select_supports (and, for mode,
// bool) only; the glue checks support before it launches.
template <typename F>
void visit_ordered(DType t, const char* name, F&& f, bool with_bool = false) {
  if (t == DType::kBool && with_bool) return f(TypeTag<Bool>{});
  switch (t) {
    case DType::kUInt8: return f(TypeTag<uint8_t>{});
    case DType::kInt8: return f(TypeTag<int8_t>{});
    case DType::kInt16: return f(TypeTag<int16_t>{});
    case DType::kInt32: return f(TypeTag<int32_t>{});
    case DType::kInt64: return f(TypeTag<int64_t>{});
    case DType::kFloat16: return f(TypeTag<Half>{});
    case DType::kBFloat16: return f(TypeTag<BFloat16>{});
    case DType::kFloat32: return f(TypeTag<float>{});
    case DType::kFloat64: return f(TypeTag<double>{});
    default: break;
  }
  throw std::invalid_argument(std::string(name) + ": unsupported dtype " + dtype_name(t));
}

}  // namespace

bool select_supports(DType t) {
  return t != DType::kBool && t != DType::kComplex64 && t != DType::kComplex128 && !is_unsigned_wide(t);
}

bool mode_supports(DType t) { return t == DType::kBool || select_supports(t); }

void median_rows(DType t, const void* src, void* values, int64_t* indices, int64_t rows, int64_t n,
                 bool ignore_nan) {
  visit_ordered(t, "median", [&](auto tag) {
    using T = typename decltype(tag)::type;
    median_rows_typed(static_cast<const T*>(src), static_cast<T*>(values), indices, rows, n, ignore_nan);
  });
}

void median_all(DType t, void* scratch, int64_t n, void* out, bool ignore_nan) {
  visit_ordered(t, "median", [&](auto tag) {
    using T = typename decltype(tag)::type;
    median_all_typed(static_cast<T*>(scratch), n, static_cast<T*>(out), ignore_nan);
  });
}

void kthvalue_rows(DType t, const void* src, void* values, int64_t* indices, int64_t rows, int64_t n,
                   int64_t k) {
  visit_ordered(t, "kthvalue", [&](auto tag) {
    using T = typename decltype(tag)::type;
    kthvalue_rows_typed(static_cast<const T*>(src), static_cast<T*>(values), indices, rows, n, k);
  });
}

void mode_rows(DType t, const void* src, void* values, int64_t* indices, int64_t rows, int64_t n) {
  visit_ordered(
      t, "mode",
      [&](auto tag) {
        using T = typename decltype(tag)::type;
        mode_rows_typed(static_cast<const T*>(src), static_cast<T*>(values), indices, rows, n);
      },
      /*with_bool=*/true);
}

}  // namespace torch_tpu::kernels
