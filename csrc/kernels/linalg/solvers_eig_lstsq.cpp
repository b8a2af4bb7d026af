// The device solvers for general (non-symmetric) matrices (solvers.h):
// eigen-decomposition (geev) and least squares (gels, gelsy, gelsd, gelss). One LAPACK
// call per matrix, the batch over the device's cores.
#include <algorithm>
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
           VectorBatch singular_values, VectorBatch infos, double rcond_, LstsqDriver driver) {
  dispatch(a.dtype, [&]<typename T>() {
    using R = real_t<T>;
    const int m = to_int(a.rows, "rows"), n = to_int(a.cols, "cols"), nrhs = to_int(b.cols, "cols");
    const int ldb = to_int(b.ld, "ld"), lda = std::max(1, m);
    const R rcond = static_cast<R>(rcond_);
    constexpr bool cx = is_complex<T>;
    // The routines (LAPACK's argument order; the complex ones take rwork),
    // looked up once (lapack::entry takes a lock).
    using Gels = void (*)(const char*, const int*, const int*, const int*, T*, const int*, T*, const int*, T*,
                          const int*, int*, Len);
    using Gelsy = std::conditional_t<
        cx, void (*)(const int*, const int*, const int*, T*, const int*, T*, const int*, int*, const R*, int*, T*,
                     const int*, R*, int*),
        void (*)(const int*, const int*, const int*, T*, const int*, T*, const int*, int*, const R*, int*, T*,
                 const int*, int*)>;
    using Gelss = std::conditional_t<
        cx, void (*)(const int*, const int*, const int*, T*, const int*, T*, const int*, R*, const R*, int*, T*,
                     const int*, R*, int*),
        void (*)(const int*, const int*, const int*, T*, const int*, T*, const int*, R*, const R*, int*, T*,
                 const int*, int*)>;
    using Gelsd = std::conditional_t<
        cx, void (*)(const int*, const int*, const int*, T*, const int*, T*, const int*, R*, const R*, int*, T*,
                     const int*, R*, int*, int*),
        void (*)(const int*, const int*, const int*, T*, const int*, T*, const int*, R*, const R*, int*, T*,
                 const int*, int*, int*)>;
    const Gels gels_fn = driver == LstsqDriver::kGels ? fn<Gels>(a.dtype, "gels") : nullptr;
    const Gelsy gelsy_fn = driver == LstsqDriver::kGelsy ? fn<Gelsy>(a.dtype, "gelsy") : nullptr;
    const Gelss gelss_fn = driver == LstsqDriver::kGelss ? fn<Gelss>(a.dtype, "gelss") : nullptr;
    const Gelsd gelsd_fn = driver == LstsqDriver::kGelsd ? fn<Gelsd>(a.dtype, "gelsd") : nullptr;
    const int mn = std::min(m, n);
    if (nrhs == 0) {  // nothing to solve (LAPACK's gelsd refuses nrhs = 0)
      if (rank != nullptr) std::fill(rank, rank + a.count, int64_t{0});
      if (singular_values.data != nullptr)
        std::fill(vec<R>(singular_values, 0), vec<R>(singular_values, 0) + a.count * mn, R(0));
      return;
    }
    over_batch(b.count, [&](int64_t s, int64_t e) {
      // LAPACK destroys A, which several right-hand sides may share: each
      // call works on a copy.
      std::vector<T> acopy(static_cast<size_t>(lda) * std::max(1, n));
      auto load = [&](int64_t j) {
        const T* src = matrix<T>(a, j);
        for (int64_t c = 0; c < n; ++c)
          std::memcpy(acopy.data() + c * lda, src + c * a.ld, sizeof(T) * static_cast<size_t>(m));
      };
      int lwork = -1, rank32 = 0;
      std::vector<int> jpvt(std::max(1, n));
      std::vector<int> iwork(1);
      std::vector<R> rwork(1), s_scratch(std::max(1, mn));
      const char trans = 'N';
      auto call = [&](T* work, int64_t i, int* info_out, R* sv) {
        switch (driver) {
          case LstsqDriver::kGels:
            gels_fn(&trans, &m, &n, &nrhs, acopy.data(), &lda, matrix<T>(b, i), &ldb, work, &lwork, info_out, 1);
            break;
          case LstsqDriver::kGelsy:
            std::fill(jpvt.begin(), jpvt.end(), 0);  // every column free to pivot
            if constexpr (cx)
              gelsy_fn(&m, &n, &nrhs, acopy.data(), &lda, matrix<T>(b, i), &ldb, jpvt.data(), &rcond, &rank32, work,
                       &lwork, rwork.data(), info_out);
            else
              gelsy_fn(&m, &n, &nrhs, acopy.data(), &lda, matrix<T>(b, i), &ldb, jpvt.data(), &rcond, &rank32, work,
                       &lwork, info_out);
            break;
          case LstsqDriver::kGelss:
            if constexpr (cx)
              gelss_fn(&m, &n, &nrhs, acopy.data(), &lda, matrix<T>(b, i), &ldb, sv, &rcond, &rank32, work, &lwork,
                       rwork.data(), info_out);
            else
              gelss_fn(&m, &n, &nrhs, acopy.data(), &lda, matrix<T>(b, i), &ldb, sv, &rcond, &rank32, work, &lwork,
                       info_out);
            break;
          case LstsqDriver::kGelsd:
            if constexpr (cx)
              gelsd_fn(&m, &n, &nrhs, acopy.data(), &lda, matrix<T>(b, i), &ldb, sv, &rcond, &rank32, work, &lwork,
                       rwork.data(), iwork.data(), info_out);
            else
              gelsd_fn(&m, &n, &nrhs, acopy.data(), &lda, matrix<T>(b, i), &ldb, sv, &rcond, &rank32, work, &lwork,
                       iwork.data(), info_out);
            break;
        }
      };
      // The workspace query (gelsd also answers its rwork and iwork sizes);
      // CPU's sizes for the others: gelsy 2n, gelss 5 min(m, n) reals.
      T query{};
      int info = 0;
      load(a_index[s]);
      call(&query, s, &info, s_scratch.data());
      lwork = lwork_of(query);
      if (driver == LstsqDriver::kGelsd) {
        iwork.assign(std::max(1, iwork[0]), 0);
        if constexpr (cx) rwork.assign(std::max<int>(1, static_cast<int>(rwork[0])), R(0));
      } else if (cx && driver == LstsqDriver::kGelsy) {
        rwork.assign(std::max(1, 2 * n), R(0));
      } else if (cx && driver == LstsqDriver::kGelss) {
        rwork.assign(std::max(1, 5 * mn), R(0));
      }
      std::vector<T> work(lwork);
      // A's batch index j repeats when A is broadcast over B's batch, and
      // rank, singular values and infos have A's batch (CPU's shapes): the
      // call writes its own scratch (gelsd/gelss read the singular values
      // back while they solve, so two threads must not share them), then
      // the results are stored at j (the same values for every i of one j).
      for (int64_t i = s; i < e; ++i) {
        const int64_t j = a_index[i];
        load(j);
        int call_info = 0;
        call(work.data(), i, &call_info, s_scratch.data());
        *vec<int>(infos, j) = call_info;
        if (singular_values.data != nullptr)
          std::copy(s_scratch.begin(), s_scratch.begin() + mn, vec<R>(singular_values, j));
        if (rank != nullptr && driver != LstsqDriver::kGels) rank[j] = rank32;
      }
    });
  });
}

}  // namespace torch_tpu::kernels::solvers
