// Transforms along one axis (fft.h).
//
// Lines are transformed kLanes at a time: a block of lines is gathered into
// split real/imaginary buffers laid out [t][lane], so every butterfly is a
// loop over the lanes that the compiler vectorises, whatever the line length
// or the axis' stride. Arithmetic is in the data's precision (float for
// complex64, as CPU's MKL; double for complex128).
//
// Power-of-two lengths: Stockham autosort FFT, radix 4 with a final radix-2
// stage when log2(n) is odd (no bit reversal; each stage reads one buffer
// and writes the other). Other lengths: Bluestein's chirp-z over a
// power-of-two convolution. A Plan holds one length's twiddles (and the
// Bluestein chirp and transformed kernel), cached per (length, precision);
// blocks of lines are split over the device's cores.
#include <algorithm>
#include <cmath>
#include <complex>
#include <map>
#include <memory>
#include <mutex>
#include <numbers>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "kernels/fft/fft.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

constexpr int kLanes = 8;

bool power_of_two(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// Split complex lanes: element t, lane l at re[t * kLanes + l].
template <typename R>
struct Buf {
  std::vector<R> re, im;
  void resize(int64_t n) {
    re.resize(static_cast<size_t>(n * kLanes));
    im.resize(static_cast<size_t>(n * kLanes));
  }
};

// Forward power-of-two FFT, Stockham radix 4 (+ one radix-2 stage).
template <typename R>
struct Stockham {
  int64_t n = 1;
  // Per radix-4 stage of length len (n, n/4, ...): w^p, w^2p, w^3p for
  // p < len / 4, w = exp(-2 pi i / len).
  std::vector<std::vector<R>> wr, wi;

  explicit Stockham(int64_t size) : n(size) {
    for (int64_t len = n; len >= 4; len /= 4) {
      const int64_t q = len / 4;
      std::vector<R> r(3 * q), i(3 * q);
      for (int64_t p = 0; p < q; ++p) {
        for (int k = 1; k <= 3; ++k) {
          const double angle = -2.0 * std::numbers::pi * static_cast<double>(k * p) / static_cast<double>(len);
          r[(k - 1) * q + p] = static_cast<R>(std::cos(angle));
          i[(k - 1) * q + p] = static_cast<R>(std::sin(angle));
        }
      }
      wr.push_back(std::move(r));
      wi.push_back(std::move(i));
    }
  }

  // One radix-4 Stockham stage: q = len / 4 groups of sl = s * kLanes
  // elements; reads a, writes b. Written on GCC vectors of kLanes elements
  // (sl is a multiple of kLanes): GCC 12 does not vectorise this loop's 16
  // streams by itself.
  typedef R V __attribute__((vector_size(kLanes * sizeof(R)), aligned(sizeof(R))));
  static V load(const R* p) { return *reinterpret_cast<const V*>(p); }
  static void store(R* p, V v) { *reinterpret_cast<V*>(p) = v; }

  static void radix4(int64_t q, int64_t sl, const R* w1r, const R* w1i, const R* w2r, const R* w2i,
                     const R* w3r, const R* w3i, const R* ar, const R* ai, R* br, R* bi) {
    for (int64_t p = 0; p < q; ++p) {
      const R c1 = w1r[p], d1 = w1i[p], c2 = w2r[p], d2 = w2i[p], c3 = w3r[p], d3 = w3i[p];
      const int64_t i0 = p * sl, i1 = (p + q) * sl, i2 = (p + 2 * q) * sl, i3 = (p + 3 * q) * sl;
      const int64_t o0 = 4 * p * sl, o1 = o0 + sl, o2 = o1 + sl, o3 = o2 + sl;
      for (int64_t e = 0; e < sl; e += kLanes) {
        const V are = load(ar + i0 + e), aim = load(ai + i0 + e), bre = load(ar + i1 + e), bim = load(ai + i1 + e);
        const V cre = load(ar + i2 + e), cim = load(ai + i2 + e), dre = load(ar + i3 + e), dim = load(ai + i3 + e);
        const V apc_r = are + cre, apc_i = aim + cim, amc_r = are - cre, amc_i = aim - cim;
        const V bpd_r = bre + dre, bpd_i = bim + dim;
        const V jbmd_r = dim - bim, jbmd_i = bre - dre;  // j * (b - d)
        store(br + o0 + e, apc_r + bpd_r);
        store(bi + o0 + e, apc_i + bpd_i);
        const V t1r = amc_r - jbmd_r, t1i = amc_i - jbmd_i;
        store(br + o1 + e, t1r * c1 - t1i * d1);
        store(bi + o1 + e, t1r * d1 + t1i * c1);
        const V t2r = apc_r - bpd_r, t2i = apc_i - bpd_i;
        store(br + o2 + e, t2r * c2 - t2i * d2);
        store(bi + o2 + e, t2r * d2 + t2i * c2);
        const V t3r = amc_r + jbmd_r, t3i = amc_i + jbmd_i;
        store(br + o3 + e, t3r * c3 - t3i * d3);
        store(bi + o3 + e, t3r * d3 + t3i * c3);
      }
    }
  }

  // x holds the input and receives the output; y is scratch of the same size.
  void run(Buf<R>& x, Buf<R>& y) const {
    R* xr = x.re.data();
    R* xi = x.im.data();
    R* yr = y.re.data();
    R* yi = y.im.data();
    int64_t len = n, s = 1;  // s: number of interleaved sub-sequences (times kLanes)
    size_t stage = 0;
    bool in_x = true;        // where the current data lives
    while (len >= 4) {
      const int64_t q = len / 4;
      const R* w1r = wr[stage].data();
      const R* w1i = wi[stage].data();
      const R* w2r = w1r + q;
      const R* w2i = w1i + q;
      const R* w3r = w2r + q;
      const R* w3i = w2i + q;
      if (in_x) radix4(q, s * kLanes, w1r, w1i, w2r, w2i, w3r, w3i, xr, xi, yr, yi);
      else radix4(q, s * kLanes, w1r, w1i, w2r, w2i, w3r, w3i, yr, yi, xr, xi);
      in_x = !in_x;
      len /= 4;
      s *= 4;
      ++stage;
    }
    if (len == 2) {  // the last stage: radix 2, twiddle 1, written to x
      const R* ar = in_x ? xr : yr;
      const R* ai = in_x ? xi : yi;
      const int64_t sl = s * kLanes;
      for (int64_t e = 0; e < sl; ++e) {  // each pair is read before it is written
        const R are = ar[e], aim = ai[e], bre = ar[sl + e], bim = ai[sl + e];
        xr[e] = are + bre;
        xi[e] = aim + bim;
        xr[sl + e] = are - bre;
        xi[sl + e] = aim - bim;
      }
      return;
    }
    if (!in_x) {
      std::copy(y.re.begin(), y.re.begin() + n * kLanes, x.re.begin());
      std::copy(y.im.begin(), y.im.begin() + n * kLanes, x.im.begin());
    }
  }
};

// Forward DFT of any length n on kLanes lines.
template <typename R>
struct Plan {
  int64_t n;
  Stockham<R> fft;              // length n (power of two) or the convolution length m
  std::vector<R> chirp_r, chirp_i;    // Bluestein: exp(-pi i k^2 / n)
  std::vector<R> kernel_r, kernel_i;  // Bluestein: FFT of the conjugate chirp / m

  explicit Plan(int64_t size) : n(size), fft(convolution_length(size)) {
    if (power_of_two(n)) return;
    const int64_t m = fft.n;
    chirp_r.resize(n);
    chirp_i.resize(n);
    std::vector<std::complex<double>> chirp(n);
    for (int64_t k = 0; k < n; ++k) {
      const int64_t k2 = (k * k) % (2 * n);  // exact angle reduction
      chirp[k] = std::polar(1.0, -std::numbers::pi * static_cast<double>(k2) / static_cast<double>(n));
      chirp_r[k] = static_cast<R>(chirp[k].real());
      chirp_i[k] = static_cast<R>(chirp[k].imag());
    }
    // The kernel's transform in double (once per plan), folded with 1/m.
    std::vector<std::complex<double>> kern(m, 0.0);
    kern[0] = std::conj(chirp[0]);
    for (int64_t k = 1; k < n; ++k) kern[k] = kern[m - k] = std::conj(chirp[k]);
    dft_double(kern);
    kernel_r.resize(m);
    kernel_i.resize(m);
    for (int64_t k = 0; k < m; ++k) {
      kernel_r[k] = static_cast<R>(kern[k].real() / static_cast<double>(m));
      kernel_i[k] = static_cast<R>(kern[k].imag() / static_cast<double>(m));
    }
  }

  static int64_t convolution_length(int64_t n) {
    if (power_of_two(n)) return n;
    int64_t m = 1;
    while (m < 2 * n - 1) m <<= 1;
    return m;
  }

  // In-place radix-2 forward FFT in double, for the plan's kernel only.
  static void dft_double(std::vector<std::complex<double>>& a) {
    const int64_t m = static_cast<int64_t>(a.size());
    for (int64_t i = 1, j = 0; i < m; ++i) {
      int64_t bit = m >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) std::swap(a[i], a[j]);
    }
    for (int64_t len = 2; len <= m; len <<= 1) {
      for (int64_t i = 0; i < m; i += len) {
        for (int64_t j = 0; j < len / 2; ++j) {
          const auto w = std::polar(1.0, -2.0 * std::numbers::pi * static_cast<double>(j) / static_cast<double>(len));
          const auto u = a[i + j], v = a[i + j + len / 2] * w;
          a[i + j] = u + v;
          a[i + j + len / 2] = u - v;
        }
      }
    }
  }

  // Forward transform of x[0, n) (lanes), in place; y and z are scratch.
  void forward(Buf<R>& x, Buf<R>& y, Buf<R>& z) const {
    if (power_of_two(n)) {
      fft.run(x, y);
      return;
    }
    const int64_t m = fft.n;
    // z = x * chirp, zero padded to m
    std::fill(z.re.begin(), z.re.end(), R(0));
    std::fill(z.im.begin(), z.im.end(), R(0));
    for (int64_t k = 0; k < n; ++k) {
      const R cr = chirp_r[k], ci = chirp_i[k];
      for (int l = 0; l < kLanes; ++l) {
        const R a = x.re[k * kLanes + l], b = x.im[k * kLanes + l];
        z.re[k * kLanes + l] = a * cr - b * ci;
        z.im[k * kLanes + l] = a * ci + b * cr;
      }
    }
    fft.run(z, y);
    // times the kernel, conjugated: the inverse transform through the forward one
    for (int64_t k = 0; k < m; ++k) {
      const R kr = kernel_r[k], ki = kernel_i[k];
      for (int l = 0; l < kLanes; ++l) {
        const R a = z.re[k * kLanes + l], b = z.im[k * kLanes + l];
        z.re[k * kLanes + l] = a * kr - b * ki;
        z.im[k * kLanes + l] = -(a * ki + b * kr);
      }
    }
    fft.run(z, y);
    for (int64_t k = 0; k < n; ++k) {  // conj(z) * chirp
      const R cr = chirp_r[k], ci = chirp_i[k];
      for (int l = 0; l < kLanes; ++l) {
        const R a = z.re[k * kLanes + l], b = -z.im[k * kLanes + l];
        x.re[k * kLanes + l] = a * cr - b * ci;
        x.im[k * kLanes + l] = a * ci + b * cr;
      }
    }
  }

  int64_t work_length() const { return fft.n; }
};

// Plans are cached per (length, precision), as cuFFT's plan cache: a
// Bluestein plan costs a double-precision transform of the convolution
// length. Bounded: past kMaxPlans, the least recently used half is dropped
// (callers hold shared_ptrs).
template <typename R>
std::shared_ptr<const Plan<R>> plan_for(int64_t n) {
  constexpr size_t kMaxPlans = 64;
  static std::mutex mu;
  static std::map<int64_t, std::pair<uint64_t, std::shared_ptr<const Plan<R>>>> cache;
  static uint64_t clock = 0;
  {
    std::lock_guard<std::mutex> guard(mu);
    auto it = cache.find(n);
    if (it != cache.end()) {
      it->second.first = ++clock;
      return it->second.second;
    }
  }
  auto plan = std::make_shared<const Plan<R>>(n);  // built outside the lock
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

// Runs body(first_line, lanes, x, y, z) over blocks of kLanes lines on the
// device's cores; the buffers are sized for the plan.
template <typename R, typename Body>
void over_line_blocks(const Plan<R>& plan, int64_t lines, Body&& body) {
  const int64_t blocks = (lines + kLanes - 1) / kLanes;
  const int64_t per_block = std::max<int64_t>(plan.n, 1) * kLanes;
  runtime::parallel_for(0, blocks, std::max<int64_t>(1, 16384 / per_block), [&](int64_t b, int64_t e) {
    Buf<R> x, y, z;  // x: the lines; y: the FFT's scratch; z: Bluestein's convolution
    x.resize(plan.n);
    y.resize(plan.work_length());
    z.resize(power_of_two(plan.n) ? 0 : plan.work_length());
    for (int64_t blk = b; blk < e; ++blk) {
      const int64_t first = blk * kLanes;
      body(first, static_cast<int>(std::min<int64_t>(kLanes, lines - first)), x, y, z);
    }
  });
}

// The first element of line `line` of a [outer, len, inner] tensor (its
// elements are inner apart).
template <typename T>
T* line_start(T* data, int64_t line, int64_t len, int64_t inner) {
  return data + (line / inner) * len * inner + line % inner;
}

// The line lane l of a block reads: the padding lanes of a partial block
// repeat its last line (their results are never written back).
inline int64_t lane_line(int64_t first, int l, int lanes) { return first + std::min(l, lanes - 1); }

template <typename R>
void c2c_typed(std::complex<R>* data, int64_t outer, int64_t n, int64_t inner, bool is_forward, double scale) {
  const auto shared = plan_for<R>(n);
  const Plan<R>& plan = *shared;
  const R sc = static_cast<R>(scale);
  // backward = conj(forward(conj(x)))
  const R sign = is_forward ? R(1) : R(-1);
  over_line_blocks(plan, outer * inner, [&](int64_t first, int lanes, Buf<R>& x, Buf<R>& y, Buf<R>& z) {
    for (int l = 0; l < kLanes; ++l) {
      const std::complex<R>* base = line_start<const std::complex<R>>(data, lane_line(first, l, lanes), n, inner);
      for (int64_t t = 0; t < n; ++t) {
        x.re[t * kLanes + l] = base[t * inner].real();
        x.im[t * kLanes + l] = sign * base[t * inner].imag();
      }
    }
    plan.forward(x, y, z);
    for (int l = 0; l < lanes; ++l) {
      std::complex<R>* base = line_start(data, first + l, n, inner);
      for (int64_t t = 0; t < n; ++t)
        base[t * inner] = std::complex<R>(x.re[t * kLanes + l] * sc, sign * x.im[t * kLanes + l] * sc);
    }
  });
}

template <typename R>
void c2r_typed(const std::complex<R>* in, int64_t m, R* out, int64_t outer, int64_t n, int64_t inner,
               double scale) {
  const auto shared = plan_for<R>(n);
  const Plan<R>& plan = *shared;
  const R sc = static_cast<R>(scale);
  over_line_blocks(plan, outer * inner, [&](int64_t first, int lanes, Buf<R>& x, Buf<R>& y, Buf<R>& z) {
    for (int l = 0; l < kLanes; ++l) {
      const std::complex<R>* src = line_start(in, lane_line(first, l, lanes), m, inner);
      // The Hermitian spectrum, conjugated (backward through forward):
      // X[n - k] = conj(X[k]); X[0] and X[n / 2] (n even) real.
      for (int64_t k = 0; k < n; ++k) {
        const int64_t j = k <= n / 2 ? k : n - k;
        const std::complex<R> v = j < m ? src[j * inner] : std::complex<R>(0);
        const bool real_only = k == 0 || (n % 2 == 0 && k == n / 2);
        x.re[k * kLanes + l] = v.real();
        x.im[k * kLanes + l] = real_only ? R(0) : (k <= n / 2 ? -v.imag() : v.imag());
      }
    }
    plan.forward(x, y, z);
    for (int l = 0; l < lanes; ++l) {
      R* dst = line_start(out, first + l, n, inner);
      for (int64_t t = 0; t < n; ++t) dst[t * inner] = x.re[t * kLanes + l] * sc;
    }
  });
}

// exp(-2 pi i k / n) for k <= n / 2, in the data's precision (computed in double).
template <typename R>
void half_twiddles(int64_t n, std::vector<R>& wr, std::vector<R>& wi) {
  wr.resize(n / 2 + 1);
  wi.resize(n / 2 + 1);
  for (int64_t k = 0; k <= n / 2; ++k) {
    const double angle = -2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n);
    wr[k] = static_cast<R>(std::cos(angle));
    wi[k] = static_cast<R>(std::sin(angle));
  }
}

// Real-input forward transform, even n: the half-length complex transform of
// z[t] = x[2t] + i x[2t+1], then X[k] = E[k] + W^k O[k] with
// E[k] = (Z[k] + conj Z[h-k]) / 2, O[k] = (Z[k] - conj Z[h-k]) / 2i.
template <typename R>
void r2c_even(const R* in, std::complex<R>* out, int64_t outer, int64_t n, int64_t inner, double scale) {
  const int64_t h = n / 2;
  const auto shared = plan_for<R>(h);
  const Plan<R>& plan = *shared;
  std::vector<R> wr, wi;
  half_twiddles(n, wr, wi);
  const R half = static_cast<R>(0.5 * scale);
  over_line_blocks(plan, outer * inner, [&](int64_t first, int lanes, Buf<R>& x, Buf<R>& y, Buf<R>& z) {
    for (int l = 0; l < kLanes; ++l) {
      const R* src = line_start(in, lane_line(first, l, lanes), n, inner);
      for (int64_t t = 0; t < h; ++t) {
        x.re[t * kLanes + l] = src[(2 * t) * inner];
        x.im[t * kLanes + l] = src[(2 * t + 1) * inner];
      }
    }
    plan.forward(x, y, z);
    for (int l = 0; l < lanes; ++l) {
      std::complex<R>* dst = line_start(out, first + l, h + 1, inner);
      for (int64_t k = 0; k <= h; ++k) {
        const int64_t a = k % h, b = (h - k) % h;
        const R zr = x.re[a * kLanes + l], zi = x.im[a * kLanes + l];
        const R cr = x.re[b * kLanes + l], ci = -x.im[b * kLanes + l];  // conj Z[h-k]
        const R er = zr + cr, ei = zi + ci;                              // 2 E
        const R or_ = zi - ci, oi = -(zr - cr);                          // 2 O = (Z - conj) / i
        const R tr = wr[k] * or_ - wi[k] * oi, ti = wr[k] * oi + wi[k] * or_;
        dst[k * inner] = std::complex<R>((er + tr) * half, (ei + ti) * half);
      }
    }
  });
}

// Complex-to-real inverse, even n: Z[k] = E'[k] + i O'[k] with
// E' = X[k] + conj X[h-k], O' = (X[k] - conj X[h-k]) conj(W^k), then the
// unnormalised half-length inverse z: x[2t] = Re z[t], x[2t+1] = Im z[t].
template <typename R>
void c2r_even(const std::complex<R>* in, int64_t m, R* out, int64_t outer, int64_t n, int64_t inner,
              double scale) {
  const int64_t h = n / 2;
  const auto shared = plan_for<R>(h);
  const Plan<R>& plan = *shared;
  std::vector<R> wr, wi;
  half_twiddles(n, wr, wi);
  const R sc = static_cast<R>(scale);
  over_line_blocks(plan, outer * inner, [&](int64_t first, int lanes, Buf<R>& x, Buf<R>& y, Buf<R>& z) {
    for (int l = 0; l < kLanes; ++l) {
      const std::complex<R>* src = line_start(in, lane_line(first, l, lanes), m, inner);
      auto coef = [&](int64_t k) {  // X[k], 0 <= k <= h; imaginary parts of X[0], X[h] ignored
        const std::complex<R> v = k < m ? src[k * inner] : std::complex<R>(0);
        return (k == 0 || k == h) ? std::complex<R>(v.real(), 0) : v;
      };
      for (int64_t k = 0; k < h; ++k) {
        const std::complex<R> a = coef(k), b = std::conj(coef(h - k));
        const R er = a.real() + b.real(), ei = a.imag() + b.imag();
        const R dr = a.real() - b.real(), di = a.imag() - b.imag();
        const R or_ = dr * wr[k] + di * wi[k], oi = di * wr[k] - dr * wi[k];  // (a - b) conj(W^k)
        // the inverse through the forward transform: conj(Z) in, conj out
        x.re[k * kLanes + l] = er - oi;
        x.im[k * kLanes + l] = -(ei + or_);
      }
    }
    plan.forward(x, y, z);
    for (int l = 0; l < lanes; ++l) {
      R* dst = line_start(out, first + l, n, inner);
      for (int64_t t = 0; t < h; ++t) {
        dst[(2 * t) * inner] = x.re[t * kLanes + l] * sc;
        dst[(2 * t + 1) * inner] = -x.im[t * kLanes + l] * sc;
      }
    }
  });
}

}  // namespace

void fft_r2c_axis(DType t, const void* in, void* out, int64_t outer, int64_t n, int64_t inner, double scale) {
  if (n == 0 || outer * inner == 0) return;
  if (n % 2 != 0) throw std::invalid_argument("fft_r2c_axis: even lengths only");
  if (t == DType::kFloat32) {
    r2c_even(static_cast<const float*>(in), static_cast<std::complex<float>*>(out), outer, n, inner, scale);
  } else if (t == DType::kFloat64) {
    r2c_even(static_cast<const double*>(in), static_cast<std::complex<double>*>(out), outer, n, inner, scale);
  } else {
    throw std::invalid_argument("fft: float32 or float64 only");
  }
}

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
  const bool even = n % 2 == 0;
  if (t == DType::kComplex64) {
    auto* src = static_cast<const std::complex<float>*>(in);
    auto* dst = static_cast<float*>(out);
    even ? c2r_even(src, m, dst, outer, n, inner, scale) : c2r_typed(src, m, dst, outer, n, inner, scale);
  } else if (t == DType::kComplex128) {
    auto* src = static_cast<const std::complex<double>*>(in);
    auto* dst = static_cast<double*>(out);
    even ? c2r_even(src, m, dst, outer, n, inner, scale) : c2r_typed(src, m, dst, outer, n, inner, scale);
  } else {
    throw std::invalid_argument("fft: complex64 or complex128 only");
  }
}

}  // namespace torch_tpu::kernels
