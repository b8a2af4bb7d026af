// Matrix-vector and dot products (gemm with one output row or column).
//
// Normalised to  y[i] = alpha * sum_k M[i, k] x[k] + beta * s[i]  per batch:
// for n == 1, M = A and x = B's column; for m == 1, M = B^T and x = A's row.
// Memory bound: M is read once, in place (no packing). Rows with unit k
// stride are dot products with four vector accumulators; rows with unit row
// stride (a transposed M) are axpy updates of a block of outputs; anything
// else is scalar. Reduced precision accumulates in float.
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

// GCC 12 reports its own _mm512_cvtph_ps (avx512fintrin.h) as "maybe
// uninitialized" when inlined into the float16 loads: a false positive in the
// compiler's header.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "kernels/linalg/gemm_internal.h"
#include "kernels/common/half.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
inline namespace TORCH_TPU_ISA {  // see isa.h
namespace gemm_detail {
namespace {

constexpr int64_t kRowBlock = 64;
constexpr int64_t kKChunk = 16384;

// a * b + c; integers modulo 2^bits without promotion to int.
template <typename Acc>
inline Acc madd(Acc a, Acc b, Acc c) {
  if constexpr (std::is_integral_v<Acc>) {
    return static_cast<Acc>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b) + static_cast<uint64_t>(c));
  } else {
    return a * b + c;
  }
}

template <typename Acc>
struct Vec {
  typedef Acc V __attribute__((vector_size(64)));
  static constexpr int kWidth = 64 / static_cast<int>(sizeof(Acc));
};

// 64 bytes of accumulator lanes from kWidth elements of In.
template <typename In, typename Acc>
inline typename Vec<Acc>::V load_vec(const In* p) {
  using V = typename Vec<Acc>::V;
  V v;
  if constexpr (sizeof(In) == sizeof(Acc)) {
    std::memcpy(&v, p, sizeof(V));  // same type, or signed -> unsigned bits
  } else if constexpr (std::is_same_v<In, BFloat16>) {
    typedef uint16_t H __attribute__((vector_size(32)));
    typedef uint32_t U __attribute__((vector_size(64)));
    H h;
    std::memcpy(&h, p, sizeof(H));
    const U u = __builtin_convertvector(h, U) << 16;
    std::memcpy(&v, &u, sizeof(V));
  } else {
#if defined(__AVX512F__)
    if constexpr (std::is_same_v<In, Half>) {
      const __m512 f = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
      std::memcpy(&v, &f, sizeof(V));
      return v;
    }
#endif
    for (int l = 0; l < Vec<Acc>::kWidth; ++l) v[l] = widen_to<Acc>(p[l]);
  }
  return v;
}

// sum_k a[k] * x[k], a contiguous.
template <typename In, typename Acc>
Acc dot_contiguous(const In* a, const Acc* x, int64_t n) {
  using V = typename Vec<Acc>::V;
  constexpr int W = Vec<Acc>::kWidth;
  V s0{}, s1{}, s2{}, s3{};
  int64_t i = 0;
  auto xv = [&](int64_t j) {
    V v;
    std::memcpy(&v, x + j, sizeof(V));
    return v;
  };
  for (; i + 4 * W <= n; i += 4 * W) {
    s0 += load_vec<In, Acc>(a + i) * xv(i);
    s1 += load_vec<In, Acc>(a + i + W) * xv(i + W);
    s2 += load_vec<In, Acc>(a + i + 2 * W) * xv(i + 2 * W);
    s3 += load_vec<In, Acc>(a + i + 3 * W) * xv(i + 3 * W);
  }
  for (; i + W <= n; i += W) s0 += load_vec<In, Acc>(a + i) * xv(i);
  using E2 = std::conditional_t<std::is_integral_v<Acc>, uint64_t, Acc>;
  V s = (s0 + s1) + (s2 + s3);
  // Pairwise over the lanes.
  for (int w = W / 2; w >= 1; w /= 2) {
    for (int l = 0; l < w; ++l) s[l] = static_cast<Acc>(static_cast<E2>(s[l]) + static_cast<E2>(s[l + w]));
  }
  Acc r = s[0];
  for (; i < n; ++i) r = madd(widen_to<Acc>(a[i]), x[i], r);
  return r;
}

struct Problem {
  int64_t batch, rows, k;
  const void* M;
  int64_t mrs, mks, mbs;
  const void* x;
  int64_t xs, xbs;
  void* y;
  int64_t ys, ybs;
  const void* s;
  int64_t ss, sbs;
};

template <typename In, typename Acc>
void gemv_typed(const GemmDesc& d, const Problem& p) {
  // Integers: modulo 2^bits in uint64_t (no promotion to int, no overflow UB).
  using E = std::conditional_t<std::is_integral_v<Acc>, uint64_t, Acc>;
  const E alpha = std::is_integral_v<Acc> ? static_cast<E>(d.ialpha) : static_cast<E>(d.alpha);
  const E beta = std::is_integral_v<Acc> ? static_cast<E>(d.ibeta) : static_cast<E>(d.beta);
  const In* M = static_cast<const In*>(p.M);
  const In* X = static_cast<const In*>(p.x);
  In* Y = static_cast<In*>(p.y);
  const In* S = static_cast<const In*>(p.s);

  const int64_t n_rb = (p.rows + kRowBlock - 1) / kRowBlock;
  const int64_t n_kc = (p.batch * n_rb < 8 && p.k > 2 * kKChunk) ? (p.k + kKChunk - 1) / kKChunk : 1;
  const int64_t kch = n_kc == 1 ? p.k : kKChunk;
  std::vector<Acc> partial(n_kc > 1 ? p.batch * p.rows * n_kc : 0);

  auto finish = [&](int64_t b, int64_t i, Acc v, bool products) {
    E out = products ? alpha * static_cast<E>(v) : E{};
    if (!d.beta_zero) {
      out += beta * static_cast<E>(widen_to<Acc>(S[b * p.sbs + i * p.ss]));
    }
    Y[b * p.ybs + i * p.ys] = narrow_from<In>(static_cast<Acc>(out));
  };

  auto task = [&](int64_t t, std::vector<Acc>& xbuf) {
    const int64_t b = t / (n_rb * n_kc);
    const int64_t rb = (t / n_kc) % n_rb;
    const int64_t kc = t % n_kc;
    const int64_t r0 = rb * kRowBlock, rn = std::min(kRowBlock, p.rows - r0);
    const int64_t k0 = kc * kch, kn = std::min(kch, p.k - k0);
    xbuf.resize(kn);
    const In* xb = X + b * p.xbs + k0 * p.xs;
    for (int64_t kk = 0; kk < kn; ++kk) xbuf[kk] = widen_to<Acc>(xb[kk * p.xs]);
    Acc acc[kRowBlock] = {};
    const In* Mb = M + b * p.mbs + r0 * p.mrs + k0 * p.mks;
    if (p.mks == 1) {
      for (int64_t r = 0; r < rn; ++r) acc[r] = dot_contiguous<In, Acc>(Mb + r * p.mrs, xbuf.data(), kn);
    } else if (p.mrs == 1) {
      for (int64_t kk = 0; kk < kn; ++kk) {
        const In* col = Mb + kk * p.mks;
        const Acc xv = xbuf[kk];
        for (int64_t r = 0; r < rn; ++r) acc[r] = madd(widen_to<Acc>(col[r]), xv, acc[r]);
      }
    } else {
      for (int64_t r = 0; r < rn; ++r) {
        Acc a{};
        for (int64_t kk = 0; kk < kn; ++kk) a = madd(widen_to<Acc>(Mb[r * p.mrs + kk * p.mks]), xbuf[kk], a);
        acc[r] = a;
      }
    }
    if (n_kc == 1) {
      for (int64_t r = 0; r < rn; ++r) finish(b, r0 + r, acc[r], p.k > 0);
    } else {
      for (int64_t r = 0; r < rn; ++r) partial[((b * p.rows) + r0 + r) * n_kc + kc] = acc[r];
    }
  };

  const int64_t tasks = p.batch * n_rb * n_kc;
  runtime::parallel_for(0, tasks, 1, [&](int64_t t0, int64_t t1) {
    std::vector<Acc> xbuf;
    for (int64_t t = t0; t < t1; ++t) task(t, xbuf);
  });
  if (n_kc > 1) {
    for (int64_t b = 0; b < p.batch; ++b) {
      for (int64_t i = 0; i < p.rows; ++i) {
        const Acc* q = &partial[(b * p.rows + i) * n_kc];
        Acc v = q[0];
        for (int64_t c = 1; c < n_kc; ++c) v = static_cast<Acc>(static_cast<E>(v) + static_cast<E>(q[c]));
        finish(b, i, v, true);
      }
    }
  }
}

}  // namespace

void gemv_for_gemm(const GemmDesc& d) {
  Problem p;
  p.batch = d.batch;
  p.k = d.k;
  if (d.n == 1) {
    p.rows = d.m;
    p.M = d.a.data, p.mrs = d.a.row_stride, p.mks = d.a.col_stride, p.mbs = d.a.batch_stride;
    p.x = d.b.data, p.xs = d.b.row_stride, p.xbs = d.b.batch_stride;
    p.y = d.c.data, p.ys = d.c.row_stride, p.ybs = d.c.batch_stride;
    p.s = d.s.data, p.ss = d.s.row_stride, p.sbs = d.s.batch_stride;
  } else {
    p.rows = d.n;
    p.M = d.b.data, p.mrs = d.b.col_stride, p.mks = d.b.row_stride, p.mbs = d.b.batch_stride;
    p.x = d.a.data, p.xs = d.a.col_stride, p.xbs = d.a.batch_stride;
    p.y = d.c.data, p.ys = d.c.col_stride, p.ybs = d.c.batch_stride;
    p.s = d.s.data, p.ss = d.s.col_stride, p.sbs = d.s.batch_stride;
  }
  switch (d.dtype) {
    case DType::kFloat32: return gemv_typed<float, float>(d, p);
    case DType::kFloat64: return gemv_typed<double, double>(d, p);
    case DType::kFloat16: return gemv_typed<Half, float>(d, p);
    case DType::kBFloat16: return gemv_typed<BFloat16, float>(d, p);
    case DType::kUInt8: return gemv_typed<uint8_t, uint8_t>(d, p);
    case DType::kInt8: return gemv_typed<int8_t, uint8_t>(d, p);
    case DType::kInt16: return gemv_typed<int16_t, uint16_t>(d, p);
    case DType::kInt32: return gemv_typed<int32_t, uint32_t>(d, p);
    case DType::kInt64: return gemv_typed<int64_t, uint64_t>(d, p);
    default:
      throw std::invalid_argument(std::string("gemv: unsupported dtype ") + dtype_name(d.dtype));
  }
}

}  // namespace gemm_detail
}  // namespace TORCH_TPU_ISA
}  // namespace torch_tpu::kernels
