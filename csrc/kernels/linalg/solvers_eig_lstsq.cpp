// The device solvers for general (non-symmetric) matrices (solvers.h):
// eigen-decomposition (geev) and least squares (gels, gelsy). One LAPACK
// call per matrix, the batch over the device's cores.
#include <cstring>
#include <vector>

#include "kernels/linalg/solvers_internal.h"

namespace torch_tpu::kernels::solvers {

using namespace detail;

void eig(const MatrixBatch& a, VectorBatch values, const MatrixBatch& vectors, VectorBatch infos,
         bool compute_vectors) {
  dispatch(a.dtype, [&]<typename T>() {
    using R = real_t<T>;
    const char jobvl = 'N', jobvr = compute_vectors ? 'V' : 'N';
    const int n = to_int(a.rows, "rows"), lda = to_int(a.ld, "ld");
    const int ldvr = compute_vectors ? to_int(vectors.ld, "ld") : 1, ldvl = 1;
    over_batch(a.count, [&](int64_t b, int64_t e) {
      T dummy{}, query{};
      auto vr_of = [&](int64_t i) { return compute_vectors ? matrix<T>(vectors, i) : &dummy; };
      int info = 0, lwork = -1;
      if constexpr (is_complex<T>) {
        using Geev = void (*)(const char*, const char*, const int*, T*, const int*, T*, T*, const int*, T*,
                              const int*, T*, const int*, R*, int*, Len, Len);
        auto geev = fn<Geev>(a.dtype, "geev");
        std::vector<R> rwork(2 * std::max(1, n));
        geev(&jobvl, &jobvr, &n, matrix<T>(a, b), &lda, vec<T>(values, b), &dummy, &ldvl, vr_of(b), &ldvr,
             &query, &lwork, rwork.data(), &info, 1, 1);
        lwork = lwork_of(query);
        std::vector<T> work(lwork);
        for (int64_t i = b; i < e; ++i)
          geev(&jobvl, &jobvr, &n, matrix<T>(a, i), &lda, vec<T>(values, i), &dummy, &ldvl, vr_of(i), &ldvr,
               work.data(), &lwork, rwork.data(), vec<int>(infos, i), 1, 1);
      } else {
        using Geev = void (*)(const char*, const char*, const int*, T*, const int*, T*, T*, T*, const int*, T*,
                              const int*, T*, const int*, int*, Len, Len);
        auto geev = fn<Geev>(a.dtype, "geev");
        geev(&jobvl, &jobvr, &n, matrix<T>(a, b), &lda, vec<T>(values, b), vec<T>(values, b) + n, &dummy, &ldvl,
             vr_of(b), &ldvr, &query, &lwork, &info, 1, 1);
        lwork = lwork_of(query);
        std::vector<T> work(lwork);
        for (int64_t i = b; i < e; ++i)
          geev(&jobvl, &jobvr, &n, matrix<T>(a, i), &lda, vec<T>(values, i), vec<T>(values, i) + n, &dummy,
               &ldvl, vr_of(i), &ldvr, work.data(), &lwork, vec<int>(infos, i), 1, 1);
      }
    });
  });
}

void eig_complex_vectors(const MatrixBatch& complex_vectors, VectorBatch values, const MatrixBatch& real_vectors) {
  dispatch(real_vectors.dtype, [&]<typename R>() {
    if constexpr (!is_complex<R>) {
      using C = std::complex<R>;
      const int64_t n = real_vectors.rows;
      over_batch(real_vectors.count, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          const R* x = matrix<R>(real_vectors, i);
          C* v = matrix<C>(complex_vectors, i);
          const C* w = vec<C>(values, i);
          const int64_t lx = real_vectors.ld, lv = complex_vectors.ld;
          for (int64_t j = 0; j < n; ++j) {
            if (w[j].imag() == R(0) || j + 1 == n) {
              for (int64_t r = 0; r < n; ++r) v[r + j * lv] = C(x[r + j * lx], R(0));
              continue;
            }
            for (int64_t r = 0; r < n; ++r) {
              const R re = x[r + j * lx], im = x[r + (j + 1) * lx];
              v[r + j * lv] = C(re, im);
              v[r + (j + 1) * lv] = C(re, -im);
            }
            ++j;  // the pair's second vector is written
          }
        }
      });
    } else {
      throw std::runtime_error("eig_complex_vectors: real eigenvectors expected");
    }
  });
}

void lstsq(const MatrixBatch& a, const MatrixBatch& b, const std::vector<int64_t>& a_index, int64_t* rank,
           VectorBatch infos, double rcond_, bool gelsy) {
  dispatch(a.dtype, [&]<typename T>() {
    using R = real_t<T>;
    const int m = to_int(a.rows, "rows"), n = to_int(a.cols, "cols"), nrhs = to_int(b.cols, "cols");
    const int ldb = to_int(b.ld, "ld"), lda = std::max(1, m);
    const R rcond = static_cast<R>(rcond_);
    // The routine, looked up once (lapack::entry takes a lock).
    using Gels = void (*)(const char*, const int*, const int*, const int*, T*, const int*, T*, const int*, T*,
                          const int*, int*, Len);
    using GelsyReal = void (*)(const int*, const int*, const int*, T*, const int*, T*, const int*, int*, const R*,
                               int*, T*, const int*, int*);
    using GelsyComplex = void (*)(const int*, const int*, const int*, T*, const int*, T*, const int*, int*,
                                  const R*, int*, T*, const int*, R*, int*);
    using Gelsy = std::conditional_t<is_complex<T>, GelsyComplex, GelsyReal>;
    const Gels gels_fn = gelsy ? nullptr : fn<Gels>(a.dtype, "gels");
    const Gelsy gelsy_fn = gelsy ? fn<Gelsy>(a.dtype, "gelsy") : nullptr;
    if (m == 0 || n == 0 || nrhs == 0) {
      if (gelsy && rank != nullptr)
        for (int64_t j = 0; j < a.count; ++j) rank[j] = 0;
      return;
    }
    over_batch(b.count, [&](int64_t s, int64_t e) {
      // LAPACK destroys A, which several right-hand sides may share: each
      // call works on a copy.
      std::vector<T> acopy(static_cast<size_t>(lda) * n);
      auto load = [&](int64_t j) {
        const T* src = matrix<T>(a, j);
        for (int64_t c = 0; c < n; ++c)
          std::memcpy(acopy.data() + c * lda, src + c * a.ld, sizeof(T) * static_cast<size_t>(m));
      };
      T query{};
      int info = 0, lwork = -1;
      std::vector<int> jpvt(std::max(1, n));
      std::vector<R> rwork(2 * std::max(1, n));
      int rank32 = 0;
      const char trans = 'N';
      auto call = [&](T* work, int64_t i, int* info_out) {
        if (gelsy) {
          std::fill(jpvt.begin(), jpvt.end(), 0);  // every column free to pivot
          if constexpr (is_complex<T>) {
            gelsy_fn(&m, &n, &nrhs, acopy.data(), &lda, matrix<T>(b, i), &ldb, jpvt.data(), &rcond, &rank32, work,
                     &lwork, rwork.data(), info_out);
          } else {
            gelsy_fn(&m, &n, &nrhs, acopy.data(), &lda, matrix<T>(b, i), &ldb, jpvt.data(), &rcond, &rank32, work,
                     &lwork, info_out);
          }
        } else {
          gels_fn(&trans, &m, &n, &nrhs, acopy.data(), &lda, matrix<T>(b, i), &ldb, work, &lwork, info_out, 1);
        }
      };
      load(a_index[s]);
      call(&query, s, &info);
      lwork = lwork_of(query);
      std::vector<T> work(lwork);
      for (int64_t i = s; i < e; ++i) {
        const int64_t j = a_index[i];
        load(j);
        call(work.data(), i, vec<int>(infos, j));
        if (gelsy && rank != nullptr) rank[j] = rank32;
      }
    });
  });
}

}  // namespace torch_tpu::kernels::solvers
