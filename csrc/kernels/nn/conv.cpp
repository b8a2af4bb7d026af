// Convolution by lowering (conv.h): im2col / col2im around the device GEMM.
// Images go through in passes of as many as keep the column buffer near a
// million elements: one im2col over every row of the pass, one GEMM batched
// over its images (or, for the weight gradient, one GEMM whose k runs over
// the images' positions), one col2im. The column buffer stays with the
// worker thread between calls when small. 1-d and 2-d im2col and col2im
// work on a padded copy of each plane (PaddedPlane), so their taps need no
// bounds checks; 3-d keeps the checked loops. A 1x1 kernel with stride 1 and no
// padding needs no column buffer in the forward: the image is its own im2col.
// int64 (forward only: integers have no gradient) runs the same lowering on
// the integer GEMM, with col2im summing in uint64_t: exact modulo 2^64, as
// CPU's slow (im2col) int64 convolution. col2im alone (the col2im op, the
// backward of im2col) also takes complex: the real and imaginary parts are
// two lanes summed separately, as CPU's complex additions do.
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "kernels/nn/conv.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/scratch.h"
#include "kernels/linalg/gemm.h"
#include "kernels/nn/rows.h"
#include "runtime/runtime.h"
#include "kernels/common/isa.h"

namespace torch_tpu::kernels {
inline namespace TORCH_TPU_ISA {  // see isa.h
namespace {

struct Sizes {
  int64_t K = 1;      // kernel volume
  int64_t P = 1;      // flat positions per channel
  int64_t I = 1;      // image positions per channel
  int64_t cg_image = 1, cg_flat = 1;  // channels per group
  bool identity = false;  // im2col(image) is the image itself
};

Sizes sizes_of(const ConvDesc& d) {
  Sizes s;
  const ConvGeometry& g = d.geo;
  bool unit = true;
  for (int i = 0; i < 3; ++i) {
    s.K *= g.kernel[i];
    s.P *= g.flat[i];
    s.I *= g.image[i];
    unit = unit && g.stride[i] == 1 && g.padding[i] == 0;
  }
  s.cg_image = d.image_channels / d.groups;
  s.cg_flat = d.flat_channels / d.groups;
  s.identity = unit && s.K == 1;
  return s;
}

DType compute_dtype(DType t) {
  if (t == DType::kInt64 || t == DType::kFloat64) return t;
  return DType::kFloat32;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The flat positions ow in [lo, hi) whose window tap at offset `off`
// (kernel index * dilation - padding) lands inside an image row of n.
void valid_range(int64_t off, int64_t stride, int64_t n, int64_t flat, int64_t& lo, int64_t& hi) {
  lo = off >= 0 ? 0 : ceil_div(-off, stride);
  hi = n - 1 - off < 0 ? 0 : (n - 1 - off) / stride + 1;
  hi = std::min(hi, flat);
  lo = std::min(lo, hi);
}

// Where im2col puts image n's row r (channel * K + tap) of P values: at
// n * image + r * row. Per image ([n][rows][P]: row = P) for the GEMMs that
// batch over images, or wide ([rows][n][P]: row = images * P) for the weight
// gradient, whose GEMM sums over images and positions as one k dimension.
struct ColLayout {
  int64_t row = 0, image = 0;
};

// One column row: the image value under tap kk of each window, 0 in the
// padding. plane is the row's channel of the image. E is a same-size integer
// standing for the element (the gather only moves bits; 0 bits are 0.0).
template <typename E>
void im2col_row(const E* plane, E* out, const ConvGeometry& g, const Sizes& s, int64_t kk) {
  const int64_t k1 = g.kernel[1], k2 = g.kernel[2];
  const int64_t i0 = g.image[0], i1 = g.image[1], i2 = g.image[2];
  const int64_t f0 = g.flat[0], f1 = g.flat[1], f2 = g.flat[2];
  const int64_t s2 = g.stride[2];
  const int64_t kd = kk / (k1 * k2), kh = (kk / k2) % k1, kw = kk % k2;
  const int64_t off2 = kw * g.dilation[2] - g.padding[2];
  int64_t lo, hi;
  valid_range(off2, s2, i2, f2, lo, hi);
  for (int64_t od = 0; od < f0; ++od) {
    const int64_t id = od * g.stride[0] - g.padding[0] + kd * g.dilation[0];
    for (int64_t oh = 0; oh < f1; ++oh) {
      const int64_t ih = oh * g.stride[1] - g.padding[1] + kh * g.dilation[1];
      E* dst = out + (od * f1 + oh) * f2;
      if (id < 0 || id >= i0 || ih < 0 || ih >= i1) {
        std::fill(dst, dst + f2, E{});
        continue;
      }
      const E* src = plane + (id * i1 + ih) * i2 + off2;
      std::fill(dst, dst + lo, E{});
      if (s2 == 1) {
        std::memcpy(dst + lo, src + lo, (hi - lo) * sizeof(E));
      } else {
        for (int64_t ow = lo; ow < hi; ++ow) dst[ow] = src[ow * s2];
      }
      std::fill(dst + hi, dst + f2, E{});
    }
  }
}

// A plane (one channel of one image) copied into a zero border: the padded
// plane of a 1-d or 2-d convolution, whose taps then read it with no bounds
// checks. Per row of a small image the checks and the memcpy/fill calls were
// most of im2col's time (4 x 4 images: 7 ns per 4-value row).
struct PaddedPlane {
  int64_t rows = 0, cols = 0;
  static bool fits(const ConvGeometry& g) {
    return g.image[0] == 1 && g.flat[0] == 1 && g.kernel[0] == 1 && g.padding[0] == 0;
  }
  explicit PaddedPlane(const ConvGeometry& g)
      : rows(g.image[1] + 2 * g.padding[1]), cols(g.image[2] + 2 * g.padding[2]) {}
  int64_t size() const { return rows * cols; }
  // The element under tap (kh, kw) of window (oh, 0). Unchecked: the flat
  // sizes follow from the padded sizes, so no window leaves the plane.
  int64_t at(const ConvGeometry& g, int64_t oh, int64_t kh, int64_t kw) const {
    return (oh * g.stride[1] + kh * g.dilation[1]) * cols + kw * g.dilation[2];
  }
};

thread_local ScratchBuffer t_plane(size_t{1} << 20);

// dst = plane (image rows of i2 values) inside a border of `fill`.
template <typename E>
void pad_plane(const E* plane, E* dst, const ConvGeometry& g, const PaddedPlane& pp, E fill) {
  const int64_t p1 = g.padding[1], p2 = g.padding[2], i1 = g.image[1], i2 = g.image[2];
  std::fill(dst, dst + p1 * pp.cols, fill);
  for (int64_t h = 0; h < i1; ++h) {
    E* row = dst + (p1 + h) * pp.cols;
    std::fill(row, row + p2, fill);
    std::copy(plane + h * i2, plane + (h + 1) * i2, row + p2);
    std::fill(row + p2 + i2, row + pp.cols, fill);
  }
  std::fill(dst + (p1 + i1) * pp.cols, dst + pp.size(), fill);
}

// dst[0, n) = src[0, n): small images' rows as one fixed-size copy each (a
// loop of unknown length paid its set-up per 4- or 8-value row).
template <typename E>
inline void copy_short_row(const E* src, E* dst, int64_t n) {
  switch (n) {
    case 4: std::memcpy(dst, src, 4 * sizeof(E)); return;
    case 8: std::memcpy(dst, src, 8 * sizeof(E)); return;
    case 16: std::memcpy(dst, src, 16 * sizeof(E)); return;
    default: std::memcpy(dst, src, n * sizeof(E)); return;
  }
}

// The K column rows of one plane: row kk at out + kk * row_stride.
template <typename E>
void im2col_plane(const E* plane, E* out, int64_t row_stride, const ConvGeometry& g, const Sizes& s) {
  const PaddedPlane pp(g);
  E* padded = t_plane.get<E>(pp.size());
  pad_plane(plane, padded, g, pp, E{});
  const int64_t f1 = g.flat[1], f2 = g.flat[2], s2 = g.stride[2];
  for (int64_t kk = 0; kk < s.K; ++kk) {
    const int64_t kh = kk / g.kernel[2], kw = kk % g.kernel[2];
    E* dst = out + kk * row_stride;
    for (int64_t oh = 0; oh < f1; ++oh, dst += f2) {
      const E* src = padded + pp.at(g, oh, kh, kw);
      if (s2 == 1) {
        copy_short_row(src, dst, f2);
      } else {
        for (int64_t ow = 0; ow < f2; ++ow) dst[ow] = src[ow * s2];
      }
    }
  }
  t_plane.trim();
}

// im2col of `nimg` consecutive images of `channels` channels, every row of
// every image in one parallel_for (1-d and 2-d: every plane, whose rows it
// writes together).
template <typename E>
void im2col_typed(const void* img, void* col, int64_t nimg, int64_t channels, const ConvGeometry& g,
                  const Sizes& s, ColLayout to) {
  if (PaddedPlane::fits(g)) {
    runtime::parallel_for(0, nimg * channels, nn::rows_grain(s.K * s.P), [&](int64_t b, int64_t e) {
      for (int64_t q = b; q < e; ++q) {  // q = n * channels + c
        const int64_t n = q / channels, c = q % channels;
        im2col_plane(static_cast<const E*>(img) + q * s.I,
                     static_cast<E*>(col) + n * to.image + c * s.K * to.row, to.row, g, s);
      }
    });
    return;
  }
  const int64_t rows = channels * s.K;
  runtime::parallel_for(0, nimg * rows, nn::rows_grain(s.P), [&](int64_t b, int64_t e) {
    for (int64_t q = b; q < e; ++q) {
      const int64_t n = q / rows, r = q % rows;
      im2col_row(static_cast<const E*>(img) + (n * channels + r / s.K) * s.I,
                 static_cast<E*>(col) + n * to.image + r * to.row, g, s, r % s.K);
    }
  });
}

void im2col(const void* img, void* col, size_t elem, int64_t nimg, int64_t channels, const ConvGeometry& g,
            const Sizes& s, ColLayout to) {
  switch (elem) {
    case 1: return im2col_typed<uint8_t>(img, col, nimg, channels, g, s, to);   // bool (the im2col op)
    case 16: return im2col_typed<Bytes16>(img, col, nimg, channels, g, s, to);  // complex128 (the im2col op)
    case 2: return im2col_typed<uint16_t>(img, col, nimg, channels, g, s, to);
    case 4: return im2col_typed<uint32_t>(img, col, nimg, channels, g, s, to);
    case 8: return im2col_typed<uint64_t>(img, col, nimg, channels, g, s, to);
    default: throw std::invalid_argument("conv: unsupported element size");
  }
}

// col2im of 1-d and 2-d convolutions: each plane sums into a padded
// accumulator with no bounds checks (what lands in the border is dropped),
// adding the same values in the same order as the checked loop below.
template <typename C, int L>
void col2im_padded(const C* col, int64_t nimg, int64_t channels, const ConvGeometry& g, const Sizes& s,
                   const void* bias, DType t, void* image, int64_t at) {
  const PaddedPlane pp(g);
  const int64_t f1 = g.flat[1], f2 = g.flat[2], s2 = g.stride[2];
  const int64_t p1 = g.padding[1], p2 = g.padding[2], i1 = g.image[1], i2 = g.image[2];
  runtime::parallel_for(0, nimg * channels, nn::rows_grain(s.K * s.P * L), [&](int64_t b, int64_t e) {
    C* acc = t_plane.get<C>(pp.size() * L);
    for (int64_t q = b; q < e; ++q) {  // q = n * channels + c
      std::fill(acc, acc + pp.size() * L, bias ? nn::load_one<C>(bias, t, q % channels) : C(0));
      for (int64_t kk = 0; kk < s.K; ++kk) {
        const int64_t kh = kk / g.kernel[2], kw = kk % g.kernel[2];
        const C* src = col + (q * s.K + kk) * s.P * L;
        for (int64_t oh = 0; oh < f1; ++oh, src += f2 * L) {
          C* dst = acc + pp.at(g, oh, kh, kw) * L;
          for (int64_t ow = 0; ow < f2; ++ow) {
            for (int l = 0; l < L; ++l) dst[ow * s2 * L + l] += src[ow * L + l];
          }
        }
      }
      for (int64_t h = 0; h < i1; ++h) {  // the interior, packed to the front
        const C* row = acc + ((p1 + h) * pp.cols + p2) * L;
        std::copy(row, row + i2 * L, acc + h * i2 * L);
      }
      nn::store_row(acc, s.I * L, image, t, (at + q * s.I) * L);
    }
    t_plane.trim();
  });
}

// image[n, c] (dtype t, image 0 at element offset `at`) = bias[c] + the sum
// of every column value whose window tap covers the position, accumulated in
// C, for `nimg` images whose columns are consecutive ([n][channels * K][P]).
// An element is L consecutive values of C (complex: L = 2, t its part's
// dtype), each summed on its own.
template <typename C, int L = 1>
void col2im(const C* col, int64_t nimg, int64_t channels, const ConvGeometry& g, const Sizes& s,
            const void* bias, DType t, void* image, int64_t at) {
  const int64_t k1 = g.kernel[1], k2 = g.kernel[2];
  const int64_t i0 = g.image[0], i1 = g.image[1], i2 = g.image[2];
  const int64_t f0 = g.flat[0], f1 = g.flat[1], f2 = g.flat[2];
  const int64_t s2 = g.stride[2];
  if (PaddedPlane::fits(g)) return col2im_padded<C, L>(col, nimg, channels, g, s, bias, t, image, at);
  runtime::parallel_for(0, nimg * channels, nn::rows_grain(s.K * s.P * L), [&](int64_t b, int64_t e) {
    std::vector<C> acc(s.I * L);
    for (int64_t q = b; q < e; ++q) {  // q = n * channels + c
      const int64_t c = q % channels;
      std::fill(acc.begin(), acc.end(), bias ? nn::load_one<C>(bias, t, c) : C(0));
      for (int64_t kk = 0; kk < s.K; ++kk) {
        const int64_t kd = kk / (k1 * k2), kh = (kk / k2) % k1, kw = kk % k2;
        const C* rows = col + (q * s.K + kk) * s.P * L;
        const int64_t off2 = kw * g.dilation[2] - g.padding[2];
        int64_t lo, hi;
        valid_range(off2, s2, i2, f2, lo, hi);
        for (int64_t od = 0; od < f0; ++od) {
          const int64_t id = od * g.stride[0] - g.padding[0] + kd * g.dilation[0];
          if (id < 0 || id >= i0) continue;
          for (int64_t oh = 0; oh < f1; ++oh) {
            const int64_t ih = oh * g.stride[1] - g.padding[1] + kh * g.dilation[1];
            if (ih < 0 || ih >= i1) continue;
            C* dst = acc.data() + ((id * i1 + ih) * i2 + off2) * L;
            const C* src = rows + (od * f1 + oh) * f2 * L;
            for (int64_t ow = lo; ow < hi; ++ow) {
              for (int l = 0; l < L; ++l) dst[ow * s2 * L + l] += src[ow * L + l];
            }
          }
        }
      }
      nn::store_row(acc.data(), s.I * L, image, t, (at + q * s.I) * L);
    }
  });
}

// dst[0, n) = src[offset, offset + n) in C, split over the cores.
template <typename C>
void widen(const void* src, DType t, int64_t offset, int64_t n, C* dst) {
  runtime::parallel_for(0, n, 65536, [&](int64_t b, int64_t e) {
    nn::load_row(src, t, offset + b, e - b, dst + b);
  });
}

// src in the compute type C when t is C's dtype, else a widened copy in buf.
template <typename C>
const C* as_compute(const void* src, DType t, int64_t offset, int64_t n, std::vector<C>& buf) {
  if (t == compute_dtype(t)) return static_cast<const C*>(src) + offset;
  buf.resize(n);
  widen(src, t, offset, n, buf.data());
  return buf.data();
}

// Column buffers stay with the worker thread up to 8 MB: the small
// convolutions of a training step run every step.
constexpr size_t kKeepScratch = size_t{8} << 20;
thread_local ScratchBuffer t_col(kKeepScratch), t_rows(kKeepScratch);

// Images per GEMM: as many as keep `per_image` column elements per image
// within about a million (the per-image calls of small images were mostly
// fixed costs: each paid its own parallel_for start-up, packing and tails),
// at least one.
int64_t images_per_pass(int64_t per_image, int64_t batch) {
  constexpr int64_t kColElems = int64_t{1} << 20;
  return std::max<int64_t>(1, std::min(batch, kColElems / std::max<int64_t>(1, per_image)));
}

// The GEMMs of a pass of nb images: for groups == 1 one GEMM batched over
// the images with the weight (A) shared, else one per image batched over the
// groups. g.b and g.c name the pass's first image; B and C advance by
// b_image / c_image elements per image and b_group / c_group per group, A by
// a_group per group.
void gemm_over_images(GemmDesc g, int64_t groups, int64_t nb, size_t es, int64_t a_group, int64_t b_image,
                      int64_t b_group, int64_t c_image, int64_t c_group) {
  const bool by_image = groups == 1;
  g.batch = by_image ? nb : groups;
  g.a.batch_stride = by_image ? 0 : a_group;
  g.b.batch_stride = by_image ? b_image : b_group;
  g.c.batch_stride = by_image ? c_image : c_group;
  unsigned char* b0 = static_cast<unsigned char*>(g.b.data);
  unsigned char* c0 = static_cast<unsigned char*>(g.c.data);
  for (int64_t n = 0; n < (by_image ? 1 : nb); ++n) {
    g.b.data = b0 + n * b_image * es;
    g.c.data = c0 + n * c_image * es;
    gemm(g);
  }
}

// lower for a pass of nb images: flat = W @ col, col holding the images'
// columns per image.
void lower_pass(const ConvDesc& d, const Sizes& s, size_t es, const void* weight, const void* bias,
                const void* col, void* flat, int64_t nb) {
  GemmDesc g;
  g.dtype = d.dtype;
  g.m = s.cg_flat;
  g.n = s.P;
  g.k = s.cg_image * s.K;
  g.a = {const_cast<void*>(weight), s.cg_image * s.K, 1, 0};
  if (bias) {  // added in the accumulator: one rounding, as CPU
    g.s = {const_cast<void*>(bias), 1, 0, d.groups == 1 ? 0 : s.cg_flat};
    g.beta = 1;
    g.ibeta = 1;  // int64
    g.beta_zero = false;
  }
  g.b = {const_cast<void*>(col), s.P, 1, 0};
  g.c = {flat, s.P, 1, 0};
  gemm_over_images(g, d.groups, nb, es, s.cg_flat * s.cg_image * s.K, d.image_channels * s.K * s.P,
                   s.cg_image * s.K * s.P, d.flat_channels * s.P, s.cg_flat * s.P);
}

template <typename C>
void raise_typed(const ConvDesc& d, const Sizes& s, const void* flat, const void* weight,
                 const void* bias, void* image) {
  const int64_t per_image = d.image_channels * s.K * s.P;
  const int64_t pass = images_per_pass(per_image, d.batch);
  ScratchUse scratch(t_col);
  C* col = scratch.get<C>(pass * per_image);
  std::vector<C> wbuf, fbuf;
  const C* w = as_compute(weight, d.dtype, 0, d.flat_channels * s.cg_image * s.K, wbuf);
  for (int64_t n0 = 0; n0 < d.batch; n0 += pass) {
    const int64_t nb = std::min(pass, d.batch - n0);
    const C* f = as_compute(flat, d.dtype, n0 * d.flat_channels * s.P, nb * d.flat_channels * s.P, fbuf);
    // col[n, g] = W[g]^T @ flat[n, g]: W[g] is [cg_flat, cg_image * K] row major.
    GemmDesc g;
    g.dtype = compute_dtype(d.dtype);
    g.m = s.cg_image * s.K;
    g.n = s.P;
    g.k = s.cg_flat;
    g.a = {const_cast<C*>(w), 1, s.cg_image * s.K, 0};
    g.b = {const_cast<C*>(f), s.P, 1, 0};
    g.c = {col, s.P, 1, 0};
    gemm_over_images(g, d.groups, nb, sizeof(C), s.cg_flat * s.cg_image * s.K, d.flat_channels * s.P,
                     s.cg_flat * s.P, per_image, s.cg_image * s.K * s.P);
    col2im(col, nb, d.image_channels, d.geo, s, bias, d.dtype, image, n0 * d.image_channels * s.I);
  }
}

// t: the dtype of col and image, or of their parts (L = 2: complex).
template <typename C, int L = 1>
void fold_typed(const ConvDesc& d, const Sizes& s, DType t, const void* col, void* image) {
  const int64_t per_image = d.image_channels * s.K * s.P * L;
  std::vector<C> buf;
  const C* c = as_compute(col, t, 0, d.batch * per_image, buf);
  col2im<C, L>(c, d.batch, d.image_channels, d.geo, s, nullptr, t, image, 0);
}

// dW[g] = sum over images n and positions p of flat[n, g] im2col(image[n, g])^T:
// per pass, the images' columns go wide ([rows][n][P]) and flat is copied to
// [channels][n][P], so the sum over (n, p) is the k of one GEMM.
template <typename C>
void weight_grad_typed(const ConvDesc& d, const Sizes& s, const void* flat, const void* image,
                       void* grad_weight) {
  const int64_t wn = d.flat_channels * s.cg_image * s.K;
  const bool direct = d.dtype == compute_dtype(d.dtype);
  std::vector<C> accbuf(direct ? 0 : wn), ibuf;
  C* acc = direct ? static_cast<C*>(grad_weight) : accbuf.data();
  if (d.batch == 0) std::fill(acc, acc + wn, C(0));
  const int64_t rows = d.image_channels * s.K;
  const int64_t pass = images_per_pass(rows * s.P, d.batch);
  ScratchUse col_scratch(t_col), flat_scratch(t_rows);
  C* col = col_scratch.get<C>(pass * rows * s.P);
  C* fw = flat_scratch.get<C>(pass * d.flat_channels * s.P);
  for (int64_t n0 = 0; n0 < d.batch; n0 += pass) {
    const int64_t nb = std::min(pass, d.batch - n0), ld = nb * s.P;
    const C* img = as_compute(image, d.dtype, n0 * d.image_channels * s.I, nb * d.image_channels * s.I, ibuf);
    im2col(img, col, sizeof(C), nb, d.image_channels, d.geo, s, ColLayout{ld, s.P});
    runtime::parallel_for(0, d.flat_channels * nb, nn::rows_grain(s.P), [&](int64_t b, int64_t e) {
      for (int64_t q = b; q < e; ++q) {  // q = channel * nb + n
        const int64_t c = q / nb, n = q % nb;
        nn::load_row(flat, d.dtype, ((n0 + n) * d.flat_channels + c) * s.P, s.P, fw + q * s.P);
      }
    });
    GemmDesc g;
    g.dtype = compute_dtype(d.dtype);
    g.batch = d.groups;
    g.m = s.cg_flat;
    g.n = s.cg_image * s.K;
    g.k = ld;
    g.a = {fw, ld, 1, s.cg_flat * ld};
    g.b = {col, 1, ld, s.cg_image * s.K * ld};  // col^T
    g.c = {acc, s.cg_image * s.K, 1, s.cg_flat * s.cg_image * s.K};
    g.s = g.c;
    g.beta = n0 == 0 ? 0 : 1;
    g.beta_zero = n0 == 0;
    gemm(g);
  }
  if (!direct) {
    runtime::parallel_for(0, wn, 65536, [&](int64_t b, int64_t e) {
      nn::store_row(acc + b, e - b, grad_weight, d.dtype, b);
    });
  }
}

}  // namespace
}  // namespace TORCH_TPU_ISA


void TORCH_TPU_ISA_ENTRY(conv_lower)(const ConvDesc& d, const void* image, const void* weight,
                                     const void* bias, void* flat) {
  // Integers: the integer GEMM, exact modulo 2^bits (CPU's slow path wraps the same).
  if (!conv_supports(d.dtype) && !gemm_supports(d.dtype)) throw std::invalid_argument("conv: unsupported dtype");
  const Sizes s = sizes_of(d);
  const size_t es = dtype_size(d.dtype);
  if (s.identity) {  // the image is its own im2col
    lower_pass(d, s, es, weight, bias, image, flat, d.batch);
    return;
  }
  const int64_t per_image = d.image_channels * s.K * s.P;
  const int64_t pass = images_per_pass(per_image, d.batch);
  ScratchUse scratch(t_col);
  unsigned char* col = scratch.get<unsigned char>(pass * per_image * es);
  for (int64_t n0 = 0; n0 < d.batch; n0 += pass) {
    const int64_t nb = std::min(pass, d.batch - n0);
    im2col(static_cast<const unsigned char*>(image) + n0 * d.image_channels * s.I * es, col, es, nb,
           d.image_channels, d.geo, s, ColLayout{s.P, per_image});
    lower_pass(d, s, es, weight, bias, col, static_cast<unsigned char*>(flat) + n0 * d.flat_channels * s.P * es,
               nb);
  }
}

void TORCH_TPU_ISA_ENTRY(conv_raise)(const ConvDesc& d, const void* flat, const void* weight,
                                     const void* bias, void* image) {
  const Sizes s = sizes_of(d);
  if (d.dtype == DType::kInt64) return raise_typed<uint64_t>(d, s, flat, weight, bias, image);
  if (!conv_supports(d.dtype)) throw std::invalid_argument("conv: unsupported dtype");
  nn::with_compute_type(d.dtype, [&](auto c) { raise_typed<decltype(c)>(d, s, flat, weight, bias, image); });
}

void TORCH_TPU_ISA_ENTRY(conv_im2col)(const ConvDesc& d, const void* image, void* col) {
  const Sizes s = sizes_of(d);
  im2col(image, col, dtype_size(d.dtype), d.batch, d.image_channels, d.geo, s,
         ColLayout{s.P, d.image_channels * s.K * s.P});
}

void TORCH_TPU_ISA_ENTRY(conv_col2im)(const ConvDesc& d, const void* col, void* image) {
  const Sizes s = sizes_of(d);
  if (d.dtype == DType::kComplex64) return fold_typed<float, 2>(d, s, DType::kFloat32, col, image);
  if (d.dtype == DType::kComplex128) return fold_typed<double, 2>(d, s, DType::kFloat64, col, image);
  if (!conv_supports(d.dtype)) throw std::invalid_argument("conv: unsupported dtype");
  nn::with_compute_type(d.dtype, [&](auto c) { fold_typed<decltype(c)>(d, s, d.dtype, col, image); });
}

void TORCH_TPU_ISA_ENTRY(conv_weight_grad)(const ConvDesc& d, const void* flat, const void* image,
                                           void* grad_weight) {
  if (!conv_supports(d.dtype)) throw std::invalid_argument("conv: unsupported dtype");
  const Sizes s = sizes_of(d);
  nn::with_compute_type(d.dtype, [&](auto c) { weight_grad_typed<decltype(c)>(d, s, flat, image, grad_weight); });
}

void TORCH_TPU_ISA_ENTRY(conv_bias_grad)(DType t, const void* grad, int64_t batch, int64_t channels,
                                         int64_t spatial, void* grad_bias) {
  if (!conv_supports(t)) throw std::invalid_argument("conv: unsupported dtype");
  runtime::parallel_for(0, channels, 1, [&](int64_t b, int64_t e) {
    std::vector<double> row(spatial);
    for (int64_t c = b; c < e; ++c) {
      double sum = 0;
      for (int64_t n = 0; n < batch; ++n) {
        nn::load_row(grad, t, (n * channels + c) * spatial, spatial, row.data());
        for (int64_t i = 0; i < spatial; ++i) sum += row[i];
      }
      nn::store_one(sum, grad_bias, t, c);
    }
  });
}

}  // namespace torch_tpu::kernels
