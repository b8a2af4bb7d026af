// FFT along one axis (kernels/fft/fft.h) against a direct DFT in double
// (twiddles from long double), under whichever ISA variant runs (test_isa_variants.py runs this
// binary under each): lengths of every Stockham radix (4, 2, 3, 5, 7, 11,
// 13) and Bluestein ones; 19 contiguous lines (two full blocks moved as
// transposed tiles, then a partial one) and lines 11 apart (a block side by
// side, then a partial one); c2c in place and out of place, r2c, and c2r of
// even and odd lengths from a full or a short spectrum.
#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "kernels/fft/fft.h"
#include "runtime/runtime.h"
#include "testing/harness.h"

using namespace torch_tpu::kernels;
namespace rt = torch_tpu::runtime;

namespace {

using Cx = std::complex<double>;

template <typename F>
void run_on_device(F f) {
  rt::Stream s = rt::default_stream(0);
  CHECK(rt::launch(s, "fft_test", {}, f) == rt::Status::kSuccess);
  CHECK(rt::stream_synchronize(s) == rt::Status::kSuccess);
}

// X[k] = scale * sum_t x[t] exp(-+2 pi i t k / n) of one line.
std::vector<Cx> dft(const std::vector<Cx>& x, bool forward, double scale) {
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<Cx> w(n);
  for (int64_t j = 0; j < n; ++j) {
    const long double angle = (forward ? -2 : 2) * M_PIl * static_cast<long double>(j) / n;
    w[j] = Cx(static_cast<double>(std::cos(angle)), static_cast<double>(std::sin(angle)));
  }
  std::vector<Cx> out(n);
  for (int64_t k = 0; k < n; ++k) {
    Cx acc = 0;
    for (int64_t t = 0, j = 0; t < n; ++t, j = (j + k) % n) acc += x[t] * w[j];
    out[k] = acc * scale;
  }
  return out;
}

// The lines checked: all of them for short lines, else those at the edges
// of the blocks of 8 (the direct DFT is O(n^2)).
bool checked(int64_t line, int64_t lines, int64_t n) {
  return n <= 200 || line % 8 == 0 || line % 8 == 7 || line == lines - 1;
}

struct Layout {
  int64_t outer, inner;
};
constexpr Layout kLayouts[] = {{19, 1}, {2, 11}};
constexpr int64_t kLengths[] = {1, 2, 6, 12, 30, 49, 97, 100, 128, 1001, 2048};

int64_t at(Layout l, int64_t n, int64_t line, int64_t t) {
  return (line / l.inner) * n * l.inner + line % l.inner + t * l.inner;
}

// Largest |got - want| over the lines, against tol * sqrt(n) (inputs in [-1, 1]).
template <typename R>
double tolerance(int64_t n) {
  return (sizeof(R) == 4 ? 2e-6 : 1e-14) * std::sqrt(static_cast<double>(n)) * std::log2(n + 2.0);
}

template <typename R>
void check_c2c(int64_t n, Layout l, bool forward, bool in_place) {
  std::mt19937 g(static_cast<unsigned>(n * 7 + l.inner));
  std::uniform_real_distribution<double> u(-1, 1);
  const int64_t lines = l.outer * l.inner, total = lines * n;
  std::vector<std::complex<R>> in(total), out(total);
  for (auto& v : in) v = {static_cast<R>(u(g)), static_cast<R>(u(g))};
  const std::vector<std::complex<R>> original = in;
  const double scale = forward ? 1.0 : 1.0 / n;
  const DType t = sizeof(R) == 4 ? DType::kComplex64 : DType::kComplex128;
  std::complex<R>* dst = in_place ? in.data() : out.data();
  run_on_device([&] { fft_c2c_axis(t, in.data(), dst, l.outer, n, l.inner, forward, scale); });
  double err = 0;
  for (int64_t line = 0; line < lines; ++line) {
    if (!checked(line, lines, n)) continue;
    std::vector<Cx> x(n);
    for (int64_t i = 0; i < n; ++i) x[i] = Cx(original[at(l, n, line, i)].real(), original[at(l, n, line, i)].imag());
    const std::vector<Cx> want = dft(x, forward, scale);
    for (int64_t k = 0; k < n; ++k) {
      const auto v = dst[at(l, n, line, k)];
      err = std::max(err, std::abs(Cx(v.real(), v.imag()) - want[k]));
    }
  }
  CHECK_MSG(err <= tolerance<R>(n), "c2c n=" << n << " inner=" << l.inner << " forward=" << forward
                                              << " in_place=" << in_place << " err=" << err);
  if (!in_place) CHECK(in == original);
}

template <typename R>
void check_r2c(int64_t n, Layout l) {
  std::mt19937 g(static_cast<unsigned>(n * 5 + l.inner));
  std::uniform_real_distribution<double> u(-1, 1);
  const int64_t lines = l.outer * l.inner, h = n / 2 + 1;
  std::vector<R> in(lines * n);
  for (auto& v : in) v = static_cast<R>(u(g));
  std::vector<std::complex<R>> out(lines * h);
  const DType t = sizeof(R) == 4 ? DType::kFloat32 : DType::kFloat64;
  run_on_device([&] { fft_r2c_axis(t, in.data(), out.data(), l.outer, n, l.inner, 0.5); });
  double err = 0;
  for (int64_t line = 0; line < lines; ++line) {
    if (!checked(line, lines, n)) continue;
    std::vector<Cx> x(n);
    for (int64_t i = 0; i < n; ++i) x[i] = in[at(l, n, line, i)];
    const std::vector<Cx> want = dft(x, true, 0.5);
    for (int64_t k = 0; k < h; ++k) {
      const auto v = out[at(l, h, line, k)];
      err = std::max(err, std::abs(Cx(v.real(), v.imag()) - want[k]));
    }
  }
  CHECK_MSG(err <= tolerance<R>(n), "r2c n=" << n << " inner=" << l.inner << " err=" << err);
}

// The real signal of length n whose spectrum's first m coefficients are
// given (the rest 0; the imaginary parts of X[0] and X[n / 2] ignored).
template <typename R>
void check_c2r(int64_t n, int64_t m, Layout l) {
  std::mt19937 g(static_cast<unsigned>(n * 3 + m + l.inner));
  std::uniform_real_distribution<double> u(-1, 1);
  const int64_t lines = l.outer * l.inner;
  std::vector<std::complex<R>> in(lines * m);
  for (auto& v : in) v = {static_cast<R>(u(g)), static_cast<R>(u(g))};
  std::vector<R> out(lines * n);
  const DType t = sizeof(R) == 4 ? DType::kComplex64 : DType::kComplex128;
  run_on_device([&] { fft_c2r_axis(t, in.data(), m, out.data(), l.outer, n, l.inner, 1.0 / n); });
  double err = 0;
  for (int64_t line = 0; line < lines; ++line) {
    if (!checked(line, lines, n)) continue;
    std::vector<Cx> spectrum(n, 0);
    for (int64_t k = 0; k <= n / 2 && k < m; ++k) {
      const auto v = in[at(l, m, line, k)];
      const bool real_only = k == 0 || 2 * k == n;
      spectrum[k] = Cx(v.real(), real_only ? 0 : v.imag());
      if (k > 0) spectrum[n - k] = std::conj(spectrum[k]);
    }
    const std::vector<Cx> want = dft(spectrum, false, 1.0 / n);
    for (int64_t i = 0; i < n; ++i) err = std::max(err, std::abs(out[at(l, n, line, i)] - want[i].real()));
  }
  CHECK_MSG(err <= tolerance<R>(n), "c2r n=" << n << " m=" << m << " inner=" << l.inner
                                              << " err=" << err);
}

template <typename R>
void check_all() {
  for (const Layout l : kLayouts) {
    for (const int64_t n : kLengths) {
      if (n > 1000 && l.inner > 1) continue;  // the direct DFT is O(n^2): the big ones once
      for (const bool forward : {true, false}) {
        check_c2c<R>(n, l, forward, false);
        check_c2c<R>(n, l, forward, true);
      }
      if (n % 2 == 0) check_r2c<R>(n, l);
      check_c2r<R>(n, n / 2 + 1, l);
      if (n > 2) check_c2r<R>(n, n / 3, l);
      check_c2r<R>(n + 1, n / 2 + 1, l);  // odd lengths
    }
  }
}

}  // namespace

TEST(fft_float_against_a_direct_dft) { check_all<float>(); }

TEST(fft_double_against_a_direct_dft) { check_all<double>(); }
