// Transforms along one axis (fft.h). A Plan holds what one length needs
// (twiddles; for Bluestein the chirp and its transformed kernel), cached per
// length; lines are split over the cores, each gathered into a buffer,
// transformed, scattered.
#include <algorithm>
#include <cmath>
#include <complex>
#include <map>
#include <memory>
#include <mutex>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "kernels/fft/fft.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

using cd = std::complex<double>;

bool power_of_two(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// Radix-2 decimation in time, forward sign (-), in place, n a power of two.
struct Radix2 {
  int64_t n = 1;
  std::vector<cd> twiddle;  // exp(-2 pi i k / n), k < n / 2
  std::vector<int64_t> reversed;

  explicit Radix2(int64_t size) : n(size), twiddle(size / 2), reversed(size) {
    for (int64_t k = 0; k < n / 2; ++k) twiddle[k] = std::polar(1.0, -2.0 * std::numbers::pi * k / n);
    int bits = 0;
    while ((int64_t{1} << bits) < n) ++bits;
    for (int64_t i = 0; i < n; ++i) {
      int64_t r = 0;
      for (int b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
      reversed[i] = r;
    }
  }

  void run(cd* a) const {
    for (int64_t i = 0; i < n; ++i) {
      if (i < reversed[i]) std::swap(a[i], a[reversed[i]]);
    }
    for (int64_t len = 2; len <= n; len <<= 1) {
      const int64_t step = n / len;
      for (int64_t i = 0; i < n; i += len) {
        for (int64_t j = 0; j < len / 2; ++j) {
          const cd u = a[i + j], v = a[i + j + len / 2] * twiddle[j * step];
          a[i + j] = u + v;
          a[i + j + len / 2] = u - v;
        }
      }
    }
  }
};

// Forward DFT of any length n.
struct Plan {
  int64_t n;
  Radix2 radix;               // length n (power of two) or the convolution length
  std::vector<cd> chirp;      // Bluestein: exp(-pi i k^2 / n)
  std::vector<cd> kernel;     // Bluestein: FFT of the conjugate chirp, zero padded

  explicit Plan(int64_t size) : n(size), radix(convolution_length(size)) {
    if (power_of_two(n)) return;
    const int64_t m = radix.n;
    chirp.resize(n);
    for (int64_t k = 0; k < n; ++k) {
      const int64_t k2 = (k * k) % (2 * n);  // exact angle reduction
      chirp[k] = std::polar(1.0, -std::numbers::pi * static_cast<double>(k2) / n);
    }
    kernel.assign(m, cd(0));
    kernel[0] = std::conj(chirp[0]);
    for (int64_t k = 1; k < n; ++k) kernel[k] = kernel[m - k] = std::conj(chirp[k]);
    radix.run(kernel.data());
  }

  static int64_t convolution_length(int64_t n) {
    if (power_of_two(n)) return n;
    int64_t m = 1;
    while (m < 2 * n - 1) m <<= 1;
    return m;
  }

  // a[0, n) transformed; work holds radix.n elements.
  void forward(cd* a, std::vector<cd>& work) const {
    if (power_of_two(n)) {
      radix.run(a);
      return;
    }
    const int64_t m = radix.n;
    work.assign(m, cd(0));
    for (int64_t k = 0; k < n; ++k) work[k] = a[k] * chirp[k];
    radix.run(work.data());
    for (int64_t k = 0; k < m; ++k) work[k] = std::conj(work[k] * kernel[k]);  // conj: inverse via forward
    radix.run(work.data());
    for (int64_t k = 0; k < n; ++k) a[k] = std::conj(work[k]) / static_cast<double>(m) * chirp[k];
  }

  // forward or backward (the conjugate trick), then scale.
  void transform(cd* a, std::vector<cd>& work, bool is_forward, double scale) const {
    if (!is_forward) {
      for (int64_t k = 0; k < n; ++k) a[k] = std::conj(a[k]);
    }
    forward(a, work);
    for (int64_t k = 0; k < n; ++k) a[k] = (is_forward ? a[k] : std::conj(a[k])) * scale;
  }
};

// Plans are cached per length, as cuFFT's plan cache: a Bluestein plan costs
// a transform of the convolution length and 2n exp() calls. Bounded: the
// oldest half is dropped past kMaxPlans lengths (callers hold shared_ptrs).
std::shared_ptr<const Plan> plan_for(int64_t n) {
  constexpr size_t kMaxPlans = 64;
  static std::mutex mu;
  static std::map<int64_t, std::pair<uint64_t, std::shared_ptr<const Plan>>> cache;
  static uint64_t clock = 0;
  {
    std::lock_guard<std::mutex> guard(mu);
    auto it = cache.find(n);
    if (it != cache.end()) {
      it->second.first = ++clock;
      return it->second.second;
    }
  }
  auto plan = std::make_shared<const Plan>(n);  // built outside the lock
  std::lock_guard<std::mutex> guard(mu);
  if (cache.size() >= kMaxPlans) {
    std::vector<std::pair<uint64_t, int64_t>> ages;
    for (const auto& [len, entry] : cache) ages.emplace_back(entry.first, len);
    std::sort(ages.begin(), ages.end());
    for (size_t i = 0; i < ages.size() / 2; ++i) cache.erase(ages[i].second);
  }
  cache[n] = {++clock, plan};
  return plan;
}

template <typename R>
void c2c_typed(std::complex<R>* data, int64_t outer, int64_t n, int64_t inner, bool is_forward, double scale) {
  const auto shared = plan_for(n);
  const Plan& plan = *shared;
  runtime::parallel_for(0, outer * inner, std::max<int64_t>(1, 4096 / n), [&](int64_t b, int64_t e) {
    std::vector<cd> line(n), work;
    for (int64_t l = b; l < e; ++l) {
      std::complex<R>* base = data + (l / inner) * n * inner + l % inner;
      for (int64_t t = 0; t < n; ++t) line[t] = cd(base[t * inner]);
      plan.transform(line.data(), work, is_forward, scale);
      for (int64_t t = 0; t < n; ++t) base[t * inner] = std::complex<R>(line[t]);
    }
  });
}

template <typename R>
void c2r_typed(const std::complex<R>* in, int64_t m, R* out, int64_t outer, int64_t n, int64_t inner,
               double scale) {
  const auto shared = plan_for(n);
  const Plan& plan = *shared;
  runtime::parallel_for(0, outer * inner, std::max<int64_t>(1, 4096 / n), [&](int64_t b, int64_t e) {
    std::vector<cd> line(n), work;
    for (int64_t l = b; l < e; ++l) {
      const std::complex<R>* src = in + (l / inner) * m * inner + l % inner;
      R* dst = out + (l / inner) * n * inner + l % inner;
      for (int64_t k = 0; k < n; ++k) {
        const int64_t j = k <= n / 2 ? k : n - k;  // Hermitian: X[n - k] = conj(X[k])
        const cd v = j < m ? cd(src[j * inner]) : cd(0);
        line[k] = k <= n / 2 ? v : std::conj(v);
      }
      line[0] = line[0].real();
      if (n % 2 == 0) line[n / 2] = line[n / 2].real();
      plan.transform(line.data(), work, /*is_forward=*/false, scale);
      for (int64_t t = 0; t < n; ++t) dst[t * inner] = static_cast<R>(line[t].real());
    }
  });
}

}  // namespace

void fft_c2c_axis(DType t, void* data, int64_t outer, int64_t n, int64_t inner, bool forward, double scale) {
  if (n == 0 || outer * inner == 0) return;
  if (t == DType::kComplex64) {
    c2c_typed(static_cast<std::complex<float>*>(data), outer, n, inner, forward, scale);
  } else if (t == DType::kComplex128) {
    c2c_typed(static_cast<std::complex<double>*>(data), outer, n, inner, forward, scale);
  } else {
    throw std::invalid_argument("fft: complex64 or complex128 only");
  }
}

void fft_c2r_axis(DType t, const void* in, int64_t m, void* out, int64_t outer, int64_t n, int64_t inner,
                  double scale) {
  if (n == 0 || outer * inner == 0) return;
  if (t == DType::kComplex64) {
    c2r_typed(static_cast<const std::complex<float>*>(in), m, static_cast<float*>(out), outer, n, inner, scale);
  } else if (t == DType::kComplex128) {
    c2r_typed(static_cast<const std::complex<double>*>(in), m, static_cast<double*>(out), outer, n, inner,
              scale);
  } else {
    throw std::invalid_argument("fft: complex64 or complex128 only");
  }
}

}  // namespace torch_tpu::kernels
