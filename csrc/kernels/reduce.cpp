// reduce(), reduce_supports() and the op names (reduce.h).
#include "reduce.h"

#include <stdexcept>
#include <string>

#include "reduce_ops.h"

namespace torch_tpu::kernels {

namespace {

bool is_complex(DType t) { return t == DType::kComplex64 || t == DType::kComplex128; }
bool is_floating(DType t) {
  return t == DType::kFloat16 || t == DType::kBFloat16 || t == DType::kFloat32 || t == DType::kFloat64;
}

}  // namespace

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return "reduce_sum";
    case ReduceOp::kProd: return "reduce_prod";
    case ReduceOp::kMean: return "reduce_mean";
    case ReduceOp::kMax: return "reduce_max";
    case ReduceOp::kMin: return "reduce_min";
    case ReduceOp::kArgMax: return "reduce_argmax";
    case ReduceOp::kArgMin: return "reduce_argmin";
    case ReduceOp::kAll: return "reduce_all";
    case ReduceOp::kAny: return "reduce_any";
    case ReduceOp::kNorm: return "reduce_norm";
    case ReduceOp::kVar: return "reduce_var";
  }
  return "reduce_?";
}

bool reduce_supports(ReduceOp op, DType in, DType out) {
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kProd:
      return true;
    case ReduceOp::kMean:
      return is_floating(in) || is_complex(in);
    case ReduceOp::kMax:
    case ReduceOp::kMin:
    case ReduceOp::kArgMax:
    case ReduceOp::kArgMin:
      return !is_complex(in);
    case ReduceOp::kAll:
    case ReduceOp::kAny:
      return true;
    case ReduceOp::kNorm:
      return is_floating(in) || is_complex(in);
    case ReduceOp::kVar:
      return is_floating(in);
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
    case ReduceOp::kSum:
    case ReduceOp::kProd:
    case ReduceOp::kMean:
      return red::reduce_sum_family(d, L);
    case ReduceOp::kMax:
    case ReduceOp::kMin:
    case ReduceOp::kArgMax:
    case ReduceOp::kArgMin:
      return red::reduce_minmax_family(d, L);
    case ReduceOp::kAll:
    case ReduceOp::kAny:
      return red::reduce_logical_family(d, L);
    case ReduceOp::kNorm:
      return red::reduce_norm_family(d, L);
    case ReduceOp::kVar:
      return red::reduce_var_family(d, L);
  }
}

}  // namespace torch_tpu::kernels
