// Block loaders/storers (kernels/elementwise/io.h) for bool and integer compute dtypes.
#include "kernels/common/fp_contract.h"  // first, see there

#include "kernels/elementwise/io.h"

namespace torch_tpu::kernels::ew {

bool block_io_bool_int(DType compute, DType other, bool widen, BlockIo* out) {
  return block_io_for<Bool, uint8_t, int8_t, int16_t, int32_t, int64_t, uint16_t, uint32_t, uint64_t>(
      compute, other, widen, out);
}

}  // namespace torch_tpu::kernels::ew
