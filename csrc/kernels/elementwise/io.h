// The block loaders and storers of the buffered elementwise path (see
// kernels/elementwise/types.h), instantiated per compute dtype group in
// elementwise_io_<group>.cpp so a parallel build compiles them side by side.
// Private to the kernel library.
#pragma once

#include <type_traits>

#include "kernels/elementwise/types.h"
#include "kernels/common/half.h"

namespace torch_tpu::kernels::ew {

// Src -> C (convert, as CPU's cast of the input) -> M (opmath or C).
template <typename Src, typename C, typename M>
__attribute__((noinline)) void load_block(const char* src, int64_t stride, int64_t n, void* block) {
  auto* b = static_cast<Block<M>*>(block);
  const auto put = [b](int64_t i, M v) {
    if constexpr (is_complex_v<M>) {
      b->re[i] = v.re;
      b->im[i] = v.im;
    } else {
      b->v[i] = v;
    }
  };
  if (stride == static_cast<int64_t>(sizeof(Src))) {
    const Src* s = reinterpret_cast<const Src*>(src);
    if constexpr (std::is_same_v<Src, Half> && std::is_same_v<C, Half> && std::is_same_v<M, float>) {
      half_to_float_n(b->v, s, n);  // F16C
    } else if constexpr (std::is_same_v<Src, Bool> && !std::is_same_v<C, Bool>) {
      // A select between the two results: GCC vectorizes this, not the
      // bool -> number conversion (as in kernels/copy/typed.h).
      const uint8_t* u = reinterpret_cast<const uint8_t*>(s);
      const M one = to_buffer<M>(convert<C>(Bool{1})), zero = to_buffer<M>(convert<C>(Bool{0}));
      if constexpr (is_complex_v<M>) {
        for (int64_t i = 0; i < n; ++i) {
          b->re[i] = u[i] ? one.re : zero.re;
          b->im[i] = zero.im;
        }
      } else if constexpr (is_reduced_v<M>) {
        for (int64_t i = 0; i < n; ++i) b->v[i].bits = u[i] ? one.bits : zero.bits;
      } else {
        for (int64_t i = 0; i < n; ++i) b->v[i] = u[i] ? one : zero;
      }
    } else {
      for (int64_t i = 0; i < n; ++i) put(i, to_buffer<M>(convert<C>(s[i])));
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      put(i, to_buffer<M>(convert<C>(*reinterpret_cast<const Src*>(src + i * stride))));
    }
  }
}

// M -> C (the rounding of a reduced op) -> Dst (convert, as CPU's cast of
// the result into an output of another dtype).
template <typename M, typename C, typename Dst>
__attribute__((noinline)) void store_block(const void* block, char* dst, int64_t stride, int64_t n) {
  const auto* b = static_cast<const Block<M>*>(block);
  const auto get = [b](int64_t i) -> M {
    if constexpr (is_complex_v<M>) {
      return M{b->re[i], b->im[i]};
    } else {
      return b->v[i];
    }
  };
  if (stride == static_cast<int64_t>(sizeof(Dst))) {
    Dst* d = reinterpret_cast<Dst*>(dst);
    if constexpr (std::is_same_v<Dst, Half> && std::is_same_v<C, Half> && std::is_same_v<M, float>) {
      float_to_half_n(d, b->v, n);  // F16C
    } else if constexpr (std::is_same_v<M, bool> && !std::is_same_v<Dst, Bool>) {
      const Dst one = convert<Dst>(Bool{1}), zero = convert<Dst>(Bool{0});  // select, as above
      const uint8_t* u = b->v;
      if constexpr (is_complex_v<Dst>) {
        for (int64_t i = 0; i < n; ++i) {
          d[i].re = u[i] ? one.re : zero.re;
          d[i].im = zero.im;
        }
      } else if constexpr (is_reduced_v<Dst>) {
        for (int64_t i = 0; i < n; ++i) d[i].bits = u[i] ? one.bits : zero.bits;
      } else {
        for (int64_t i = 0; i < n; ++i) d[i] = b->v[i] ? one : zero;
      }
    } else {
      for (int64_t i = 0; i < n; ++i) d[i] = convert<Dst>(from_buffer<C>(get(i)));
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      *reinterpret_cast<Dst*>(dst + i * stride) = convert<Dst>(from_buffer<C>(get(i)));
    }
  }
}

// block_io for compute dtypes whose storage type is one of Cs; returns
// false (leaving *out alone) for other compute dtypes.
template <typename... Cs>
bool block_io_for(DType compute, DType other, bool widen, BlockIo* out) {
  return visit_dtype(compute, [&](auto ctag) {
    using C = typename decltype(ctag)::type;
    if constexpr ((std::is_same_v<C, Cs> || ...)) {
      visit_dtype(other, [&](auto otag) {
        using O = typename decltype(otag)::type;
        if (widen && is_reduced_v<C>) {
          out->load = &load_block<O, C, buffer_t<C, true>>;
          out->store = &store_block<buffer_t<C, true>, C, O>;
        } else {
          out->load = &load_block<O, C, buffer_t<C, false>>;
          out->store = &store_block<buffer_t<C, false>, C, O>;
        }
      });
      return true;
    } else {
      return false;
    }
  });
}

bool block_io_bool_int(DType compute, DType other, bool widen, BlockIo* out);
bool block_io_float(DType compute, DType other, bool widen, BlockIo* out);
bool block_io_complex(DType compute, DType other, bool widen, BlockIo* out);
// compute complex32 (any other dtype), or other complex32 (any compute dtype).
bool block_io_complex32(DType compute, DType other, bool widen, BlockIo* out);

}  // namespace torch_tpu::kernels::ew
