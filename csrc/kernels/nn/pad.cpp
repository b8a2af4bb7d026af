// Reflection / replication padding (pad.h). The planes split over the
// device cores; the source index of each output position is computed once
// per dimension and reused for every plane.
#include <cstring>
#include <stdexcept>
#include <vector>

#include "kernels/nn/rows.h"
#include "kernels/nn/pad.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

std::vector<int64_t> sources(PadMode mode, int64_t n, int64_t l, int64_t out) {
  const int64_t shift = std::max<int64_t>(0, -l) - std::max<int64_t>(0, l);
  std::vector<int64_t> src(out);
  for (int64_t j = 0; j < out; ++j) {
    int64_t ip;
    if (j < l) {
      ip = mode == PadMode::kReflect ? 2 * l - j : l;
    } else if (j < n + l) {
      ip = j;
    } else {
      ip = mode == PadMode::kReflect ? 2 * (n + l - 1) - j : n + l - 1;
    }
    src[j] = ip + shift;
  }
  return src;
}

struct Map {
  std::vector<int64_t> flat;  // output position -> input position in a plane
  int64_t in_total = 1, out_total = 1;
};

Map map_of(const PadDesc& d) {
  Map m;
  std::vector<int64_t> s[3];
  for (int i = 0; i < 3; ++i) {
    s[i] = sources(d.mode, d.in[i], d.pad_lo[i], d.out[i]);
    m.in_total *= d.in[i];
    m.out_total *= d.out[i];
  }
  m.flat.resize(m.out_total);
  int64_t o = 0;
  for (int64_t a : s[0]) {
    for (int64_t b : s[1]) {
      for (int64_t c : s[2]) m.flat[o++] = (a * d.in[1] + b) * d.in[2] + c;
    }
  }
  return m;
}

template <typename E>
void forward_bits(const PadDesc& d, const Map& m, const void* x, void* y) {
  runtime::parallel_for(0, d.planes, nn::rows_grain(m.out_total), [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const E* src = static_cast<const E*>(x) + p * m.in_total;
      E* dst = static_cast<E*>(y) + p * m.out_total;
      for (int64_t o = 0; o < m.out_total; ++o) dst[o] = src[m.flat[o]];
    }
  });
}

struct Bits16 { uint64_t lo, hi; };  // complex128

// A complex gradient sums its real and imaginary parts independently, so a
// complex plane is summed as interleaved pairs of its part type (lanes = 2).
template <typename C>
void backward_typed(const PadDesc& d, const Map& m, DType part, int lanes, const void* grad_output,
                    void* grad_input) {
  const int64_t in_n = m.in_total * lanes, out_n = m.out_total * lanes;
  runtime::parallel_for(0, d.planes, nn::rows_grain(out_n), [&](int64_t b, int64_t e) {
    std::vector<C> acc(in_n), g(out_n);
    for (int64_t p = b; p < e; ++p) {
      std::fill(acc.begin(), acc.end(), C(0));
      nn::load_row(grad_output, part, p * out_n, out_n, g.data());
      if (lanes == 1) {
        for (int64_t o = 0; o < m.out_total; ++o) acc[m.flat[o]] += g[o];
      } else {
        for (int64_t o = 0; o < m.out_total; ++o) {
          acc[2 * m.flat[o]] += g[2 * o];
          acc[2 * m.flat[o] + 1] += g[2 * o + 1];
        }
      }
      nn::store_row(acc.data(), in_n, grad_input, part, p * in_n);
    }
  });
}

}  // namespace

void pad_forward(const PadDesc& d, const void* x, void* y) {
  const Map m = map_of(d);
  switch (dtype_size(d.dtype)) {
    case 1: return forward_bits<uint8_t>(d, m, x, y);
    case 2: return forward_bits<uint16_t>(d, m, x, y);
    case 4: return forward_bits<uint32_t>(d, m, x, y);
    case 8: return forward_bits<uint64_t>(d, m, x, y);
    case 16: return forward_bits<Bits16>(d, m, x, y);
    default: throw std::invalid_argument("pad: unsupported element size");
  }
}

void pad_backward(const PadDesc& d, const void* grad_output, void* grad_input) {
  const bool complex = d.dtype == DType::kComplex64 || d.dtype == DType::kComplex128;
  if (!complex && !nn::is_nn_float(d.dtype)) throw std::invalid_argument("pad backward: unsupported dtype");
  const DType part = d.dtype == DType::kComplex64 ? DType::kFloat32
                     : d.dtype == DType::kComplex128 ? DType::kFloat64 : d.dtype;
  const Map m = map_of(d);
  nn::with_compute_type(part, [&](auto c) {
    backward_typed<decltype(c)>(d, m, part, complex ? 2 : 1, grad_output, grad_input);
  });
}

}  // namespace torch_tpu::kernels
