// Block loaders/storers (kernels/elementwise/io.h) of complex32: for the
// ops computing in it (from and to every dtype), and for a complex32
// operand of an op computing in another dtype. A file of its own, as
// complex32 is no case of visit_dtype.
#include "kernels/common/fp_contract.h"  // first, see there

#include "kernels/elementwise/io.h"

namespace torch_tpu::kernels::ew {

bool block_io_complex32(DType compute, DType other, bool widen, BlockIo* out) {
  using C32 = Complex<Half>;
  if (compute == DType::kComplex32) {  // always in complex64 (opmath_t), whatever `widen`
    visit_dtype_or_complex32(other, [&](auto otag) {
      using O = typename decltype(otag)::type;
      out->load = &load_block<O, C32, opmath_t<C32>>;
      out->store = &store_block<opmath_t<C32>, C32, O>;
    });
    return true;
  }
  if (other != DType::kComplex32) return false;
  visit_dtype(compute, [&](auto ctag) {
    using C = typename decltype(ctag)::type;
    if (widen && is_reduced_v<C>) {
      out->load = &load_block<C32, C, buffer_t<C, true>>;
      out->store = &store_block<buffer_t<C, true>, C, C32>;
    } else {
      out->load = &load_block<C32, C, buffer_t<C, false>>;
      out->store = &store_block<buffer_t<C, false>, C, C32>;
    }
  });
  return true;
}

}  // namespace torch_tpu::kernels::ew
