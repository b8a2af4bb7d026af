// The row machinery (kernels/elementwise/loops.h, run_rows) of the common
// (buffer, result, inputs) triples, instantiated once for every op file.
#include "kernels/common/fp_contract.h"  // first, see there

#include "kernels/elementwise/loops.h"

namespace torch_tpu::kernels::ew {

#define TPU_EW_INSTANTIATE_ROWS(M, R, N) \
  template void run_rows<M, R, N>(const Plan&, const RowKernel<M, R, N>&, const RowTypes<M>&);
TPU_EW_COMMON_ROWS(TPU_EW_INSTANTIATE_ROWS)

}  // namespace torch_tpu::kernels::ew
