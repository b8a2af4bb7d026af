// Reduction kernels over a TensorIterator-shaped loop: one input and one or
// two outputs that share an iteration shape; an output's byte stride is 0
// along every reduced dimension (that is what makes a dimension "reduced").
// Runs inside a launched body on a stream worker and splits the work over
// the device's cores with runtime::parallel_for. Runtime headers only.
//
// Semantics follow PyTorch CPU eager:
//   - the input is read in its own dtype and accumulated in the op's
//     accumulation type: float for float16/bfloat16/float32, double for
//     float64, int64 for integers and bool (ATen has already cast integer
//     sums to int64 when that is the output dtype);
//   - float sums (sum, mean, the p-norms) accumulate pairwise, so the error
//     grows with log(n) as CPU's cascade sum;
//   - max/min/amax/amin and the inf-norms propagate NaN; argmax/argmin (and
//     max/min with indices) return the first index of the extreme value, a
//     NaN counting as the extreme;
//   - var/std use Welford's algorithm in double combined pairwise (Chan);
//   - the result is rounded to the output dtype once.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

// The reductions, declared once: enumerator, name, the input dtypes it
// accepts (those PyTorch CPU's kernel supports), and the family that runs it
// (reduce/sum.cpp, minmax.cpp, norm_var.cpp). The enum, names, dtype checks
// and dispatch of reduce.cpp follow from this list.
//   Max/Min: NaN propagates; with two outputs also the index. ArgMax/ArgMin:
//   the index of the first extremum (int64 output). All/Any: nonzero (NaN is
//   nonzero). XorSum: hash_tensor's xor of each element's 64 bits (uint64
//   output). Norm: vector p-norm, p = ReduceDesc::p (inf, -inf, 0, 1, 2,
//   any). Var: variance with `correction`, sqrt if `take_sqrt`; a second
//   output receives the mean (var_mean/std_mean).
#define TORCH_TPU_REDUCE_OPS(_)                  \
  _(Sum, sum, any_or_complex32, sum_family)      \
  _(Prod, prod, any_or_complex32, sum_family)    \
  _(Mean, mean, float_or_complex, sum_family)    \
  _(Max, max, real, minmax_family)               \
  _(Min, min, real, minmax_family)               \
  _(ArgMax, argmax, real, minmax_family)         \
  _(ArgMin, argmin, real, minmax_family)         \
  _(All, all, any, logical_family)               \
  _(Any, any, any, logical_family)               \
  _(XorSum, xor_sum, real, logical_family)       \
  _(Norm, norm, float_or_complex, norm_family)   \
  _(Var, var, floating, var_family)

enum class ReduceOp : int8_t {
#define TORCH_TPU_REDUCE_ENUM(E, name, dtypes, family) k##E,
  TORCH_TPU_REDUCE_OPS(TORCH_TPU_REDUCE_ENUM)
#undef TORCH_TPU_REDUCE_ENUM
};

struct ReduceOperand {
  void* data = nullptr;            // device memory of element (0, ..., 0)
  DType dtype = DType::kFloat32;
  std::vector<int64_t> strides;    // bytes per shape dim
};

struct ReduceDesc {
  // Iteration shape, fastest dimension FIRST (TensorIterator's order).
  std::vector<int64_t> shape;
  // One output, or two: (values, int64 indices) for kMax/kMin, (var, mean)
  // for kVar. Byte stride 0 along the reduced dims. Outputs do not overlap
  // the input.
  std::vector<ReduceOperand> outputs;
  ReduceOperand input;
  ReduceOp op = ReduceOp::kSum;
  double p = 2;            // kNorm
  double correction = 1;   // kVar
  bool take_sqrt = false;  // kVar: std instead of var
};

// Runs the reduction. An empty reduction (some reduced size 0) writes the
// identity (sum 0, prod 1, all true, any false, max -inf...) except where
// PyTorch raises, which the glue checks first. Throws std::invalid_argument
// for a malformed descriptor or an unsupported dtype.
void reduce(const ReduceDesc& d);

// Whether `op` accepts input dtype `in` (and output dtype `out`): the dtypes
// PyTorch CPU's kernel for the op supports.
bool reduce_supports(ReduceOp op, DType in, DType out);

const char* reduce_op_name(ReduceOp op);

// ---- scans -----------------------------------------------------------------
enum class ScanOp : int8_t { kCumSum, kCumProd };

// Inclusive scan along `dim` of `in` into `out` (same sizes, any strides;
// the same dtype: ATen casts the input first). Accumulates like CPU: double
// for float32/float64, float for float16/bfloat16, int64 for integers.
void scan(ScanOp op, const TensorDesc& out, const TensorDesc& in, int64_t dim);
bool scan_supports(ScanOp op, DType t);

}  // namespace torch_tpu::kernels
