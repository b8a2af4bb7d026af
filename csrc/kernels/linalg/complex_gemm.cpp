// Complex GEMM (complex64, complex128) on the device BLAS: cgemm/zgemm of the
// library lapack.h opens (OpenBLAS), as cuBLAS serves CUDA's complex
// matmuls. Why not gemm.cpp's micro-kernels: complex numbers interleave their
// parts, so a complex micro-kernel is a second kernel family per ISA (or four
// real GEMMs on split planes, with two extra passes over every operand);
// OpenBLAS already has tuned ones for every x86 level, chosen at run time.
//
// BLAS is column-major, PyTorch's matrices are strided: each block of C rows
// is computed as the column-major product C^T = B^T A^T, so a row-major
// operand is read in place untransposed, a column-major one transposed ('T',
// or 'C' when conjugated), and anything else (broadcast, sliced both ways,
// a conjugated row-major view) is first copied row-major. A C without unit
// column stride is computed into a buffer and written back with beta * S.
// Row blocks of each matrix are spread over the device's cores; the library
// runs single-threaded inside each (lapack.cpp).
#include "kernels/linalg/complex_gemm.h"

#include <algorithm>
#include <complex>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kernels/linalg/lapack.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

using Len = size_t;  // gfortran's hidden length of a character argument
template <typename T>
using BlasGemm = void (*)(const char*, const char*, const int*, const int*, const int*, const T*,
                          const T*, const int*, const T*, const int*, const T*, T*, const int*,
                          Len, Len);

int blas_int(int64_t v) {
  if (v > INT32_MAX) throw std::runtime_error("complex gemm: a size or stride exceeds 32-bit BLAS");
  return static_cast<int>(v);
}

// An operand M (rows x cols, element strides rs and cs) as BLAS reads the
// transposed factor: op(X) == M^T, X column-major with leading dimension ld.
template <typename T>
struct Operand {
  const T* data;
  char op;
  int ld;
};

template <typename T>
Operand<T> operand(const T* m, int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool conj,
                   std::vector<T>& buf) {
  const bool row_major = (cols == 1 || cs == 1) && (rows == 1 || rs >= std::max<int64_t>(1, cols));
  const bool col_major = (rows == 1 || rs == 1) && (cols == 1 || cs >= std::max<int64_t>(1, rows));
  // Row-major M is column-major M^T: no transposition (and no way to
  // conjugate without one).
  if (row_major && !conj) return {m, 'N', blas_int(rows == 1 ? std::max<int64_t>(1, cols) : rs)};
  if (col_major) return {m, conj ? 'C' : 'T', blas_int(cols == 1 ? std::max<int64_t>(1, rows) : cs)};
  buf.resize(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      const T x = m[i * rs + j * cs];
      buf[i * cols + j] = conj ? std::conj(x) : x;
    }
  }
  return {buf.data(), 'N', blas_int(std::max<int64_t>(1, cols))};
}

struct Block {
  int64_t batch, row0, rows;
};

template <typename T>
void gemm_block(const GemmDesc& d, BlasGemm<T> blas, const Block& blk, std::vector<T>& abuf,
                std::vector<T>& bbuf, std::vector<T>& cbuf) {
  const T alpha(static_cast<typename T::value_type>(d.alpha), static_cast<typename T::value_type>(d.alpha_imag));
  const T beta(static_cast<typename T::value_type>(d.beta), static_cast<typename T::value_type>(d.beta_imag));
  const int64_t mb = blk.rows, n = d.n, k = d.k;
  const T* A = static_cast<const T*>(d.a.data) + blk.batch * d.a.batch_stride + blk.row0 * d.a.row_stride;
  const T* B = static_cast<const T*>(d.b.data) + blk.batch * d.b.batch_stride;
  T* C = static_cast<T*>(d.c.data) + blk.batch * d.c.batch_stride + blk.row0 * d.c.row_stride;
  const T* S = d.beta_zero ? nullptr
                           : static_cast<const T*>(d.s.data) + blk.batch * d.s.batch_stride +
                                 blk.row0 * d.s.row_stride;
  const bool s_is_c = S == C && d.s.row_stride == d.c.row_stride && d.s.col_stride == d.c.col_stride;

  // Where BLAS writes: C itself (unit column stride), or a row-major buffer.
  const bool direct = (n == 1 || d.c.col_stride == 1) && (mb == 1 || d.c.row_stride >= std::max<int64_t>(1, n));
  T* out = C;
  int64_t ldo = mb == 1 ? std::max<int64_t>(1, n) : d.c.row_stride;
  T out_beta(0);
  if (direct && S != nullptr) {
    // BLAS scales what C holds by beta: S, copied in unless it is C.
    if (!s_is_c) {
      for (int64_t i = 0; i < mb; ++i)
        for (int64_t j = 0; j < n; ++j) C[i * ldo + j * d.c.col_stride] = S[i * d.s.row_stride + j * d.s.col_stride];
    }
    out_beta = beta;
  } else if (!direct) {
    cbuf.assign(static_cast<size_t>(mb * n), T(0));
    out = cbuf.data();
    ldo = std::max<int64_t>(1, n);
  }

  if (k == 0) {
    // The product is zero: out = out_beta * out (BLAS's beta == 0 writes
    // zeros without reading, as here).
    for (int64_t i = 0; i < mb; ++i)
      for (int64_t j = 0; j < n; ++j) {
        T& o = out[i * ldo + j * (direct ? d.c.col_stride : 1)];
        o = out_beta == T(0) ? T(0) : out_beta * o;
      }
  } else {
    const Operand<T> x = operand(B, k, n, d.b.row_stride, d.b.col_stride, d.conj_b, bbuf);
    const Operand<T> y = operand(A, mb, k, d.a.row_stride, d.a.col_stride, d.conj_a, abuf);
    const int bn = blas_int(n), bm = blas_int(mb), bk = blas_int(k), ld = blas_int(ldo);
    blas(&x.op, &y.op, &bn, &bm, &bk, &alpha, x.data, &x.ld, y.data, &y.ld, &out_beta, out, &ld, 1, 1);
  }

  if (!direct) {
    for (int64_t i = 0; i < mb; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        T v = out[i * n + j];
        if (S != nullptr) v += beta * S[i * d.s.row_stride + j * d.s.col_stride];
        C[i * d.c.row_stride + j * d.c.col_stride] = v;
      }
    }
  }
}

template <typename T>
void gemm_typed(const GemmDesc& d) {
  const auto blas = reinterpret_cast<BlasGemm<T>>(lapack::entry(d.dtype, "gemm"));
  // Row blocks: about two tasks per core, of at least 16 rows.
  const int64_t cores = runtime::current_core_count();
  const int64_t want = (2 * cores + d.batch - 1) / d.batch;
  const int64_t blocks = std::clamp<int64_t>(want, 1, std::max<int64_t>(1, d.m / 16));
  const int64_t rows_per = (d.m + blocks - 1) / blocks;
  runtime::parallel_for(0, d.batch * blocks, 1, [&](int64_t t0, int64_t t1) {
    std::vector<T> abuf, bbuf, cbuf;
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t row0 = (t % blocks) * rows_per;
      if (row0 >= d.m) continue;
      gemm_block<T>(d, blas, {t / blocks, row0, std::min(rows_per, d.m - row0)}, abuf, bbuf, cbuf);
    }
  });
}

}  // namespace

void complex_gemm(const GemmDesc& d) {
  if (d.m < 0 || d.n < 0 || d.k < 0 || d.batch < 0) throw std::invalid_argument("gemm: negative size");
  if (d.m == 0 || d.n == 0 || d.batch == 0) return;
  if (d.dtype == DType::kComplex64) return gemm_typed<std::complex<float>>(d);
  if (d.dtype == DType::kComplex128) return gemm_typed<std::complex<double>>(d);
  throw std::invalid_argument(std::string("complex gemm: unsupported dtype ") + dtype_name(d.dtype));
}

}  // namespace torch_tpu::kernels
