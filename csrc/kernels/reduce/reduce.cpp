// reduce(), reduce_supports() and the op names (reduce.h).
#include "kernels/reduce/reduce.h"

#include <stdexcept>
#include <string>

#include "kernels/reduce/ops.h"

namespace torch_tpu::kernels {

namespace {

bool is_complex(DType t) { return t == DType::kComplex64 || t == DType::kComplex128; }
bool is_floating(DType t) {
  return t == DType::kFloat16 || t == DType::kBFloat16 || t == DType::kFloat32 || t == DType::kFloat64;
}

// The input dtype classes of TORCH_TPU_REDUCE_OPS. complex32 only where
// CUDA reduces it (sum, prod: accumulated in complex64).
bool accepts_any(DType t) { return t != DType::kComplex32; }
bool accepts_any_or_complex32(DType) { return true; }
bool accepts_real(DType t) { return !is_complex(t) && t != DType::kComplex32; }
bool accepts_floating(DType t) { return is_floating(t); }
bool accepts_float_or_complex(DType t) { return is_floating(t) || is_complex(t); }

}  // namespace

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
#define TORCH_TPU_REDUCE_NAME(E, name, dtypes, family) \
  case ReduceOp::k##E:                                 \
    return "reduce_" #name;
    TORCH_TPU_REDUCE_OPS(TORCH_TPU_REDUCE_NAME)
#undef TORCH_TPU_REDUCE_NAME
  }
  return "reduce_?";
}

bool reduce_supports(ReduceOp op, DType in, DType /*out*/) {
  switch (op) {
#define TORCH_TPU_REDUCE_SUPPORTS(E, name, dtypes, family) \
  case ReduceOp::k##E:                                     \
    return accepts_##dtypes(in);
    TORCH_TPU_REDUCE_OPS(TORCH_TPU_REDUCE_SUPPORTS)
#undef TORCH_TPU_REDUCE_SUPPORTS
  }
  return false;
}

void reduce(const ReduceDesc& d) {
  const red::Layout L = red::plan_layout(d);
  if (!reduce_supports(d.op, d.input.dtype, d.outputs[0].dtype)) {
    throw std::invalid_argument(std::string("torch_tpu kernels: ") + reduce_op_name(d.op) + " does not support " +
                                dtype_name(d.input.dtype));
  }
  const bool indexed = d.op == ReduceOp::kArgMax || d.op == ReduceOp::kArgMin ||
                       ((d.op == ReduceOp::kMax || d.op == ReduceOp::kMin) && d.outputs.size() == 2);
  if (indexed && L.rsize.size() != 1) {
    throw std::invalid_argument("torch_tpu kernels: an indexed reduction needs one reduced dim");
  }
  switch (d.op) {
#define TORCH_TPU_REDUCE_RUN(E, name, dtypes, family) \
  case ReduceOp::k##E:                                \
    return red::reduce_##family(d, L);
    TORCH_TPU_REDUCE_OPS(TORCH_TPU_REDUCE_RUN)
#undef TORCH_TPU_REDUCE_RUN
  }
}

}  // namespace torch_tpu::kernels
