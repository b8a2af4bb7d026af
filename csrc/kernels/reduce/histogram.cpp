// histogramdd and bincount (histogram.h).
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "kernels/common/convert.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/reduce/histogram.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

// Elements compare and weights add in the element type, as CPU's loop
// (float16/bfloat16 values through float, rounded back at every add).
template <typename T>
void histogram_typed(const HistogramDesc& d) {
  using K = decltype(real_value(T{}));
  const int64_t D = d.D;
  std::vector<std::vector<K>> edges(D);
  std::vector<int64_t> stride(D);
  int64_t bins = 1;
  for (int64_t k = D - 1; k >= 0; --k) {
    const T* e = static_cast<const T*>(d.edges[k]);
    edges[k].resize(d.num_edges[k]);
    for (int64_t j = 0; j < d.num_edges[k]; ++j) edges[k][j] = real_value(e[j]);
    stride[k] = bins;
    bins *= d.num_edges[k] - 1;
  }
  const T* in = static_cast<const T*>(d.input);
  const T* wt = static_cast<const T*>(d.weight);
  T* hist = static_cast<T*>(d.hist);
  auto rnd = [](K v) { return real_value(convert<T>(v)); };
  const int64_t parts = std::max<int64_t>(1, std::min<int64_t>(runtime::current_core_count(), d.M / 1024));
  std::vector<T> local(parts * bins, convert<T>(0.0f));
  runtime::parallel_for(0, parts, 1, [&](int64_t pb, int64_t pe) {
    for (int64_t p = pb; p < pe; ++p) {
      T* h = local.data() + p * bins;
      for (int64_t i = p * d.M / parts; i < (p + 1) * d.M / parts; ++i) {
        bool skip = false;
        int64_t index = 0;
        for (int64_t k = 0; k < D; ++k) {
          const K elt = real_value(in[i * D + k]);
          const std::vector<K>& e = edges[k];
          const int64_t ne = d.num_edges[k];
          const K left = e[0], right = e[ne - 1];
          if (!(elt >= left && elt <= right)) {
            skip = true;
            break;
          }
          int64_t pos;
          if (d.select == BinSelect::kBinarySearch) {
            pos = std::upper_bound(e.begin(), e.end(), elt) - e.begin() - 1;
          } else {
            // Each step in the element type, as CPU's input_t arithmetic
            // (float16/bfloat16 round after every operation).
            const K span = rnd(right - left), scale = rnd(static_cast<K>(ne - 1));
            pos = static_cast<int64_t>(rnd(rnd(rnd(elt - left) * scale) / span));
            if (d.select == BinSelect::kLinearLocalSearch) {
              const int64_t lo = std::max<int64_t>(0, pos - 1), hi = std::min<int64_t>(pos + 2, ne);
              pos = std::upper_bound(e.begin() + lo, e.begin() + hi, elt) - e.begin() - 1;
            }
          }
          if (pos == ne - 1) pos -= 1;  // the last bin includes its right edge
          index += stride[k] * pos;
        }
        if (skip) continue;
        const K w = wt ? real_value(wt[i]) : K(1);
        h[index] = convert<T>(real_value(h[index]) + w);
      }
    }
  });
  // The partial histograms summed (CPU: sum over the thread dimension).
  for (int64_t b = 0; b < bins; ++b) {
    std::conditional_t<std::is_same_v<T, double>, double, float> acc = 0;
    for (int64_t p = 0; p < parts; ++p) acc += real_value(local[p * bins + b]);
    hist[b] = convert<T>(acc);
  }
}

template <typename I, typename W>
void bincount_typed(const I* src, int64_t n, const W* weight, W* counts, int64_t bins) {
  std::fill(counts, counts + bins, W(0));
  for (int64_t i = 0; i < n; ++i) counts[src[i]] += weight ? weight[i] : W(1);
}

template <typename T>
void histc_integer_typed(const T* src, int64_t n, int64_t lo, int64_t hi, int64_t bins, T* hist) {
  const int64_t parts = std::max<int64_t>(1, std::min<int64_t>(runtime::current_core_count(), n / 4096));
  std::vector<int64_t> local(parts * bins, 0);
  // (x - lo) * bins wraps as CUDA's int64 arithmetic does (unsigned here:
  // no undefined behaviour); a bin outside the histogram can only come from
  // such an overflow and is dropped instead of written out of bounds.
  const int64_t span = static_cast<int64_t>(static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo));
  // span <= 0: hi - lo overflowed int64 (a full int64 range), no defined bin
  if (span > 0) runtime::parallel_for(0, parts, 1, [&](int64_t pb, int64_t pe) {
    for (int64_t p = pb; p < pe; ++p) {
      int64_t* h = local.data() + p * bins;
      for (int64_t i = p * n / parts; i < (p + 1) * n / parts; ++i) {
        const int64_t x = static_cast<int64_t>(src[i]);
        if (x < lo || x > hi) continue;
        const int64_t scaled = static_cast<int64_t>((static_cast<uint64_t>(x) - static_cast<uint64_t>(lo)) *
                                                    static_cast<uint64_t>(bins));
        int64_t bin = static_cast<int32_t>(scaled / span);  // CUDA's (int) cast
        if (bin == bins) bin -= 1;
        if (bin >= 0 && bin < bins) ++h[bin];
      }
    }
  });
  for (int64_t b = 0; b < bins; ++b) {
    uint64_t acc = 0;
    for (int64_t p = 0; p < parts; ++p) acc += static_cast<uint64_t>(local[p * bins + b]);
    hist[b] = static_cast<T>(acc);
  }
}

}  // namespace

void histc_integer(DType t, const void* src, int64_t n, int64_t lo, int64_t hi, int64_t bins, void* hist) {
  switch (t) {
    case DType::kUInt8: return histc_integer_typed(static_cast<const uint8_t*>(src), n, lo, hi, bins, static_cast<uint8_t*>(hist));
    case DType::kInt8: return histc_integer_typed(static_cast<const int8_t*>(src), n, lo, hi, bins, static_cast<int8_t*>(hist));
    case DType::kInt16: return histc_integer_typed(static_cast<const int16_t*>(src), n, lo, hi, bins, static_cast<int16_t*>(hist));
    case DType::kInt32: return histc_integer_typed(static_cast<const int32_t*>(src), n, lo, hi, bins, static_cast<int32_t*>(hist));
    case DType::kInt64: return histc_integer_typed(static_cast<const int64_t*>(src), n, lo, hi, bins, static_cast<int64_t*>(hist));
    default: throw std::invalid_argument("torch_tpu kernels: histc_integer: unsupported dtype");
  }
}

bool histogram_supports(DType t) {
  return t == DType::kFloat16 || t == DType::kBFloat16 || t == DType::kFloat32 || t == DType::kFloat64;
}

void histogramdd(const HistogramDesc& d) {
  switch (d.dtype) {
    case DType::kFloat16: return histogram_typed<Half>(d);
    case DType::kBFloat16: return histogram_typed<BFloat16>(d);
    case DType::kFloat32: return histogram_typed<float>(d);
    case DType::kFloat64: return histogram_typed<double>(d);
    default: throw std::invalid_argument("torch_tpu kernels: histogramdd: unsupported dtype");
  }
}

void integer_range(DType t, const void* src, int64_t n, int64_t* range) {
  visit_dtype(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      const T* s = static_cast<const T*>(src);
      const auto [mn, mx] = std::minmax_element(s, s + n);
      range[0] = static_cast<int64_t>(*mn);
      range[1] = static_cast<int64_t>(*mx);
    } else {
      throw std::invalid_argument("torch_tpu kernels: integer_range: not an integer dtype");
    }
  });
}

void bincount(DType t, const void* src, int64_t n, const void* weight, DType weight_dtype, void* counts,
              int64_t bins) {
  visit_dtype(t, [&](auto tag) {
    using I = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<I>) {
      const I* s = static_cast<const I*>(src);
      if (!weight) {
        bincount_typed<I, int64_t>(s, n, nullptr, static_cast<int64_t*>(counts), bins);
      } else if (weight_dtype == DType::kFloat32) {
        bincount_typed<I, float>(s, n, static_cast<const float*>(weight), static_cast<float*>(counts), bins);
      } else {
        bincount_typed<I, double>(s, n, static_cast<const double*>(weight), static_cast<double*>(counts), bins);
      }
    } else {
      throw std::invalid_argument("torch_tpu kernels: bincount: not an integer dtype");
    }
  });
}

}  // namespace torch_tpu::kernels
