// segment_reduce and its backward (segment_reduce.h).
#include "kernels/reduce/segment_reduce.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "kernels/common/convert.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

// Segment s of outer row o: [start, end) along the axis.
template <typename I>
struct Segments {
  const I* p;
  bool offsets;
  int64_t segments;
  std::pair<int64_t, int64_t> operator()(int64_t o, int64_t s, int64_t& running_end) const {
    if (offsets) {
      const I* row = p + o * (segments + 1);
      return {static_cast<int64_t>(row[s]), static_cast<int64_t>(row[s + 1])};
    }
    const int64_t start = running_end;
    running_end += static_cast<int64_t>(p[o * segments + s]);
    return {start, running_end};
  }
};

// Arithmetic in the element type, as CPU's scalar_t loop: float16/bfloat16
// round after every operation.
template <typename T>
struct Elem {
  using K = decltype(real_value(T{}));
  static K rnd(K v) { return real_value(convert<T>(v)); }
};

template <typename T, typename I>
void forward_typed(const SegmentReduceDesc& d) {
  using K = typename Elem<T>::K;
  const T* data = static_cast<const T*>(d.data);
  T* out = static_cast<T*>(d.output);
  const Segments<I> seg{static_cast<const I*>(d.lengths_or_offsets), d.offsets, d.segments};
  const K init = d.has_initial ? Elem<T>::rnd(static_cast<K>(d.initial))
                 : d.reduction == SegmentReduction::kMax ? -std::numeric_limits<K>::infinity()
                 : d.reduction == SegmentReduction::kMin ? std::numeric_limits<K>::infinity()
                 : d.reduction == SegmentReduction::kProd ? K(1) : K(0);
  runtime::parallel_for(0, d.outer, 1, [&](int64_t o0, int64_t o1) {
    for (int64_t o = o0; o < o1; ++o) {
      int64_t running = 0;
      for (int64_t s = 0; s < d.segments; ++s) {
        const auto [start, end] = seg(o, s, running);
        for (int64_t i = 0; i < d.inner; ++i) {
          K acc = init;
          for (int64_t j = start; j < end; ++j) {
            const K v = real_value(data[(o * d.size + j) * d.inner + i]);
            switch (d.reduction) {
              case SegmentReduction::kMax: acc = std::isnan(v) ? v : std::max(acc, v); break;
              case SegmentReduction::kMin: acc = std::isnan(v) ? v : std::min(acc, v); break;
              case SegmentReduction::kProd: acc = Elem<T>::rnd(acc * v); break;
              default: acc = Elem<T>::rnd(acc + v); break;
            }
          }
          const int64_t length = end - start;
          if (d.reduction == SegmentReduction::kMean) {
            if (length == 0 && !d.has_initial) {
              acc = std::numeric_limits<K>::quiet_NaN();
            } else if (length > 0 && !std::isnan(acc)) {
              acc = Elem<T>::rnd(acc / static_cast<K>(length));
            }
          }
          out[(o * d.segments + s) * d.inner + i] = convert<T>(acc);
        }
      }
    }
  });
}

template <typename T, typename I>
void backward_typed(const SegmentReduceDesc& d) {
  using K = typename Elem<T>::K;
  auto rnd = Elem<T>::rnd;
  const T* data = static_cast<const T*>(d.data);
  const T* grad = static_cast<const T*>(d.grad);
  const T* fwd = static_cast<const T*>(d.forward_output);
  T* gin = static_cast<T*>(d.grad_input);
  const Segments<I> seg{static_cast<const I*>(d.lengths_or_offsets), d.offsets, d.segments};
  const K initial_prod = d.has_initial ? rnd(static_cast<K>(d.initial)) : K(1);
  runtime::parallel_for(0, d.outer, 1, [&](int64_t o0, int64_t o1) {
    for (int64_t o = o0; o < o1; ++o) {
      int64_t running = 0;
      for (int64_t s = 0; s < d.segments; ++s) {
        const auto [start, end] = seg(o, s, running);
        const int64_t length = end - start;
        if (length == 0) continue;
        for (int64_t i = 0; i < d.inner; ++i) {
          const int64_t oi = (o * d.segments + s) * d.inner + i;
          const K g = real_value(grad[oi]), y = real_value(fwd[oi]);
          auto at = [&](int64_t j) { return (o * d.size + j) * d.inner + i; };
          switch (d.reduction) {
            case SegmentReduction::kMax:
            case SegmentReduction::kMin: {
              int64_t ties = 0;
              for (int64_t j = start; j < end; ++j) {
                const K v = real_value(data[at(j)]);
                if (std::isnan(v) || v == y) {
                  gin[at(j)] = grad[oi];
                  ++ties;
                }
              }
              if (ties < 2) break;
              // CPU divides only the gradients that are > 0.
              for (int64_t j = start; j < end; ++j) {
                const K v = real_value(gin[at(j)]);
                if (v > 0) gin[at(j)] = convert<T>(rnd(v / static_cast<K>(ties)));
              }
              break;
            }
            case SegmentReduction::kMean: {
              const T gv = convert<T>(rnd(g / static_cast<K>(length)));
              for (int64_t j = start; j < end; ++j) gin[at(j)] = gv;
              break;
            }
            case SegmentReduction::kSum:
              for (int64_t j = start; j < end; ++j) gin[at(j)] = grad[oi];
              break;
            case SegmentReduction::kProd: {
              const K gy = rnd(g * y);
              for (int64_t j = start; j < end; ++j) {
                const K v = real_value(data[at(j)]);
                if (std::isnan(v) || v == 0) {
                  K exclusive = initial_prod;  // the product of the others
                  for (int64_t k = start; k < end; ++k) {
                    if (k != j) exclusive = rnd(exclusive * real_value(data[at(k)]));
                  }
                  gin[at(j)] = convert<T>(rnd(g * exclusive));
                } else {
                  gin[at(j)] = convert<T>(rnd(gy / v));
                }
              }
              break;
            }
          }
        }
      }
    }
  });
}

// f(T{}, I{}) for the element and index types of d.
template <typename F>
void visit_segment_types(const SegmentReduceDesc& d, F&& f) {
  auto with_index = [&](auto element) {
    if (d.index_dtype == DType::kInt32) return f(element, int32_t{});
    if (d.index_dtype == DType::kInt64) return f(element, int64_t{});
    throw std::invalid_argument("torch_tpu kernels: segment_reduce: lengths/offsets must be int32 or int64");
  };
  switch (d.dtype) {
    case DType::kFloat16: return with_index(Half{});
    case DType::kBFloat16: return with_index(BFloat16{});
    case DType::kFloat32: return with_index(float{});
    case DType::kFloat64: return with_index(double{});
    default: throw std::invalid_argument("torch_tpu kernels: segment_reduce: unsupported dtype");
  }
}

}  // namespace

bool segment_reduce_supports(DType t) {
  return t == DType::kFloat16 || t == DType::kBFloat16 || t == DType::kFloat32 || t == DType::kFloat64;
}

void segment_reduce(const SegmentReduceDesc& d) {
  visit_segment_types(d, [&](auto element, auto index) {
    forward_typed<decltype(element), decltype(index)>(d);
  });
}

void segment_reduce_backward(const SegmentReduceDesc& d) {
  visit_segment_types(d, [&](auto element, auto index) {
    backward_typed<decltype(element), decltype(index)>(d);
  });
}

}  // namespace torch_tpu::kernels
