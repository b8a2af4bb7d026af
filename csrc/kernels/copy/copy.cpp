// copy_strided and convert_element (copy.h).
//
// Plan: coalesce dims; order them so dst is written sequentially; then one of
//   - contiguous on both sides: memcpy (same dtype) or a conversion loop the
//     compiler vectorizes, split across cores;
//   - a transpose (dst unit stride on the inner dim, src unit stride on
//     another): cache-sized tiles, so both sides touch whole cache lines;
//   - anything else: rows along the innermost dim with an index counter for
//     the outer dims; the flat index range is split across cores.
// The typed loops are in kernels/copy/typed.h; the conversions between different
// dtypes are instantiated in to_*.cpp, one group of dtypes per file.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>

#include "kernels/copy/copy.h"
#include "kernels/copy/typed.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/loops.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

// ---- layouts ------------------------------------------------------------

// Orders the dims so dst strides decrease (dst is written in order), merges
// what can be merged, and detects the transpose case, moving the src
// unit-stride dim next to the innermost one.
CopyPlan make_plan(TensorDesc d, TensorDesc s) {
  coalesce_dims({&d, &s});
  const int nd = static_cast<int>(d.sizes.size());
  std::vector<int> perm(nd);
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](int a, int b) {
    if (d.strides[a] != d.strides[b]) return d.strides[a] > d.strides[b];
    return s.strides[a] > s.strides[b];
  });
  TensorDesc d2 = d, s2 = s;
  for (int i = 0; i < nd; ++i) {
    d2.sizes[i] = s2.sizes[i] = d.sizes[perm[i]];
    d2.strides[i] = d.strides[perm[i]];
    s2.strides[i] = s.strides[perm[i]];
  }
  coalesce_dims({&d2, &s2});

  CopyPlan p;
  p.layout.sizes = d2.sizes;
  p.layout.strides = {d2.strides, s2.strides};
  auto& sz = p.layout.sizes;
  auto& ds = p.layout.strides[0];
  auto& ss = p.layout.strides[1];
  const int n = static_cast<int>(sz.size());
  if (n >= 2 && ds[n - 1] == 1 && ss[n - 1] > 1 && sz[n - 1] >= 4) {
    for (int k = n - 2; k >= 0; --k) {
      if (ss[k] == 1 && sz[k] >= 4) {
        // Any dim order is valid for an elementwise copy.
        std::rotate(sz.begin() + k, sz.begin() + k + 1, sz.begin() + n - 1);
        std::rotate(ds.begin() + k, ds.begin() + k + 1, ds.begin() + n - 1);
        std::rotate(ss.begin() + k, ss.begin() + k + 1, ss.begin() + n - 1);
        p.tiled = true;
        break;
      }
    }
  }
  return p;
}

void check_desc(const TensorDesc& t, const char* what) {
  if (t.strides.size() != t.sizes.size()) {
    throw std::invalid_argument(std::string("copy_strided: ") + what + " has " +
                                std::to_string(t.sizes.size()) + " sizes but " +
                                std::to_string(t.strides.size()) + " strides");
  }
  for (size_t i = 0; i < t.sizes.size(); ++i) {
    if (t.sizes[i] < 0 || t.strides[i] < 0) {
      throw std::invalid_argument(std::string("copy_strided: ") + what +
                                  " has a negative size or stride");
    }
  }
}

}  // namespace

void copy_strided(const TensorDesc& dst, const TensorDesc& src) {
  check_desc(dst, "dst");
  check_desc(src, "src");
  if (dst.sizes != src.sizes) {
    throw std::invalid_argument("copy_strided: dst and src sizes differ");
  }
  const int64_t n = dst.numel();
  if (n == 0) return;
  if (dst.data == nullptr || src.data == nullptr) {
    throw std::invalid_argument("copy_strided: null data pointer");
  }

  if (dst.dtype == src.dtype && dst.is_contiguous() && src.is_contiguous()) {
    if (dst.data == src.data) return;  // a copy onto itself
    const int64_t bytes = n * static_cast<int64_t>(dtype_size(dst.dtype));
    char* d = static_cast<char*>(dst.data);
    const char* s = static_cast<const char*>(src.data);
    runtime::parallel_for(0, bytes, kGrainBytes, [&](int64_t begin, int64_t end) {
      // Grain-sized pieces even inside a big chunk: glibc switches to
      // non-temporal stores for very large memcpy calls, which measured
      // slower here than cache-sized pieces (13.7 vs 10.1 GB/s on 64 MiB).
      for (int64_t p = begin; p < end; p += kGrainBytes) {
        std::memcpy(d + p, s + p, static_cast<size_t>(std::min(kGrainBytes, end - p)));
      }
    });
    return;
  }

  const CopyPlan plan = make_plan(dst, src);
  if (dst.dtype == src.dtype) {
    // Only bits move: instantiate per element size, not per dtype.
    visit_element_size(dtype_size(dst.dtype), [&](auto tag) {
      using T = typename decltype(tag)::type;
      copy_typed<T, T>(plan, dst.data, src.data);
    });
    return;
  }
  using ConvertingCopy = bool (*)(DType, DType, const CopyPlan&, void*, const void*);
  // complex32 first: the groups visit both dtypes with visit_dtype, which has no complex32.
  static constexpr ConvertingCopy kByDestinationGroup[] = {
      copy_complex32, copy_to_bool, copy_to_signed_int, copy_to_unsigned_int, copy_to_float16,
      copy_to_float_or_complex};
  for (ConvertingCopy copy : kByDestinationGroup) {
    if (copy(dst.dtype, src.dtype, plan, dst.data, src.data)) return;
  }
  throw std::logic_error("copy_strided: no to_*.cpp group handles dtype " + std::string(dtype_name(dst.dtype)));
}

void convert_element(DType to, void* dst, DType from, const void* src) {
  visit_dtype_or_complex32(to, [&](auto to_tag) {
    using To = typename decltype(to_tag)::type;
    visit_dtype_or_complex32(from, [&](auto from_tag) {
      using From = typename decltype(from_tag)::type;
      From x;
      std::memcpy(&x, src, sizeof(From));  // src/dst may be unaligned
      const To y = convert<To>(x);
      std::memcpy(dst, &y, sizeof(To));
    });
  });
}

}  // namespace torch_tpu::kernels
