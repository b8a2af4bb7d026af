// Binary search of sorted boundary rows (search.h).
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "kernels/common/convert.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/sort/search.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

// CPU's cus_lower_bound / cus_upper_bound: the sorter's positions are
// relative to the row, the search range absolute.
template <typename K, bool kRight>
int64_t search_bound(int64_t start, int64_t end, K val, const K* bd, const int64_t* sort) {
  const int64_t orig_start = start;
  while (start < end) {
    const int64_t mid = start + ((end - start) >> 1);
    const K mid_val = sort ? bd[sort[mid] + orig_start] : bd[mid];
    const bool go_right = kRight ? !(mid_val > val) : !(mid_val >= val);
    if (go_right) {
      start = mid + 1;
    } else {
      end = mid;
    }
  }
  return start;
}

template <typename K, typename O, bool kRight>
void search_loop(const SearchDesc& d, const K* in, const K* bd) {
  O* out = static_cast<O*>(d.out);
  runtime::parallel_for(0, d.numel, 2048, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const int64_t start_bd = d.boundaries_1d ? 0 : i / d.values_row * d.boundary_row;
      const int64_t end_bd = start_bd + d.boundary_row;
      out[i] = static_cast<O>(search_bound<K, kRight>(start_bd, end_bd, in[i], bd, d.sorter) - start_bd);
    }
  });
}

template <typename T>
void search_typed(const SearchDesc& d) {
  using K = decltype(real_value(T{}));
  const T* in = static_cast<const T*>(d.values);
  const T* bd = static_cast<const T*>(d.boundaries);
  std::vector<K> in_keys, bd_keys;
  const K* ik;
  const K* bk;
  if constexpr (std::is_same_v<K, T>) {
    ik = in;
    bk = bd;
  } else {  // float16/bfloat16: compare as float, converted once
    const int64_t nb = d.boundaries_1d ? d.boundary_row : d.numel / d.values_row * d.boundary_row;
    in_keys.resize(d.numel);
    bd_keys.resize(nb);
    for (int64_t i = 0; i < d.numel; ++i) in_keys[i] = real_value(in[i]);
    for (int64_t i = 0; i < nb; ++i) bd_keys[i] = real_value(bd[i]);
    ik = in_keys.data();
    bk = bd_keys.data();
  }
  if (d.out_int32) {
    d.right ? search_loop<K, int32_t, true>(d, ik, bk) : search_loop<K, int32_t, false>(d, ik, bk);
  } else {
    d.right ? search_loop<K, int64_t, true>(d, ik, bk) : search_loop<K, int64_t, false>(d, ik, bk);
  }
}

}  // namespace

bool search_supports(DType t) {
  return t != DType::kBool && t != DType::kComplex64 && t != DType::kComplex128 && t != DType::kUInt16 &&
         t != DType::kUInt32 && t != DType::kUInt64;
}

void searchsorted(const SearchDesc& d) {
  if (!search_supports(d.dtype)) throw std::invalid_argument("searchsorted: unsupported dtype");
  visit_dtype(d.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!is_complex_v<T> && !std::is_same_v<T, Bool>) search_typed<T>(d);
  });
}

}  // namespace torch_tpu::kernels
