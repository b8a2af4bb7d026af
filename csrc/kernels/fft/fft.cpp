// Transforms along one axis (fft.h).
//
// Lines are transformed kLanes at a time: a block of lines is gathered into
// split real/imaginary buffers laid out [t][lane], so every butterfly is a
// loop over the lanes that the compiler vectorises, whatever the line length
// or the axis' stride. Arithmetic is in the data's precision (float for
// complex64, as CPU's MKL; double for complex128).
//
// Lengths whose prime factors are at most 13: Stockham autosort FFT, mixed
// radix (4, then 3, 5, 7, 11, 13, then a final 2; no bit reversal, each
// stage reads one buffer and writes the other). Other lengths: Bluestein's
// chirp-z over a convolution of a 2-3-5-smooth length. A Plan holds one length's twiddles (and the
// Bluestein chirp and transformed kernel), cached per (length, precision);
// blocks of lines are split over the device's cores.
//
// Moving lines in and out of the lanes layout is a transpose, and it cost
// as much as the transform itself when done one element at a time: full
// blocks of contiguous lines move as kLanes x kLanes tiles transposed in
// vector registers, and blocks of lines that lie side by side (an axis
// with inner >= kLanes) as whole vectors. The real-input pre- and
// post-processing runs on the lanes layout, vectorised too.
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

#include "kernels/common/isa.h"
#include "kernels/common/scratch.h"
#include "kernels/fft/fft.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
inline namespace TORCH_TPU_ISA {  // see isa.h
namespace {

constexpr int kLanes = 8;

// kLanes values of type R in a GCC vector; I: the shuffle index vector.
template <typename R>
struct Lanes {
  typedef R V __attribute__((vector_size(kLanes * sizeof(R)), aligned(sizeof(R))));
  typedef std::conditional_t<sizeof(R) == 4, int32_t, int64_t> Index;
  typedef Index I __attribute__((vector_size(kLanes * sizeof(R))));
  static V load(const R* p) { return *reinterpret_cast<const V*>(p); }
  static void store(R* p, V v) { *reinterpret_cast<V*>(p) = v; }
  // Whether shuffles of V are single instructions here (GCC splits wider
  // vectors and would move the elements one by one).
#if defined(__AVX512F__)
  static constexpr bool kShuffles = sizeof(V) <= 64;
#else
  static constexpr bool kShuffles = sizeof(V) <= 32;
#endif

  // r[i][j] <-> r[j][i], by swapping off-diagonal blocks of 4, 2, 1.
  static void transpose(V r[kLanes]) {
    static_assert(kLanes == 8);
    swap_blocks<4>(r, I{0, 1, 2, 3, 8, 9, 10, 11}, I{4, 5, 6, 7, 12, 13, 14, 15});
    swap_blocks<2>(r, I{0, 1, 8, 9, 4, 5, 12, 13}, I{2, 3, 10, 11, 6, 7, 14, 15});
    swap_blocks<1>(r, I{0, 8, 2, 10, 4, 12, 6, 14}, I{1, 9, 3, 11, 5, 13, 7, 15});
  }
  template <int H>
  static void swap_blocks(V r[kLanes], I lo, I hi) {
    for (int i = 0; i < kLanes; ++i) {
      if (i & H) continue;
      const V a = r[i], b = r[i + H];
      r[i] = __builtin_shuffle(a, b, lo);
      r[i + H] = __builtin_shuffle(a, b, hi);
    }
  }
  // c0, c1: kLanes interleaved complex values -> their real and imaginary parts.
  static void split(V c0, V c1, V& re, V& im) {
    re = __builtin_shuffle(c0, c1, I{0, 2, 4, 6, 8, 10, 12, 14});
    im = __builtin_shuffle(c0, c1, I{1, 3, 5, 7, 9, 11, 13, 15});
  }
  static void join(V re, V im, V& c0, V& c1) {
    c0 = __builtin_shuffle(re, im, I{0, 8, 1, 9, 2, 10, 3, 11});
    c1 = __builtin_shuffle(re, im, I{4, 12, 5, 13, 6, 14, 7, 15});
  }
};

// Split complex lanes: element t, lane l at re[t * kLanes + l]. A view of
// a worker's scratch memory.
template <typename R>
struct Buf {
  R* re = nullptr;
  R* im = nullptr;
};

// The radices a Stockham FFT of length n runs, first to last, or none when
// n has a prime factor above 13 (Bluestein's algorithm then): radix 4 while
// it divides, then the odd primes, then a radix 2 last (twiddle-free there).
std::vector<int> stockham_radices(int64_t n) {
  std::vector<int> radices;
  for (; n % 4 == 0; n /= 4) radices.push_back(4);
  for (int p : {3, 5, 7, 11, 13}) {
    for (; n % p == 0; n /= p) radices.push_back(p);
  }
  if (n == 2) {
    radices.push_back(2);
    n = 1;
  }
  if (n != 1) radices.clear();
  return radices;
}

// Forward FFT of a length with prime factors up to 13: Stockham, mixed
// radix (4, then 3, 5, 7, 11, 13, then 2).
template <typename R>
struct Stockham {
  int64_t n = 1;
  std::vector<int> radices;
  // Per stage of radix r and length len (n, n / r0, ...): w^(j p) at
  // [(j - 1) * q + p] for 1 <= j < r, p < q = len / r, w = exp(-2 pi i / len).
  std::vector<std::vector<R>> wr, wi;

  explicit Stockham(int64_t size) : n(size), radices(stockham_radices(size)) {
    int64_t len = n;
    for (int r : radices) {
      const int64_t q = len / r;
      std::vector<R> re((r - 1) * q), im((r - 1) * q);
      for (int64_t p = 0; p < q; ++p) {
        for (int j = 1; j < r; ++j) {
          const int64_t k = (j * p) % len;  // exact angle reduction
          const double angle = -2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(len);
          re[(j - 1) * q + p] = static_cast<R>(std::cos(angle));
          im[(j - 1) * q + p] = static_cast<R>(std::sin(angle));
        }
      }
      wr.push_back(std::move(re));
      wi.push_back(std::move(im));
      len = q;
    }
  }

  static bool supports(int64_t n) { return n == 1 || !stockham_radices(n).empty(); }

  // One radix-4 Stockham stage: q = len / 4 groups of sl = s * kLanes
  // elements; reads a, writes b. Written on GCC vectors of kLanes elements
  // (sl is a multiple of kLanes): GCC 12 does not vectorise this loop's 16
  // streams by itself.
  using V = typename Lanes<R>::V;
  static V load(const R* p) { return Lanes<R>::load(p); }
  static void store(R* p, V v) { Lanes<R>::store(p, v); }

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

  // One stage of odd prime radix P, as radix4: outputs j and P - j of a
  // butterfly share the sums s_m = a_m + a_(P-m) and differences
  // d_m = a_m - a_(P-m), m = 1 .. (P - 1) / 2:
  //   X_j, X_(P-j) = a_0 + sum_m cos(2 pi j m / P) s_m  -+  i sum_m sin(2 pi j m / P) d_m
  template <int P>
  static void radix_odd(int64_t q, int64_t sl, const R* twr, const R* twi, const R* ar, const R* ai, R* br,
                        R* bi) {
    constexpr int H = (P - 1) / 2;
    R cs[H + 1][H + 1], sn[H + 1][H + 1];
    for (int j = 1; j <= H; ++j) {
      for (int m = 1; m <= H; ++m) {
        const double angle = 2.0 * std::numbers::pi * static_cast<double>((j * m) % P) / P;
        cs[j][m] = static_cast<R>(std::cos(angle));
        sn[j][m] = static_cast<R>(std::sin(angle));
      }
    }
    for (int64_t p = 0; p < q; ++p) {
      R wre[P], wim[P];
      for (int j = 1; j < P; ++j) {
        wre[j] = twr[(j - 1) * q + p];
        wim[j] = twi[(j - 1) * q + p];
      }
      for (int64_t e = 0; e < sl; e += kLanes) {
        V xr[P], xi[P];
        for (int m = 0; m < P; ++m) {
          xr[m] = load(ar + (p + m * q) * sl + e);
          xi[m] = load(ai + (p + m * q) * sl + e);
        }
        V sr[H + 1], si[H + 1], dr[H + 1], di[H + 1];
        V y0r = xr[0], y0i = xi[0];
        for (int m = 1; m <= H; ++m) {
          sr[m] = xr[m] + xr[P - m];
          si[m] = xi[m] + xi[P - m];
          dr[m] = xr[m] - xr[P - m];
          di[m] = xi[m] - xi[P - m];
          y0r += sr[m];
          y0i += si[m];
        }
        R* out_r = br + P * p * sl + e;
        R* out_i = bi + P * p * sl + e;
        store(out_r, y0r);
        store(out_i, y0i);
        for (int j = 1; j <= H; ++j) {
          V a_r = xr[0], a_i = xi[0], b_r = dr[1] * sn[j][1], b_i = di[1] * sn[j][1];
          for (int m = 1; m <= H; ++m) {
            a_r += cs[j][m] * sr[m];
            a_i += cs[j][m] * si[m];
            if (m > 1) {
              b_r += sn[j][m] * dr[m];
              b_i += sn[j][m] * di[m];
            }
          }
          const V u_r = a_r + b_i, u_i = a_i - b_r;  // X_j
          const V v_r = a_r - b_i, v_i = a_i + b_r;  // X_(P-j)
          store(out_r + j * sl, u_r * wre[j] - u_i * wim[j]);
          store(out_i + j * sl, u_r * wim[j] + u_i * wre[j]);
          store(out_r + (P - j) * sl, v_r * wre[P - j] - v_i * wim[P - j]);
          store(out_i + (P - j) * sl, v_r * wim[P - j] + v_i * wre[P - j]);
        }
      }
    }
  }

  // x holds the input and receives the output; y is scratch of the same size.
  void run(Buf<R> x, Buf<R> y) const {
    R* xr = x.re;
    R* xi = x.im;
    R* yr = y.re;
    R* yi = y.im;
    int64_t len = n, s = 1;  // s: number of interleaved sub-sequences (times kLanes)
    bool in_x = true;        // where the current data lives
    for (size_t stage = 0; stage < radices.size(); ++stage) {
      const int r = radices[stage];
      if (r == 2) break;  // the last stage, below
      const int64_t q = len / r, sl = s * kLanes;
      const R* twr = wr[stage].data();
      const R* twi = wi[stage].data();
      const R* ar = in_x ? xr : yr;
      const R* ai = in_x ? xi : yi;
      R* br = in_x ? yr : xr;
      R* bi = in_x ? yi : xi;
      switch (r) {
        case 4: radix4(q, sl, twr, twi, twr + q, twi + q, twr + 2 * q, twi + 2 * q, ar, ai, br, bi); break;
        case 3: radix_odd<3>(q, sl, twr, twi, ar, ai, br, bi); break;
        case 5: radix_odd<5>(q, sl, twr, twi, ar, ai, br, bi); break;
        case 7: radix_odd<7>(q, sl, twr, twi, ar, ai, br, bi); break;
        case 11: radix_odd<11>(q, sl, twr, twi, ar, ai, br, bi); break;
        default: radix_odd<13>(q, sl, twr, twi, ar, ai, br, bi); break;
      }
      in_x = !in_x;
      len = q;
      s *= r;
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
      std::copy(y.re, y.re + n * kLanes, x.re);
      std::copy(y.im, y.im + n * kLanes, x.im);
    }
  }
};

// Forward DFT of any length n on kLanes lines.
template <typename R>
struct Plan {
  int64_t n;
  Stockham<R> fft;              // length n, or Bluestein's convolution length m
  std::vector<R> chirp_r, chirp_i;    // Bluestein: exp(-pi i k^2 / n)
  std::vector<R> kernel_r, kernel_i;  // Bluestein: FFT of the conjugate chirp / m
  // The real transforms of length 2n that run through this one:
  // exp(-2 pi i k / 2n) for k <= n, computed in double.
  std::vector<R> half_r, half_i;

  explicit Plan(int64_t size) : n(size), fft(convolution_length(size)) {
    half_r.resize(n + 1);
    half_i.resize(n + 1);
    for (int64_t k = 0; k <= n; ++k) {
      const double angle = -std::numbers::pi * static_cast<double>(k) / static_cast<double>(n);
      half_r[k] = static_cast<R>(std::cos(angle));
      half_i[k] = static_cast<R>(std::sin(angle));
    }
    if (direct()) return;
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

  // Whether the Stockham FFT runs length n itself (else Bluestein).
  bool direct() const { return fft.n == n; }

  // Bluestein's convolution length: the smallest m >= 2n - 1 of the form
  // 2^a 3^b 5^c (a >= 2: the Stockham FFT starts with radix 4), which is at
  // most 1.2x 2n - 1 where the next power of two can be 2x (4099 points:
  // 8640, not 16384).
  static int64_t convolution_length(int64_t n) {
    if (Stockham<R>::supports(n)) return n;
    for (int64_t m = 2 * n - 1;; ++m) {
      int64_t r = m;
      if (r % 4 != 0) continue;
      for (int p : {2, 3, 5}) {
        while (r % p == 0) r /= p;
      }
      if (r == 1) return m;
    }
  }

  // Forward FFT of `a` in double, for the plan's kernel only: lane 0 of a
  // Stockham<double> of the same length (once per plan).
  static void dft_double(std::vector<std::complex<double>>& a) {
    const int64_t m = static_cast<int64_t>(a.size());
    const Stockham<double> fft(m);
    std::vector<double> mem(4 * m * kLanes, 0.0);
    const Buf<double> x{mem.data(), mem.data() + m * kLanes};
    const Buf<double> y{mem.data() + 2 * m * kLanes, mem.data() + 3 * m * kLanes};
    for (int64_t k = 0; k < m; ++k) {
      x.re[k * kLanes] = a[k].real();
      x.im[k * kLanes] = a[k].imag();
    }
    fft.run(x, y);
    for (int64_t k = 0; k < m; ++k) a[k] = {x.re[k * kLanes], x.im[k * kLanes]};
  }

  // Forward transform of x[0, n) (lanes), in place; y and z are scratch of
  // work_length() elements.
  void forward(Buf<R> x, Buf<R> y, Buf<R> z) const {
    if (direct()) {
      fft.run(x, y);
      return;
    }
    const int64_t m = fft.n;
    // z = x * chirp, zero padded to m
    std::fill(z.re, z.re + m * kLanes, R(0));
    std::fill(z.im, z.im + m * kLanes, R(0));
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

// The six buffers of a worker's blocks (x, y, z), kept between calls up to
// 16 MB.
thread_local ScratchBuffer t_blocks(size_t{16} << 20);

// Runs body(first_line, lanes, x, y, z) over blocks of kLanes lines on the
// device's cores. x, y and z hold max(n, work length) + 1 elements: the
// real transforms stage their h + 1 coefficients in y or z.
template <typename R, typename Body>
void over_line_blocks(const Plan<R>& plan, int64_t lines, Body&& body) {
  const int64_t blocks = (lines + kLanes - 1) / kLanes;
  const int64_t per_buf = (std::max(plan.n, plan.work_length()) + 1) * kLanes;
  runtime::parallel_for(0, blocks, std::max<int64_t>(1, 16384 / per_buf), [&](int64_t b, int64_t e) {
    ScratchUse scratch(t_blocks);
    R* mem = scratch.get<R>(6 * per_buf);
    const Buf<R> x{mem, mem + per_buf}, y{mem + 2 * per_buf, mem + 3 * per_buf};
    const Buf<R> z{mem + 4 * per_buf, mem + 5 * per_buf};
    for (int64_t blk = b; blk < e; ++blk) {
      const int64_t first = blk * kLanes;
      body(first, static_cast<int>(std::min<int64_t>(kLanes, lines - first)), x, y, z);
    }
  });
}

// Where the lines of a [outer, len, inner] tensor are: line `line` starts
// at (line / inner) * len * inner + line % inner, its elements inner apart.
struct Lines {
  int64_t len, inner;
  int64_t start(int64_t line) const { return (line / inner) * len * inner + line % inner; }
  // Whether the kLanes lines from `first` lie side by side (one apart).
  bool side_by_side(int64_t first) const { return inner >= kLanes && first % inner + kLanes <= inner; }
};

// The line lane l of a block reads: the padding lanes of a partial block
// repeat its last line (their results are never written back).
inline int64_t lane_line(int64_t first, int l, int lanes) { return first + std::min(l, lanes - 1); }

// x[t] = element t of the block's lines, t < count, imaginary parts times sign.
template <typename R>
void gather(const std::complex<R>* data, Lines at, int64_t first, int lanes, int64_t count, R sign, Buf<R> x) {
  using L = Lanes<R>;
  using V = typename L::V;
  if (lanes == kLanes && at.side_by_side(first)) {
    const R* base = reinterpret_cast<const R*>(data + at.start(first));
    for (int64_t t = 0; t < count; ++t) {
      const R* p = base + 2 * t * at.inner;
      if constexpr (L::kShuffles) {
        V re, im;
        L::split(L::load(p), L::load(p + kLanes), re, im);
        L::store(x.re + t * kLanes, re);
        L::store(x.im + t * kLanes, im * sign);
      } else {
        for (int l = 0; l < kLanes; ++l) {
          x.re[t * kLanes + l] = p[2 * l];
          x.im[t * kLanes + l] = sign * p[2 * l + 1];
        }
      }
    }
    return;
  }
  int64_t done = 0;
  if constexpr (L::kShuffles) {
    if (lanes == kLanes && at.inner == 1) {  // kLanes x kLanes tiles
      const R* line[kLanes];
      for (int l = 0; l < kLanes; ++l) line[l] = reinterpret_cast<const R*>(data + at.start(first + l));
      for (; done + kLanes <= count; done += kLanes) {
        V re[kLanes], im[kLanes];
        for (int l = 0; l < kLanes; ++l) {
          L::split(L::load(line[l] + 2 * done), L::load(line[l] + 2 * done + kLanes), re[l], im[l]);
        }
        L::transpose(re);
        L::transpose(im);
        for (int j = 0; j < kLanes; ++j) {
          L::store(x.re + (done + j) * kLanes, re[j]);
          L::store(x.im + (done + j) * kLanes, im[j] * sign);
        }
      }
    }
  }
  for (int l = 0; l < kLanes; ++l) {  // the rest, an element at a time
    const std::complex<R>* p = data + at.start(lane_line(first, l, lanes));
    for (int64_t t = done; t < count; ++t) {
      x.re[t * kLanes + l] = p[t * at.inner].real();
      x.im[t * kLanes + l] = sign * p[t * at.inner].imag();
    }
  }
}

// Element t of the block's first `lanes` lines = x[t] * scale, imaginary
// parts times sign, t < count.
template <typename R>
void scatter(Buf<R> x, R scale, R sign, std::complex<R>* data, Lines at, int64_t first, int lanes, int64_t count) {
  using L = Lanes<R>;
  using V = typename L::V;
  const R scale_im = sign * scale;
  if (lanes == kLanes && at.side_by_side(first)) {
    R* base = reinterpret_cast<R*>(data + at.start(first));
    for (int64_t t = 0; t < count; ++t) {
      R* p = base + 2 * t * at.inner;
      if constexpr (L::kShuffles) {
        V c0, c1;
        L::join(L::load(x.re + t * kLanes) * scale, L::load(x.im + t * kLanes) * scale_im, c0, c1);
        L::store(p, c0);
        L::store(p + kLanes, c1);
      } else {
        for (int l = 0; l < kLanes; ++l) {
          p[2 * l] = x.re[t * kLanes + l] * scale;
          p[2 * l + 1] = x.im[t * kLanes + l] * scale_im;
        }
      }
    }
    return;
  }
  int64_t done = 0;
  if constexpr (L::kShuffles) {
    if (lanes == kLanes && at.inner == 1) {
      R* line[kLanes];
      for (int l = 0; l < kLanes; ++l) line[l] = reinterpret_cast<R*>(data + at.start(first + l));
      for (; done + kLanes <= count; done += kLanes) {
        V re[kLanes], im[kLanes];
        for (int j = 0; j < kLanes; ++j) {
          re[j] = L::load(x.re + (done + j) * kLanes) * scale;
          im[j] = L::load(x.im + (done + j) * kLanes) * scale_im;
        }
        L::transpose(re);
        L::transpose(im);
        for (int l = 0; l < kLanes; ++l) {
          V c0, c1;
          L::join(re[l], im[l], c0, c1);
          L::store(line[l] + 2 * done, c0);
          L::store(line[l] + 2 * done + kLanes, c1);
        }
      }
    }
  }
  for (int l = 0; l < lanes; ++l) {
    std::complex<R>* p = data + at.start(first + l);
    for (int64_t t = done; t < count; ++t) {
      p[t * at.inner] = std::complex<R>(x.re[t * kLanes + l] * scale, x.im[t * kLanes + l] * scale_im);
    }
  }
}

// The block's real lines of length 2h (at.len) seen as h complex values
// (line[2t], line[2t + 1]): into x.
template <typename R>
void gather_pairs(const R* data, Lines at, int64_t first, int lanes, Buf<R> x) {
  const int64_t h = at.len / 2;
  if (at.inner == 1) {
    gather(reinterpret_cast<const std::complex<R>*>(data), Lines{h, 1}, first, lanes, h, R(1), x);
    return;
  }
  if (lanes == kLanes && at.side_by_side(first)) {
    const R* base = data + at.start(first);
    for (int64_t t = 0; t < h; ++t) {
      std::copy_n(base + 2 * t * at.inner, kLanes, x.re + t * kLanes);
      std::copy_n(base + (2 * t + 1) * at.inner, kLanes, x.im + t * kLanes);
    }
    return;
  }
  for (int l = 0; l < kLanes; ++l) {
    const R* p = data + at.start(lane_line(first, l, lanes));
    for (int64_t t = 0; t < h; ++t) {
      x.re[t * kLanes + l] = p[2 * t * at.inner];
      x.im[t * kLanes + l] = p[(2 * t + 1) * at.inner];
    }
  }
}

// The inverse: line[2t] = x[t].re * scale, line[2t + 1] = x[t].im * sign * scale.
template <typename R>
void scatter_pairs(Buf<R> x, R scale, R sign, R* data, Lines at, int64_t first, int lanes) {
  const int64_t h = at.len / 2;
  if (at.inner == 1) {
    scatter(x, scale, sign, reinterpret_cast<std::complex<R>*>(data), Lines{h, 1}, first, lanes, h);
    return;
  }
  const R scale_im = sign * scale;
  for (int l = 0; l < lanes; ++l) {
    R* p = data + at.start(first + l);
    for (int64_t t = 0; t < h; ++t) {
      p[2 * t * at.inner] = x.re[t * kLanes + l] * scale;
      p[(2 * t + 1) * at.inner] = x.im[t * kLanes + l] * scale_im;
    }
  }
}

template <typename R>
void c2c_typed(const std::complex<R>* in, std::complex<R>* out, int64_t outer, int64_t n, int64_t inner,
               bool is_forward, double scale) {
  const auto shared = plan_for<R>(n);
  const Plan<R>& plan = *shared;
  const Lines at{n, inner};
  // backward = conj(forward(conj(x)))
  const R sign = is_forward ? R(1) : R(-1);
  over_line_blocks(plan, outer * inner, [&](int64_t first, int lanes, Buf<R> x, Buf<R> y, Buf<R> z) {
    gather(in, at, first, lanes, n, sign, x);
    plan.forward(x, y, z);
    scatter(x, static_cast<R>(scale), sign, out, at, first, lanes, n);
  });
}

// Complex-to-real of any length: the Hermitian spectrum, conjugated
// (backward through forward): X[n - k] = conj(X[k]); X[0] and X[n / 2]
// (n even) real; coefficients from m on are 0.
template <typename R>
void c2r_typed(const std::complex<R>* in, int64_t m, R* out, int64_t outer, int64_t n, int64_t inner,
               double scale) {
  const auto shared = plan_for<R>(n);
  const Plan<R>& plan = *shared;
  const R sc = static_cast<R>(scale);
  const int64_t count = std::min(m, n / 2 + 1);
  over_line_blocks(plan, outer * inner, [&](int64_t first, int lanes, Buf<R> x, Buf<R> y, Buf<R> z) {
    gather(in, Lines{m, inner}, first, lanes, count, R(-1), x);
    std::fill(x.re + count * kLanes, x.re + (n / 2 + 1) * kLanes, R(0));
    std::fill(x.im + count * kLanes, x.im + (n / 2 + 1) * kLanes, R(0));
    std::fill_n(x.im, kLanes, R(0));
    if (n % 2 == 0) std::fill_n(x.im + (n / 2) * kLanes, kLanes, R(0));
    for (int64_t k = n / 2 + 1; k < n; ++k) {
      for (int l = 0; l < kLanes; ++l) {
        x.re[k * kLanes + l] = x.re[(n - k) * kLanes + l];
        x.im[k * kLanes + l] = -x.im[(n - k) * kLanes + l];
      }
    }
    plan.forward(x, y, z);
    for (int l = 0; l < lanes; ++l) {
      R* dst = out + Lines{n, inner}.start(first + l);
      for (int64_t t = 0; t < n; ++t) dst[t * inner] = x.re[t * kLanes + l] * sc;
    }
  });
}

// Real-input forward transform, even n: the half-length complex transform of
// z[t] = x[2t] + i x[2t+1], then X[k] = E[k] + W^k O[k] with
// E[k] = (Z[k] + conj Z[h-k]) / 2, O[k] = (Z[k] - conj Z[h-k]) / 2i,
// computed on the lanes layout into y, then written out.
template <typename R>
void r2c_even(const R* in, std::complex<R>* out, int64_t outer, int64_t n, int64_t inner, double scale) {
  using L = Lanes<R>;
  using V = typename L::V;
  const int64_t h = n / 2;
  const auto shared = plan_for<R>(h);
  const Plan<R>& plan = *shared;
  const R half = static_cast<R>(0.5 * scale);
  over_line_blocks(plan, outer * inner, [&](int64_t first, int lanes, Buf<R> x, Buf<R> y, Buf<R> z) {
    gather_pairs(in, Lines{n, inner}, first, lanes, x);
    plan.forward(x, y, z);
    for (int64_t k = 0; k <= h; ++k) {
      const int64_t a = k == h ? 0 : k, b = k == 0 ? 0 : h - k;  // k mod h, (h - k) mod h
      const V zr = L::load(x.re + a * kLanes), zi = L::load(x.im + a * kLanes);
      const V cr = L::load(x.re + b * kLanes), ci = -L::load(x.im + b * kLanes);  // conj Z[h-k]
      const V er = zr + cr, ei = zi + ci;                                          // 2 E
      const V or_ = zi - ci, oi = cr - zr;                                         // 2 O = (Z - conj) / i
      const R wr = plan.half_r[k], wi = plan.half_i[k];
      const V tr = wr * or_ - wi * oi, ti = wr * oi + wi * or_;
      L::store(y.re + k * kLanes, (er + tr) * half);
      L::store(y.im + k * kLanes, (ei + ti) * half);
    }
    scatter(y, R(1), R(1), out, Lines{h + 1, inner}, first, lanes, h + 1);
  });
}

// Complex-to-real inverse, even n: Z[k] = E'[k] + i O'[k] with
// E' = X[k] + conj X[h-k], O' = (X[k] - conj X[h-k]) conj(W^k), then the
// unnormalised half-length inverse z: x[2t] = Re z[t], x[2t+1] = Im z[t].
// The coefficients are staged in y (m of them at most; missing ones 0).
template <typename R>
void c2r_even(const std::complex<R>* in, int64_t m, R* out, int64_t outer, int64_t n, int64_t inner,
              double scale) {
  using L = Lanes<R>;
  using V = typename L::V;
  const int64_t h = n / 2;
  const auto shared = plan_for<R>(h);
  const Plan<R>& plan = *shared;
  const int64_t count = std::min(m, h + 1);
  over_line_blocks(plan, outer * inner, [&](int64_t first, int lanes, Buf<R> x, Buf<R> y, Buf<R> z) {
    gather(in, Lines{m, inner}, first, lanes, count, R(1), y);
    std::fill(y.re + count * kLanes, y.re + (h + 1) * kLanes, R(0));
    std::fill(y.im + count * kLanes, y.im + (h + 1) * kLanes, R(0));
    std::fill_n(y.im, kLanes, R(0));  // the imaginary parts of X[0] and X[h] are ignored
    std::fill_n(y.im + h * kLanes, kLanes, R(0));
    for (int64_t k = 0; k < h; ++k) {
      const V ar = L::load(y.re + k * kLanes), ai = L::load(y.im + k * kLanes);
      const V br = L::load(y.re + (h - k) * kLanes), bi = -L::load(y.im + (h - k) * kLanes);
      const V er = ar + br, ei = ai + bi, dr = ar - br, di = ai - bi;
      const R wr = plan.half_r[k], wi = plan.half_i[k];
      const V or_ = dr * wr + di * wi, oi = di * wr - dr * wi;  // (a - b) conj(W^k)
      // the inverse through the forward transform: conj(Z) in, conj out
      L::store(x.re + k * kLanes, er - oi);
      L::store(x.im + k * kLanes, -(ei + or_));
    }
    plan.forward(x, y, z);
    scatter_pairs(x, static_cast<R>(scale), R(-1), out, Lines{n, inner}, first, lanes);
  });
}

}  // namespace
}  // namespace TORCH_TPU_ISA

void TORCH_TPU_ISA_ENTRY(fft_r2c_axis)(DType t, const void* in, void* out, int64_t outer, int64_t n, int64_t inner, double scale) {
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

void TORCH_TPU_ISA_ENTRY(fft_c2c_axis)(DType t, const void* in, void* out, int64_t outer, int64_t n, int64_t inner, bool forward,
                  double scale) {
  if (n == 0 || outer * inner == 0) return;
  if (t == DType::kComplex64) {
    c2c_typed(static_cast<const std::complex<float>*>(in), static_cast<std::complex<float>*>(out), outer, n,
              inner, forward, scale);
  } else if (t == DType::kComplex128) {
    c2c_typed(static_cast<const std::complex<double>*>(in), static_cast<std::complex<double>*>(out), outer, n,
              inner, forward, scale);
  } else {
    throw std::invalid_argument("fft: complex64 or complex128 only");
  }
}

void TORCH_TPU_ISA_ENTRY(fft_c2r_axis)(DType t, const void* in, int64_t m, void* out, int64_t outer, int64_t n, int64_t inner,
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
