// Block loaders/storers (kernels/elementwise/io.h) for floating compute dtypes.
#include "kernels/common/fp_contract.h"  // first, see there

#include "kernels/elementwise/io.h"

namespace torch_tpu::kernels::ew {

bool block_io_float(DType compute, DType other, bool widen, BlockIo* out) {
  return block_io_for<Half, BFloat16, float, double>(compute, other, widen, out);
}

}  // namespace torch_tpu::kernels::ew
