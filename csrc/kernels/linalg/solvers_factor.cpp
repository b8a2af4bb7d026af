// The device solvers that reuse a factorization (solvers.h): the inverse and
// solves from a Cholesky factor, and the symmetric-indefinite LDL^T
// factorization with its solve. One LAPACK call per matrix, the batch over
// the device's cores.
#include <vector>

#include "kernels/linalg/solvers_internal.h"

namespace torch_tpu::kernels::solvers {

using namespace detail;

void cholesky_inverse(const MatrixBatch& a, VectorBatch infos, bool upper) {
  dispatch(a.dtype, [&]<typename T>() {
    using Potri = void (*)(const char*, const int*, T*, const int*, int*, Len);
    auto potri = fn<Potri>(a.dtype, "potri");
    const char uplo = upper ? 'U' : 'L';
    const int n = to_int(a.rows, "rows"), lda = to_int(a.ld, "ld");
    over_batch(a.count, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        T* m = matrix<T>(a, i);
        potri(&uplo, &n, m, &lda, vec<int>(infos, i), 1);
        // Column-major: element (r, c) at r + c * lda. Mirror the computed
        // triangle, conjugated, into the other.
        for (int64_t c = 0; c < n; ++c) {
          for (int64_t r = c + 1; r < n; ++r) {
            if (upper) m[r + c * a.ld] = conj_of(m[c + r * a.ld]);
            else m[c + r * a.ld] = conj_of(m[r + c * a.ld]);
          }
        }
      }
    });
  });
}

void cholesky_solve(const MatrixBatch& factor, const MatrixBatch& b, VectorBatch infos, bool upper) {
  dispatch(factor.dtype, [&]<typename T>() {
    using Potrs = void (*)(const char*, const int*, const int*, const T*, const int*, T*, const int*, int*, Len);
    auto potrs = fn<Potrs>(factor.dtype, "potrs");
    const char uplo = upper ? 'U' : 'L';
    const int n = to_int(factor.rows, "rows"), nrhs = to_int(b.cols, "cols");
    const int lda = to_int(factor.ld, "ld"), ldb = to_int(b.ld, "ld");
    over_batch(b.count, [&](int64_t s, int64_t e) {
      for (int64_t i = s; i < e; ++i)
        potrs(&uplo, &n, &nrhs, matrix<T>(factor, i), &lda, matrix<T>(b, i), &ldb, vec<int>(infos, i), 1);
    });
  });
}

void ldl_factor(const MatrixBatch& a, VectorBatch pivots, VectorBatch infos, bool upper, bool hermitian) {
  dispatch(a.dtype, [&]<typename T>() {
    using Sytrf = void (*)(const char*, const int*, T*, const int*, int*, T*, const int*, int*, Len);
    // Real matrices: symmetric and hermitian are the same (sytrf).
    auto sytrf = fn<Sytrf>(a.dtype, is_complex<T> && hermitian ? "hetrf" : "sytrf");
    const char uplo = upper ? 'U' : 'L';
    const int n = to_int(a.rows, "rows"), lda = to_int(a.ld, "ld");
    over_batch(a.count, [&](int64_t b, int64_t e) {
      T query{};
      int info = 0, lwork = -1;
      sytrf(&uplo, &n, matrix<T>(a, b), &lda, vec<int>(pivots, b), &query, &lwork, &info, 1);
      lwork = lwork_of(query);
      std::vector<T> work(lwork);
      for (int64_t i = b; i < e; ++i)
        sytrf(&uplo, &n, matrix<T>(a, i), &lda, vec<int>(pivots, i), work.data(), &lwork, vec<int>(infos, i), 1);
    });
  });
}

void ldl_solve(const MatrixBatch& ld, VectorBatch pivots, const MatrixBatch& b,
               const std::vector<int64_t>& ld_index, bool upper, bool hermitian) {
  dispatch(ld.dtype, [&]<typename T>() {
    using Sytrs = void (*)(const char*, const int*, const int*, const T*, const int*, const int*, T*, const int*,
                           int*, Len);
    auto sytrs = fn<Sytrs>(ld.dtype, is_complex<T> && hermitian ? "hetrs" : "sytrs");
    const char uplo = upper ? 'U' : 'L';
    const int n = to_int(ld.rows, "rows"), nrhs = to_int(b.cols, "cols");
    const int lda = to_int(ld.ld, "ld"), ldb = to_int(b.ld, "ld");
    over_batch(b.count, [&](int64_t s, int64_t e) {
      for (int64_t i = s; i < e; ++i) {
        int info = 0;  // only argument errors, which the caller's checks exclude
        const int64_t j = ld_index[i];
        sytrs(&uplo, &n, &nrhs, matrix<T>(ld, j), &lda, vec<int>(pivots, j), matrix<T>(b, i), &ldb, &info, 1);
      }
    });
  });
}

}  // namespace torch_tpu::kernels::solvers
