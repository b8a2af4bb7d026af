// Grouped matrix products (torch._grouped_mm, the experts of a mixture of
// experts): one GEMM per group, the groups' extents read on the device from
// an int32 offsets vector (cumulative ends), so the host never waits for
// them. Runtime headers only.
#pragma once

#include <cstdint>

#include "kernels/linalg/gemm.h"

namespace torch_tpu::kernels {

struct GroupedGemmDesc {
  enum class Split {
    kRowsOfA,  // A (M, K) split by rows, B (G, K, N), C (M, N)
    kColsOfB,  // A (G, M, K), B (K, N) split by columns, C (M, N)
    kInner,    // A (M, K) by columns and B (K, N) by rows, C (G, M, N)
  };
  Split split = Split::kRowsOfA;
  // The whole operands: m, n, k are the full extents (the split one is the
  // total over groups); batch_stride steps over the grouped operand's groups.
  GemmDesc gemm;
  const int32_t* offs = nullptr;
  int64_t groups = 0;
};

// Runs on the calling device worker. As ATen's loop over groups: group g
// spans [offs[g-1], offs[g]) (offs[-1] = 0), clamped to the split extent;
// an empty group is skipped, except kInner, where its C[g] is zero. Rows or
// columns of C that no group covers are zero (ATen leaves them unwritten).
void grouped_gemm(const GroupedGemmDesc& d);

}  // namespace torch_tpu::kernels
