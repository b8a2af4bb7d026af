// Batched solvers over the device LAPACK (solvers.h). One LAPACK call per
// matrix, single-threaded inside the library; the batch is spread over the
// device's cores with runtime::parallel_for, each chunk with its own
// workspace (sized once by the routine's lwork = -1 query).
#include "kernels/linalg/solvers.h"

#include <utility>
#include <vector>

#include "kernels/linalg/solvers_internal.h"

namespace torch_tpu::kernels::solvers {

using namespace detail;

void lu_factor(const MatrixBatch& a, VectorBatch pivots, VectorBatch infos) {
  dispatch(a.dtype, [&]<typename T>() {
    using Getrf = void (*)(const int*, const int*, T*, const int*, int*, int*);
    auto getrf = fn<Getrf>(a.dtype, "getrf");
    const int m = to_int(a.rows, "rows"), n = to_int(a.cols, "cols"), lda = to_int(a.ld, "ld");
    over_batch(a.count, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) getrf(&m, &n, matrix<T>(a, i), &lda, vec<int>(pivots, i), vec<int>(infos, i));
    });
  });
}

void lu_solve(const MatrixBatch& lu, VectorBatch pivots, const MatrixBatch& b,
              const std::vector<int64_t>& lu_index, char trans) {
  dispatch(lu.dtype, [&]<typename T>() {
    using Getrs = void (*)(const char*, const int*, const int*, const T*, const int*, const int*, T*,
                           const int*, int*, Len);
    auto getrs = fn<Getrs>(lu.dtype, "getrs");
    const int n = to_int(lu.rows, "rows"), nrhs = to_int(b.cols, "cols");
    const int lda = to_int(lu.ld, "ld"), ldb = to_int(b.ld, "ld");
    over_batch(b.count, [&](int64_t s, int64_t e) {
      for (int64_t i = s; i < e; ++i) {
        int info = 0;
        const int64_t j = lu_index[i];
        getrs(&trans, &n, &nrhs, matrix<T>(lu, j), &lda, vec<int>(pivots, j), matrix<T>(b, i), &ldb, &info, 1);
      }
    });
  });
}

void cholesky(const MatrixBatch& a, VectorBatch infos, bool upper) {
  dispatch(a.dtype, [&]<typename T>() {
    using Potrf = void (*)(const char*, const int*, T*, const int*, int*, Len);
    auto potrf = fn<Potrf>(a.dtype, "potrf");
    const char uplo = upper ? 'U' : 'L';
    const int n = to_int(a.rows, "rows"), lda = to_int(a.ld, "ld");
    over_batch(a.count, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) potrf(&uplo, &n, matrix<T>(a, i), &lda, vec<int>(infos, i), 1);
    });
  });
}

void triangular_solve(const MatrixBatch& a, const MatrixBatch& b, bool left, bool upper,
                      char trans, bool unit_diagonal) {
  dispatch(a.dtype, [&]<typename T>() {
    using Trsm = void (*)(const char*, const char*, const char*, const char*, const int*, const int*,
                          const T*, const T*, const int*, T*, const int*, Len, Len, Len, Len);
    auto trsm = fn<Trsm>(a.dtype, "trsm");
    const char side = left ? 'L' : 'R', uplo = upper ? 'U' : 'L', diag = unit_diagonal ? 'U' : 'N';
    const int m = to_int(b.rows, "rows"), n = to_int(b.cols, "cols");
    const int lda = to_int(a.ld, "ld"), ldb = to_int(b.ld, "ld");
    const T one(1);
    over_batch(b.count, [&](int64_t s, int64_t e) {
      for (int64_t i = s; i < e; ++i)
        trsm(&side, &uplo, &trans, &diag, &m, &n, &one, matrix<T>(a, i), &lda, matrix<T>(b, i), &ldb, 1, 1, 1, 1);
    });
  });
}

void geqrf(const MatrixBatch& a, VectorBatch tau) {
  dispatch(a.dtype, [&]<typename T>() {
    using Geqrf = void (*)(const int*, const int*, T*, const int*, T*, T*, const int*, int*);
    auto geqrf = fn<Geqrf>(a.dtype, "geqrf");
    const int m = to_int(a.rows, "rows"), n = to_int(a.cols, "cols"), lda = to_int(a.ld, "ld");
    over_batch(a.count, [&](int64_t b, int64_t e) {
      T query{};
      int info = 0, lwork = -1;
      geqrf(&m, &n, matrix<T>(a, b), &lda, vec<T>(tau, b), &query, &lwork, &info);
      lwork = lwork_of(query);
      std::vector<T> work(lwork);
      for (int64_t i = b; i < e; ++i) geqrf(&m, &n, matrix<T>(a, i), &lda, vec<T>(tau, i), work.data(), &lwork, &info);
    });
  });
}

void orgqr(const MatrixBatch& a, VectorBatch tau, int64_t k_) {
  dispatch(a.dtype, [&]<typename T>() {
    using Orgqr = void (*)(const int*, const int*, const int*, T*, const int*, const T*, T*, const int*, int*);
    auto orgqr = fn<Orgqr>(a.dtype, is_complex<T> ? "ungqr" : "orgqr");
    const int m = to_int(a.rows, "rows"), n = to_int(a.cols, "cols"), k = to_int(k_, "k");
    const int lda = to_int(a.ld, "ld");
    over_batch(a.count, [&](int64_t b, int64_t e) {
      T query{};
      int info = 0, lwork = -1;
      orgqr(&m, &n, &k, matrix<T>(a, b), &lda, vec<T>(tau, b), &query, &lwork, &info);
      lwork = lwork_of(query);
      std::vector<T> work(lwork);
      for (int64_t i = b; i < e; ++i) orgqr(&m, &n, &k, matrix<T>(a, i), &lda, vec<T>(tau, i), work.data(), &lwork, &info);
    });
  });
}

void ormqr(const MatrixBatch& a, VectorBatch tau, int64_t k_, const MatrixBatch& c, bool left, char trans) {
  dispatch(a.dtype, [&]<typename T>() {
    using Ormqr = void (*)(const char*, const char*, const int*, const int*, const int*, const T*, const int*,
                           const T*, T*, const int*, T*, const int*, int*, Len, Len);
    auto ormqr = fn<Ormqr>(a.dtype, is_complex<T> ? "unmqr" : "ormqr");
    const char side = left ? 'L' : 'R';
    const int m = to_int(c.rows, "rows"), n = to_int(c.cols, "cols"), k = to_int(k_, "k");
    const int lda = to_int(a.ld, "ld"), ldc = to_int(c.ld, "ld");
    over_batch(c.count, [&](int64_t b, int64_t e) {
      T query{};
      int info = 0, lwork = -1;
      ormqr(&side, &trans, &m, &n, &k, matrix<T>(a, b), &lda, vec<T>(tau, b), matrix<T>(c, b), &ldc, &query,
            &lwork, &info, 1, 1);
      lwork = lwork_of(query);
      std::vector<T> work(lwork);
      for (int64_t i = b; i < e; ++i)
        ormqr(&side, &trans, &m, &n, &k, matrix<T>(a, i), &lda, vec<T>(tau, i), matrix<T>(c, i), &ldc,
              work.data(), &lwork, &info, 1, 1);
    });
  });
}

void eigh(const MatrixBatch& a, VectorBatch values, VectorBatch infos, bool upper, bool vectors) {
  dispatch(a.dtype, [&]<typename T>() {
    using R = real_t<T>;
    const char jobz = vectors ? 'V' : 'N', uplo = upper ? 'U' : 'L';
    const int n = to_int(a.rows, "rows"), lda = to_int(a.ld, "ld");
    over_batch(a.count, [&](int64_t b, int64_t e) {
      T wq{};
      R rq{};
      int iq = 0, info = 0, lwork = -1, lrwork = -1, liwork = -1;
      if constexpr (is_complex<T>) {
        using Heevd = void (*)(const char*, const char*, const int*, T*, const int*, R*, T*, const int*, R*,
                               const int*, int*, const int*, int*, Len, Len);
        auto heevd = fn<Heevd>(a.dtype, "heevd");
        heevd(&jobz, &uplo, &n, matrix<T>(a, b), &lda, vec<R>(values, b), &wq, &lwork, &rq, &lrwork, &iq, &liwork,
              &info, 1, 1);
        lwork = lwork_of(wq), lrwork = lwork_of(rq), liwork = std::max(1, iq);
        std::vector<T> work(lwork);
        std::vector<R> rwork(lrwork);
        std::vector<int> iwork(liwork);
        for (int64_t i = b; i < e; ++i)
          heevd(&jobz, &uplo, &n, matrix<T>(a, i), &lda, vec<R>(values, i), work.data(), &lwork, rwork.data(),
                &lrwork, iwork.data(), &liwork, vec<int>(infos, i), 1, 1);
      } else {
        using Syevd = void (*)(const char*, const char*, const int*, T*, const int*, R*, T*, const int*, int*,
                               const int*, int*, Len, Len);
        auto syevd = fn<Syevd>(a.dtype, "syevd");
        syevd(&jobz, &uplo, &n, matrix<T>(a, b), &lda, vec<R>(values, b), &wq, &lwork, &iq, &liwork, &info, 1, 1);
        lwork = lwork_of(wq), liwork = std::max(1, iq);
        std::vector<T> work(lwork);
        std::vector<int> iwork(liwork);
        for (int64_t i = b; i < e; ++i)
          syevd(&jobz, &uplo, &n, matrix<T>(a, i), &lda, vec<R>(values, i), work.data(), &lwork, iwork.data(),
                &liwork, vec<int>(infos, i), 1, 1);
      }
    });
  });
}

void svd(const MatrixBatch& a, VectorBatch s, const MatrixBatch& u, const MatrixBatch& vh,
         VectorBatch infos, bool full, bool compute_uv) {
  dispatch(a.dtype, [&]<typename T>() {
    using R = real_t<T>;
    const char jobz = compute_uv ? (full ? 'A' : 'S') : 'N';
    const int m = to_int(a.rows, "rows"), n = to_int(a.cols, "cols"), lda = to_int(a.ld, "ld");
    const int ldu = compute_uv ? to_int(u.ld, "ld") : 1, ldvt = compute_uv ? to_int(vh.ld, "ld") : 1;
    const int64_t mn = std::min(m, n), mx = std::max(m, n);
    over_batch(a.count, [&](int64_t b, int64_t e) {
      T dummy_u{}, dummy_vt{}, wq{};
      auto u_of = [&](int64_t i) { return compute_uv ? matrix<T>(u, i) : &dummy_u; };
      auto vt_of = [&](int64_t i) { return compute_uv ? matrix<T>(vh, i) : &dummy_vt; };
      std::vector<int> iwork(8 * std::max<int64_t>(1, mn));
      int info = 0, lwork = -1;
      if constexpr (is_complex<T>) {
        using Gesdd = void (*)(const char*, const int*, const int*, T*, const int*, R*, T*, const int*, T*,
                               const int*, T*, const int*, R*, int*, int*, Len);
        auto gesdd = fn<Gesdd>(a.dtype, "gesdd");
        // LAPACK's documented rwork size for gesdd.
        const int64_t lrwork = compute_uv ? std::max<int64_t>(5 * mn * mn + 5 * mn, 2 * mx * mn + 2 * mn * mn + mn)
                                          : 7 * mn;
        std::vector<R> rwork(std::max<int64_t>(1, lrwork));
        gesdd(&jobz, &m, &n, matrix<T>(a, b), &lda, vec<R>(s, b), u_of(b), &ldu, vt_of(b), &ldvt, &wq, &lwork,
              rwork.data(), iwork.data(), &info, 1);
        lwork = lwork_of(wq);
        std::vector<T> work(lwork);
        for (int64_t i = b; i < e; ++i)
          gesdd(&jobz, &m, &n, matrix<T>(a, i), &lda, vec<R>(s, i), u_of(i), &ldu, vt_of(i), &ldvt, work.data(),
                &lwork, rwork.data(), iwork.data(), vec<int>(infos, i), 1);
      } else {
        using Gesdd = void (*)(const char*, const int*, const int*, T*, const int*, R*, T*, const int*, T*,
                               const int*, T*, const int*, int*, int*, Len);
        auto gesdd = fn<Gesdd>(a.dtype, "gesdd");
        gesdd(&jobz, &m, &n, matrix<T>(a, b), &lda, vec<R>(s, b), u_of(b), &ldu, vt_of(b), &ldvt, &wq, &lwork,
              iwork.data(), &info, 1);
        lwork = lwork_of(wq);
        std::vector<T> work(lwork);
        for (int64_t i = b; i < e; ++i)
          gesdd(&jobz, &m, &n, matrix<T>(a, i), &lda, vec<R>(s, i), u_of(i), &ldu, vt_of(i), &ldvt, work.data(),
                &lwork, iwork.data(), vec<int>(infos, i), 1);
      }
    });
  });
}

void unpack_pivots(int64_t* perm, int64_t m, const int32_t* pivots, int64_t pivot_stride, int64_t k,
                   int64_t count) {
  runtime::parallel_for(0, count, 256, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      int64_t* row = perm + i * m;
      const int32_t* piv = pivots + i * pivot_stride;
      for (int64_t j = 0; j < k; ++j) {
        const int64_t other = static_cast<int64_t>(piv[j]) - 1;
        if (other >= 0 && other < m) std::swap(row[j], row[other]);  // ATen checked the range
      }
    }
  });
}

}  // namespace torch_tpu::kernels::solvers
