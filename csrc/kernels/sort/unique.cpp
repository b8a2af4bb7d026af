// unique (unique.h). Values compare as CPU compares them (float16/bfloat16
// as float); they are moved as element bits. The flat sort is a stable radix
// sort of order-preserving keys (single pass per byte, 4-8 passes), several
// times faster than a comparison sort of (value, index) pairs.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "kernels/common/convert.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/sort/unique.h"

namespace torch_tpu::kernels {
namespace {

template <typename T>
bool unique_differ(T a, T b) {
  return real_value(a) != real_value(b);
}

// An unsigned key whose order is the element order CPU's sort uses: NaN
// above everything (all NaNs one key), -0.0 equal to +0.0, so a stable radix
// sort of the keys is the stable comparison sort.
template <typename T>
auto unique_key(T x) {
  const auto v = real_value(x);
  using V = std::remove_cv_t<decltype(v)>;
  if constexpr (std::is_same_v<V, float> || std::is_same_v<V, double>) {
    using U = std::conditional_t<sizeof(V) == 4, uint32_t, uint64_t>;
    constexpr U sign = U(1) << (sizeof(U) * 8 - 1);
    if (v != v) return ~U(0);
    U u;
    const V w = v == 0 ? V(0) : v;
    std::memcpy(&u, &w, sizeof(U));
    return (u & sign) ? U(~u) : U(u | sign);
  } else if constexpr (std::is_signed_v<V>) {
    using U = std::make_unsigned_t<V>;
    return static_cast<U>(static_cast<U>(v) ^ (U(1) << (sizeof(U) * 8 - 1)));
  } else {
    return v;
  }
}

// Stable LSD radix sort of keys[0, n), 8 bits a pass (passes where every
// key has the same digit are skipped); perm gets each sorted key's original
// position. Instantiated per key width, not per dtype.
template <typename U>
void radix_sort_keys(std::vector<U>& keys, int64_t* perm, int64_t n) {
  std::vector<U> keys2(n);
  std::vector<int64_t> idx2(n);
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  int64_t* idx = perm;
  int64_t* other = idx2.data();
  for (unsigned shift = 0; shift < sizeof(U) * 8; shift += 8) {
    int64_t offset[257] = {0};
    for (int64_t i = 0; i < n; ++i) ++offset[((keys[i] >> shift) & 0xFF) + 1];
    if (std::find(offset + 1, offset + 257, n) != offset + 257) continue;  // one digit: order kept
    for (int d = 0; d < 256; ++d) offset[d + 1] += offset[d];
    for (int64_t i = 0; i < n; ++i) {
      const int64_t pos = offset[(keys[i] >> shift) & 0xFF]++;
      keys2[pos] = keys[i];
      other[pos] = idx[i];
    }
    keys.swap(keys2);
    std::swap(idx, other);
  }
  if (idx != perm) std::copy(idx, idx + n, perm);
}

// values[0, n) sorted stably by unique_key; perm gets each sorted value's
// original position.
template <typename T>
void unique_radix_sort(T* values, int64_t* perm, int64_t n) {
  using U = decltype(unique_key(T{}));
  std::vector<U> keys(n);
  for (int64_t i = 0; i < n; ++i) keys[i] = unique_key(values[i]);
  radix_sort_keys(keys, perm, n);
  std::vector<T> original(values, values + n);
  for (int64_t i = 0; i < n; ++i) values[i] = original[perm[i]];
}

// Keeps values[i] where it differs from values[i - 1], in place.
template <typename T>
void unique_sorted_typed(T* values, const int64_t* perm, int64_t n, int64_t* inverse, int64_t* counts,
                         int64_t* count) {
  int64_t u = 0, start = 0;
  T last = values[0];
  if (inverse) inverse[perm[0]] = 0;
  for (int64_t i = 1; i < n; ++i) {
    const T v = values[i];
    if (unique_differ(v, last)) {
      if (counts) counts[u] = i - start;
      values[++u] = v;
      start = i;
    }
    last = v;
    if (inverse) inverse[perm[i]] = u;
  }
  if (counts) counts[u] = n - start;
  *count = u + 1;
}

// CPU's unique_consecutive_cpu_template: compares with the last kept value.
template <typename T>
void unique_consecutive_typed(const T* src, int64_t n, T* out, int64_t* inverse, int64_t* counts,
                              int64_t* count) {
  int64_t u = 0, start = 0;
  T last = src[0];
  out[0] = last;
  if (inverse) inverse[0] = 0;
  for (int64_t i = 1; i < n; ++i) {
    const T v = src[i];
    if (unique_differ(v, last)) {
      out[++u] = v;
      last = v;
      if (counts) counts[u - 1] = i - start;
      start = i;
    }
    if (inverse) inverse[i] = u;
  }
  if (counts) counts[u] = n - start;
  *count = u + 1;
}

// Row a against row b (L elements each), lexicographically by value as CPU's
// comparator: -1 less, 1 greater, 0 neither. std::sort calls it through a
// pointer, so it is instantiated once for all dtypes (unique with dim is
// cold; the comparisons answer as before, so the order is the same).
template <typename T>
int compare_rows(const void* rows, int64_t a, int64_t b, int64_t L) {
  const T* r = static_cast<const T*>(rows);
  for (int64_t i = 0; i < L; ++i) {
    const auto lhs = real_value(r[i + a * L]);
    const auto rhs = real_value(r[i + b * L]);
    if (lhs < rhs) return -1;
    if (lhs > rhs) return 1;
  }
  return 0;
}

struct RowLess {
  int (*cmp)(const void*, int64_t, int64_t, int64_t);
  const void* rows;
  int64_t L;
  bool operator()(int64_t a, int64_t b) const { return cmp(rows, a, b, L) < 0; }
};

// Unique.cpp's _unique_dim_cpu_template and _unique_dim_cpu_impl.
template <typename T>
void unique_rows_typed(const T* rows, int64_t S, int64_t L, bool consecutive, T* out, int64_t* inverse,
                       int64_t* counts, int64_t* count) {
  std::vector<int64_t> indices(S);
  std::iota(indices.begin(), indices.end(), int64_t{0});
  if (!consecutive) std::sort(indices.begin(), indices.end(), RowLess{compare_rows<T>, rows, L});
  auto equal_rows = [&](int64_t a, int64_t b) {
    for (int64_t i = 0; i < L; ++i) {
      if (unique_differ(rows[i + a * L], rows[i + b * L])) return false;
    }
    return true;
  };
  std::fill(counts, counts + S, int64_t{0});
  int64_t u = 0, previous = 0, kept = indices[0];
  std::memcpy(out, rows + kept * L, L * sizeof(T));
  inverse[indices[0]] = 0;
  for (int64_t k = 1; k < S; ++k) {
    const int64_t cur = indices[k];
    if (!equal_rows(cur, kept)) {
      ++u;
      std::memcpy(out + u * L, rows + cur * L, L * sizeof(T));
      counts[u - 1] = k - previous;
      previous = k;
      kept = cur;
    }
    inverse[cur] = u;
  }
  counts[u] = S - previous;
  *count = u + 1;
}

template <typename F>
void visit_unique(DType t, F&& f) {
  if (!unique_supports(t)) throw std::invalid_argument("unique: unsupported dtype");
  visit_dtype(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!is_complex_v<T>) f(tag);
  });
}

}  // namespace

bool unique_supports(DType t) { return t != DType::kComplex64 && t != DType::kComplex128; }

void unique_sorted(DType t, void* values, int64_t* perm, int64_t n, int64_t* inverse, int64_t* counts,
                   int64_t* count) {
  visit_unique(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* v = static_cast<T*>(values);
    unique_radix_sort(v, perm, n);
    unique_sorted_typed(v, perm, n, inverse, counts, count);
  });
}

void unique_consecutive(DType t, const void* src, int64_t n, void* out, int64_t* inverse, int64_t* counts,
                        int64_t* count) {
  visit_unique(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    unique_consecutive_typed(static_cast<const T*>(src), n, static_cast<T*>(out), inverse, counts, count);
  });
}

void unique_rows(DType t, const void* rows, int64_t S, int64_t L, bool consecutive, void* out, int64_t* inverse,
                 int64_t* counts, int64_t* count) {
  visit_unique(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    unique_rows_typed(static_cast<const T*>(rows), S, L, consecutive, static_cast<T*>(out), inverse, counts,
                      count);
  });
}

}  // namespace torch_tpu::kernels
