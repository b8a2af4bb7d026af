// elementwise (elementwise.h): checks the descriptor, coalesces it into a
// Plan and hands it to the op's typed loops (kernels/elementwise/loops.h), found in
// the op table below.
#include "kernels/common/fp_contract.h"  // first, see there

#include <cstring>
#include <stdexcept>
#include <string>

#include "kernels/elementwise/elementwise.h"
#include "kernels/elementwise/io.h"
#include "kernels/elementwise/loops.h"
#include "kernels/elementwise/ops.h"
#include "kernels/common/isa.h"

namespace torch_tpu::kernels {

ElementwiseOperand ElementwiseOperand::tensor(void* data, DType dtype, Dims strides) {
  ElementwiseOperand o;
  o.data = data;
  o.dtype = dtype;
  o.strides = std::move(strides);
  return o;
}

ElementwiseOperand ElementwiseOperand::scalar(DType dtype, const void* bytes) {
  ElementwiseOperand o;
  o.dtype = dtype;
  o.by_value = true;
  std::memcpy(o.value, bytes, dtype_size(dtype));
  return o;
}

int64_t ElementwiseDesc::numel() const {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

namespace ew {

BlockIo block_io(DType compute, DType other, bool widen) {
  BlockIo io;
  // complex32 first: the others visit both dtypes with visit_dtype, which has no complex32.
  if (block_io_complex32(compute, other, widen, &io) || block_io_bool_int(compute, other, widen, &io) ||
      block_io_float(compute, other, widen, &io) || block_io_complex(compute, other, widen, &io)) {
    return io;
  }
  throw std::invalid_argument(std::string("elementwise: invalid compute dtype ") +
                              std::to_string(static_cast<int>(compute)));
}

namespace {

// In ElementwiseOp order.
// The op table, once per ISA variant, from TORCH_TPU_ELEMENTWISE_OPS: an op
// of a file compiled per ISA points at that variant's entry.
#define TORCH_TPU_EW_AVX2_BASE(name) &k##name##Entry
#define TORCH_TPU_EW_AVX2_ISA(name) &k##name##Entry_avx2
#define TORCH_TPU_EW_AVX512_BASE(name) &k##name##Entry
#define TORCH_TPU_EW_AVX512_ISA(name) &k##name##Entry_avx512
#define TORCH_TPU_EW_AVX2(name, isa) TORCH_TPU_EW_AVX2_##isa(name),
#define TORCH_TPU_EW_AVX512(name, isa) TORCH_TPU_EW_AVX512_##isa(name),
constexpr const OpEntry* kOpsAvx2[] = {TORCH_TPU_ELEMENTWISE_OPS(TORCH_TPU_EW_AVX2)};
constexpr const OpEntry* kOpsAvx512[] = {TORCH_TPU_ELEMENTWISE_OPS(TORCH_TPU_EW_AVX512)};

static_assert(sizeof(kOpsAvx2) / sizeof(kOpsAvx2[0]) == kNumElementwiseOps);
static_assert(sizeof(kOpsAvx512) / sizeof(kOpsAvx512[0]) == kNumElementwiseOps);

const OpEntry& entry(ElementwiseOp op) {
  const int i = static_cast<int>(op);
  if (i < 0 || i >= kNumElementwiseOps) {
    throw std::invalid_argument("elementwise: invalid op " + std::to_string(i));
  }
  const bool avx512 = runtime::cpu_isa() != runtime::CpuIsa::kAvx2;
  const OpEntry& e = *(avx512 ? kOpsAvx512 : kOpsAvx2)[i];
  if (e.op != op) throw std::logic_error("elementwise: op table out of enum order at " + std::to_string(i));
  return e;
}

[[noreturn]] void fail(const OpEntry& e, const std::string& what) {
  throw std::invalid_argument(std::string("elementwise ") + e.name + ": " + what);
}

void check(const OpEntry& e, const ElementwiseDesc& d) {
  if (d.noutputs != 1) fail(e, "expected 1 output, got " + std::to_string(d.noutputs));
  const size_t want = static_cast<size_t>(d.noutputs + e.inputs);
  if (d.operands.size() != want) {
    fail(e, "expected " + std::to_string(want) + " operands (outputs first), got " +
                std::to_string(d.operands.size()));
  }
  if (d.args.size() != static_cast<size_t>(e.args)) {
    fail(e, "expected " + std::to_string(e.args) + " scalar arguments, got " + std::to_string(d.args.size()));
  }
  for (int64_t s : d.shape) {
    if (s < 0) fail(e, "negative size in the shape");
  }
  (void)dtype_size(d.compute);  // throws for an invalid DType
  if (!e.supports(d.compute)) fail(e, std::string("compute dtype ") + dtype_name(d.compute) + " is not supported");
  for (size_t k = 0; k < d.operands.size(); ++k) {
    const ElementwiseOperand& o = d.operands[k];
    const std::string which = "operand " + std::to_string(k);
    (void)dtype_size(o.dtype);
    if (o.by_value) {
      if (static_cast<int>(k) < d.noutputs) fail(e, which + " is an output and cannot be by-value");
      continue;
    }
    if (o.strides.size() != d.shape.size()) {
      fail(e, which + " has " + std::to_string(o.strides.size()) + " strides for " +
                  std::to_string(d.shape.size()) + " dims");
    }
    if (o.data == nullptr && d.numel() != 0) fail(e, which + " has a null data pointer");
  }
}

// Drops size-1 dims and merges dim d into the one below it when every
// operand steps through both as through one.
Plan make_plan(const ElementwiseDesc& d) {
  Plan p;
  p.noperands = static_cast<int>(d.operands.size());
  p.compute = d.compute;
  p.numel = d.numel();
  const int no = p.noperands;
  const auto stride_of = [&](int k, size_t dim) -> int64_t {
    return d.operands[k].by_value ? 0 : d.operands[k].strides[dim];
  };

  // Coalesced strides, one row per operand (inline for up to 6 dims).
  SmallVector<int64_t, 6>& shape = p.shape;
  std::array<SmallVector<int64_t, 6>, kMaxOperands> strides;
  for (size_t dim = 0; dim < d.shape.size(); ++dim) {
    const int64_t size = d.shape[dim];
    if (size == 1) continue;
    bool merge = !shape.empty();
    for (int k = 0; merge && k < no; ++k) merge = stride_of(k, dim) == strides[k].back() * shape.back();
    if (merge) {
      shape.back() *= size;
    } else {
      shape.push_back(size);
      for (int k = 0; k < no; ++k) strides[k].push_back(stride_of(k, dim));
    }
  }
  if (shape.empty()) {  // one element
    shape.push_back(1);
    for (int k = 0; k < no; ++k) strides[k].push_back(0);
  }

  p.ndim = static_cast<int>(shape.size());
  p.strides.reserve(static_cast<size_t>(no) * p.ndim);
  for (int k = 0; k < no; ++k) {
    for (int64_t st : strides[k]) p.strides.push_back(st);
  }
  for (int k = 0; k < no; ++k) {
    const ElementwiseOperand& o = d.operands[k];
    p.data[k] = o.by_value ? const_cast<char*>(reinterpret_cast<const char*>(o.value)) : static_cast<char*>(o.data);
    p.dtype[k] = o.dtype;
    bool scalar = true;
    for (int64_t s : strides[k]) scalar = scalar && s == 0;
    p.whole_scalar[k] = scalar || p.numel == 1;
  }
  return p;
}

}  // namespace
}  // namespace ew

void elementwise(ElementwiseOp op, const ElementwiseDesc& d) {
  const ew::OpEntry& e = ew::entry(op);
  if (d.operands.size() > static_cast<size_t>(ew::kMaxOperands)) ew::fail(e, "too many operands");
  ew::check(e, d);
  if (d.numel() == 0) return;
  e.run(ew::make_plan(d), d.args);
}

bool elementwise_supports(ElementwiseOp op, DType compute) { return ew::entry(op).supports(compute); }
const char* elementwise_op_name(ElementwiseOp op) { return ew::entry(op).name; }
int elementwise_num_inputs(ElementwiseOp op) { return ew::entry(op).inputs; }
int elementwise_num_args(ElementwiseOp op) { return ew::entry(op).args; }

}  // namespace torch_tpu::kernels
