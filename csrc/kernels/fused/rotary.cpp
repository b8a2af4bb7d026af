// Rotary position embedding over the rows of [rows, n] (tpu::rotary_embedding
// and its in-place form): y = x * cos + rotate_half(x) * sin, with
// rotate_half(x) = cat(-x[h:], x[:h]), h = n / 2. Each row reads its cos/sin
// row through the table_row index (the launcher broadcasts them). A row is
// read whole before it is written, so y may be x.
#include "kernels/common/fp_contract.h"
#include <stdexcept>
#include <vector>

#include "kernels/fused/fused.h"
#include "kernels/nn/rows.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

template <typename C>
void rotary_typed(const RotaryDesc& d) {
  const int64_t n = d.n, h = n / 2;
  runtime::parallel_for(0, d.rows, nn::rows_grain(n), [&](int64_t b, int64_t e) {
    std::vector<C> x(n), c(n), s(n), y(n);
    for (int64_t r = b; r < e; ++r) {
      const int64_t t = d.table_row[r];
      nn::load_row(d.x, d.dtype, r * n, n, x.data());
      nn::load_row(d.cos, d.dtype, t * n, n, c.data());
      nn::load_row(d.sin, d.dtype, t * n, n, s.data());
      for (int64_t i = 0; i < h; ++i) y[i] = x[i] * c[i] - x[i + h] * s[i];
      for (int64_t i = h; i < n; ++i) y[i] = x[i] * c[i] + x[i - h] * s[i];
      nn::store_row(y.data(), n, d.y, d.dtype, r * n);
    }
  });
}

}  // namespace

void rotary_embedding(const RotaryDesc& d) {
  if (!nn::is_nn_float(d.dtype)) throw std::invalid_argument("rotary_embedding: unsupported dtype");
  if (d.n % 2 != 0) throw std::invalid_argument("rotary_embedding: the last dimension must be even");
  if (d.rows * d.n == 0) return;
  nn::with_compute_type(d.dtype, [&](auto c) { rotary_typed<decltype(c)>(d); });
}

}  // namespace torch_tpu::kernels
