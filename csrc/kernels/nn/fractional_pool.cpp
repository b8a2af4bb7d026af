// fractional_max_pool forward (fractional_pool.h): one plane per task.
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "kernels/common/half.h"
#include "kernels/nn/fractional_pool.h"
#include "kernels/nn/rows.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

// ATen computes the starts in the input's dtype: for float16/bfloat16 every
// operation rounds to it (r).
template <typename C>
C fp_round(DType t, C v) {
  const float f = static_cast<float>(v);
  if (t == DType::kFloat16) return static_cast<C>(half_bits_to_float(float_to_half_bits(f)));
  if (t == DType::kBFloat16) return static_cast<C>(bfloat16_bits_to_float(float_to_bfloat16_bits(f)));
  return v;
}

template <typename C>
void window_starts(DType t, C sample, int64_t in, int64_t out, int64_t pool, int64_t* start) {
  auto r = [t](C v) { return fp_round<C>(t, v); };
  if (out > 1) {
    const C alpha = r(r(static_cast<C>(in - pool)) / r(static_cast<C>(out - 1)));
    for (int64_t i = 0; i < out - 1; ++i) {
      start[i] = static_cast<int>(r(r(static_cast<C>(i) + sample) * alpha)) - static_cast<int>(r(sample * alpha));
    }
  }
  if (out > 0) start[out - 1] = in - pool;
}

template <typename C>
void forward_typed(const FractionalPoolDesc& d, const void* x, const void* samples, void* y, int64_t* indices) {
  const int64_t in_total = d.in[0] * d.in[1] * d.in[2], out_total = d.out[0] * d.out[1] * d.out[2];
  const int first = 3 - d.dims;
  runtime::parallel_for(0, d.planes, nn::rows_grain(out_total * d.pool[0] * d.pool[1] * d.pool[2]),
                        [&](int64_t b, int64_t e) {
    std::vector<C> in(in_total), out(out_total), u(d.dims);
    std::vector<int64_t> start[3];
    for (int a = 0; a < 3; ++a) start[a].assign(d.out[a], 0);
    for (int64_t p = b; p < e; ++p) {
      nn::load_row(x, d.dtype, p * in_total, in_total, in.data());
      nn::load_row(samples, d.dtype, p * d.dims, d.dims, u.data());
      for (int a = first; a < 3; ++a) {
        // 2-d planes carry (w, h), 3-d ones (t, h, w)
        const C s = d.dims == 2 ? u[a == 2 ? 0 : 1] : u[a];
        window_starts<C>(d.dtype, s, d.in[a], d.out[a], d.pool[a], start[a].data());
      }
      int64_t* idx = indices + p * out_total;
      int64_t o = 0;
      for (int64_t ot = 0; ot < d.out[0]; ++ot) {
        for (int64_t oh = 0; oh < d.out[1]; ++oh) {
          for (int64_t ow = 0; ow < d.out[2]; ++ow, ++o) {
            const int64_t t0 = start[0][ot], h0 = start[1][oh], w0 = start[2][ow];
            C best = -std::numeric_limits<C>::infinity();
            int64_t best_at = (t0 * d.in[1] + h0) * d.in[2] + w0;
            for (int64_t t = t0; t < t0 + d.pool[0]; ++t) {
              for (int64_t h = h0; h < h0 + d.pool[1]; ++h) {
                for (int64_t w = w0; w < w0 + d.pool[2]; ++w) {
                  const int64_t at = (t * d.in[1] + h) * d.in[2] + w;
                  const C v = in[at];
                  if (v > best || std::isnan(v)) {
                    best = v;
                    best_at = at;
                  }
                }
              }
            }
            out[o] = best;
            idx[o] = best_at;
          }
        }
      }
      nn::store_row(out.data(), out_total, y, d.dtype, p * out_total);
    }
  });
}

}  // namespace

void fractional_max_pool_forward(const FractionalPoolDesc& d, const void* x, const void* samples, void* y,
                                 int64_t* indices) {
  if (!nn::is_nn_float(d.dtype)) throw std::invalid_argument("fractional_max_pool: unsupported dtype");
  nn::with_compute_type(d.dtype, [&](auto c) { forward_typed<decltype(c)>(d, x, samples, y, indices); });
}

}  // namespace torch_tpu::kernels
