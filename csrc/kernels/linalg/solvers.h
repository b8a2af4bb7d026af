// Batched dense solvers on the device: each matrix of a batch is one LAPACK
// call (lapack.h) on device memory, and the batch is spread over the
// device's cores. Called from inside a launched body.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels::solvers {

// `count` column-major matrices (rows x cols, leading dimension ld), matrix
// i at data + i * stride elements.
struct MatrixBatch {
  void* data = nullptr;
  DType dtype = DType::kFloat32;
  int64_t rows = 0, cols = 0, ld = 1, stride = 0, count = 1;
};

// A vector per matrix (pivots, tau, eigen/singular values, infos): element
// type is the caller's; vector i at data + i * stride elements.
struct VectorBatch {
  void* data = nullptr;
  int64_t stride = 0;
};

// LAPACK getrf: LU with partial pivoting in place; 1-based int32 pivots.
void lu_factor(const MatrixBatch& a, VectorBatch pivots, VectorBatch infos);
// getrs: solves op(A) X = B in place of B; lu_index[i] is the LU matrix
// of right-hand side i (batch broadcasting). trans: 'N', 'T' or 'C'.
void lu_solve(const MatrixBatch& lu, VectorBatch pivots, const MatrixBatch& b,
              const std::vector<int64_t>& lu_index, char trans);
// potrf: the Cholesky factor in the `upper` or lower triangle.
void cholesky(const MatrixBatch& a, VectorBatch infos, bool upper);
// potri: the inverse of A from its Cholesky factor (in the `upper` or lower
// triangle) in place; LAPACK writes that triangle, the other one gets its
// conjugate (the inverse is hermitian).
void cholesky_inverse(const MatrixBatch& a, VectorBatch infos, bool upper);
// potrs: solves A X = B in place of B with A's Cholesky factor (the `upper`
// or lower triangle of `factor`); the batches are equal.
void cholesky_solve(const MatrixBatch& factor, const MatrixBatch& b, VectorBatch infos, bool upper);
// sytrf, or hetrf when hermitian: A = L D L^T (L D L^H) with Bunch-Kaufman
// pivoting in place, 1-based int32 pivots (negative for 2x2 blocks).
void ldl_factor(const MatrixBatch& a, VectorBatch pivots, VectorBatch infos, bool upper, bool hermitian);
// sytrs / hetrs: solves A X = B in place of B from ldl_factor's result;
// ld_index[i] is the factor of right-hand side i (batch broadcasting).
void ldl_solve(const MatrixBatch& ld, VectorBatch pivots, const MatrixBatch& b,
               const std::vector<int64_t>& ld_index, bool upper, bool hermitian);
// trsm: op(A) X = B (left) or X op(A) = B, in place of B; A and B batches equal.
void triangular_solve(const MatrixBatch& a, const MatrixBatch& b, bool left, bool upper,
                      char trans, bool unit_diagonal);
// geqrf: Householder QR in place; tau has min(rows, cols) entries per matrix.
void geqrf(const MatrixBatch& a, VectorBatch tau);
// orgqr/ungqr: the first cols columns of Q from k reflectors, in place.
void orgqr(const MatrixBatch& a, VectorBatch tau, int64_t k);
// ormqr/unmqr: C := op(Q) C (left) or C op(Q), Q from reflectors a (k of them).
void ormqr(const MatrixBatch& a, VectorBatch tau, int64_t k, const MatrixBatch& c, bool left, char trans);
// syevd/heevd: eigenvalues (real, ascending) and, if vectors, eigenvectors
// in place of a.
void eigh(const MatrixBatch& a, VectorBatch values, VectorBatch infos, bool upper, bool vectors);
// gesdd: singular values (real, descending) and, if compute_uv, U and Vh
// (u, vh: rows x rows / cols x cols when full, else reduced). a is destroyed.
void svd(const MatrixBatch& a, VectorBatch s, const MatrixBatch& u, const MatrixBatch& vh,
         VectorBatch infos, bool full, bool compute_uv);

// geev: eigenvalues and, if vectors, right eigenvectors of a general matrix;
// a is destroyed. Real dtypes: values holds wr (n) then wi (n) per matrix,
// and a conjugate pair's vectors are LAPACK's two real columns
// (eig_complex_vectors turns them into complex ones). Complex dtypes:
// values holds the n complex eigenvalues.
void eig(const MatrixBatch& a, VectorBatch values, const MatrixBatch& vectors, VectorBatch infos,
         bool compute_vectors);
// Complex eigenvectors (complex_vectors: complex, n x n column-major) from
// geev's real ones (real_vectors, same layout) and the complex eigenvalues
// (values, n per matrix): a pair (j, j+1) with non-zero imaginary part gives
// v_j = x_j + i x_{j+1} and v_{j+1} = x_j - i x_{j+1}.
void eig_complex_vectors(const MatrixBatch& complex_vectors, VectorBatch values, const MatrixBatch& real_vectors);
// Least squares min ||A X - B|| per right-hand side matrix, X in the first
// cols rows of b (b has max(rows, cols) rows). a_index[i] is the A matrix of
// B matrix i (batch broadcasting; A is copied before each call, as LAPACK
// destroys it). The drivers are CPU's: gels (QR or LQ, full rank), gelsy
// (complete orthogonal factorization), gelsd (SVD, divide and conquer) and
// gelss (SVD), the last three with the rank from rcond (int64 `rank`, one
// per A matrix, when given); gelsd/gelss write A's singular values
// (`singular_values`, real, min(rows, cols) per A matrix, when given).
// infos: one per A matrix.
enum class LstsqDriver : int8_t { kGels, kGelsy, kGelsd, kGelss };
void lstsq(const MatrixBatch& a, const MatrixBatch& b, const std::vector<int64_t>& a_index, int64_t* rank,
           VectorBatch singular_values, VectorBatch infos, double rcond, LstsqDriver driver);

// LAPACK's row interchanges as a permutation: perm (count rows of m int64,
// holding 0..m-1) gets perm[i] <-> perm[pivots[i] - 1] for i < k, in order.
void unpack_pivots(int64_t* perm, int64_t m, const int32_t* pivots, int64_t pivot_stride, int64_t k,
                   int64_t count);

}  // namespace torch_tpu::kernels::solvers
