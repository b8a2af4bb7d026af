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

template <typename T>
void median_rows_typed(const T* src, T* values, int64_t* indices, int64_t rows, int64_t n, bool ignore_nan) {
  using K = SelectKey<T>;
  runtime::parallel_for(0, rows, nn::rows_grain(n), [&](int64_t b, int64_t e) {
    std::vector<K> buf;
    std::vector<int64_t> idx(n);
    for (int64_t r = b; r < e; ++r) {
      const T* row = src + r * n;
      const K* ip = select_keys(row, n, buf);
      if (!ignore_nan) {  // median: a row holding NaN answers its first NaN
        const K* nanp = std::find_if(ip, ip + n, select_isnan<K>);
        if (nanp != ip + n) {
          values[r] = row[nanp - ip];
          indices[r] = nanp - ip;
          continue;
        }
      }
      std::iota(idx.begin(), idx.end(), int64_t{0});
      auto nth = idx.begin();
      if (!ignore_nan) {
        nth += (n - 1) / 2;
        std::nth_element(idx.begin(), nth, idx.end(),
                         [ip](int64_t i, int64_t j) { return ip[i] < ip[j] || (ip[i] == ip[j] && i < j); });
      } else {
        const int64_t num_nan = std::count_if(ip, ip + n, select_isnan<K>);
        nth += (n - num_nan - 1) / 2;  // 0 for an all-NaN row (C++ truncates -1/2)
        std::nth_element(idx.begin(), nth, idx.end(), [ip](int64_t i, int64_t j) {
          return ip[i] < ip[j] || (ip[i] == ip[j] && i < j) || (select_isnan(ip[j]) && !select_isnan(ip[i]));
        });
      }
      values[r] = row[*nth];
      indices[r] = *nth;
    }
  });
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
  K* last = keys + n;
  if (!ignore_nan && std::any_of(keys, last, select_isnan<K>)) {
    *out = convert<T>(std::numeric_limits<float>::quiet_NaN());
    return;
  }
  K* median = keys;
  if (!ignore_nan) {
    median += (n - 1) / 2;
    std::nth_element(keys, median, last);
  } else {
    const int64_t num_nan = std::count_if(keys, last, select_isnan<K>);
    median += (n - num_nan - 1) / 2;
    std::nth_element(keys, median, last,
                     [](K a, K b) { return a < b || (select_isnan(b) && !select_isnan(a)); });
  }
  *out = convert<T>(*median);  // exact: a key holds its element's value
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

template <typename T>
void mode_rows_typed(const T* src, T* values, int64_t* indices, int64_t rows, int64_t n) {
  using K = SelectKey<T>;
  runtime::parallel_for(0, rows, nn::rows_grain(n), [&](int64_t b, int64_t e) {
    std::vector<std::pair<K, int64_t>> elements(n);
    for (int64_t r = b; r < e; ++r) {
      const T* row = src + r * n;
      for (int64_t j = 0; j < n; ++j) elements[j] = {real_value(row[j]), j};
      // By value only, unstable: CPU's call, so ties land where CPU's do.
      std::sort(elements.begin(), elements.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
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
      values[r] = row[modei];
      indices[r] = modei;
    }
  });
}

bool is_unsigned_wide(DType t) { return t == DType::kUInt16 || t == DType::kUInt32 || t == DType::kUInt64; }

template <typename F>
void visit_ordered(DType t, const char* name, F&& f) {
  visit_dtype(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_complex_v<T>) {
      throw std::invalid_argument(std::string(name) + ": complex tensors have no order");
    } else {
      f(tag);
    }
  });
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
  visit_ordered(t, "mode", [&](auto tag) {
    using T = typename decltype(tag)::type;
    mode_rows_typed(static_cast<const T*>(src), static_cast<T*>(values), indices, rows, n);
  });
}

}  // namespace torch_tpu::kernels
