// torch._grouped_mm on tpu (kernels/linalg/grouped_gemm.h): ATen's argument
// checks and output layout (ATen/native/GroupedMMUtils.h), in every floating
// dtype, and the group extents read on the device instead of ATen's loop
// over offs.cpu() (a synchronisation per call). transformers routes a
// mixture of experts through it on device "tpu" in any dtype, as Google's
// TorchTPU lowers it; CPU and CUDA take float32, bfloat16 and float16 only.
#include <ATen/native/GroupedMMUtils.h>

#include "aten/launch.h"
#include "generated/ops/_grouped_mm.h"
#include "kernels/linalg/grouped_gemm.h"

namespace torch_tpu::aten {
namespace {

void check_inputs(const at::Tensor& a, const at::Tensor& b, const std::optional<at::Tensor>& offs,
                  const std::optional<at::Tensor>& bias) {
  TORCH_CHECK(at::isFloatingType(a.scalar_type()), "Expected mat_a to be a floating point matrix, got ",
              a.scalar_type());
  TORCH_CHECK(b.scalar_type() == a.scalar_type(), "Expected mat_b to have mat_a's dtype ", a.scalar_type(),
              ", got ", b.scalar_type());
  TORCH_CHECK(a.dim() == 2 || a.dim() == 3, "mat_a has to be 2 or 3d");
  TORCH_CHECK(b.dim() == 2 || b.dim() == 3, "mat_b has to be 2 or 3d");
  const bool a_2d = a.dim() == 2, b_2d = b.dim() == 2;
  if (!a_2d || !b_2d) {
    TORCH_CHECK(a.size(-1) == b.size(-2), "contraction dimension of mat_a and mat_b must match");
  } else {
    TORCH_CHECK(a.size(1) == b.size(0), "contraction dimension of mat_a and mat_b must match");
  }
  TORCH_CHECK(offs.has_value() == (a_2d || b_2d),
              "Have to provide offsets if there is a 2d matrix, or no offset if both matrices are 3d");
  if (offs.has_value()) {
    TORCH_CHECK(offs->dim() == 1, "offs has to be 1D");
    TORCH_CHECK(offs->dtype() == at::kInt, "Offsets have to be int32");
  }
  TORCH_CHECK(!bias.has_value(), "Bias not supported yet");
}

kernels::MatrixView view(const at::Tensor& t) {
  void* p = const_cast<void*>(t.const_data_ptr());
  if (t.dim() == 3) return {p, t.stride(1), t.stride(2), t.stride(0)};
  return {p, t.stride(0), t.stride(1), 0};
}

}  // namespace

at::Tensor _grouped_mm(const at::Tensor& self, const at::Tensor& mat2, const std::optional<at::Tensor>& offs,
                       const std::optional<at::Tensor>& bias, std::optional<at::ScalarType> out_dtype) {
  check_inputs(self, mat2, offs, bias);
  const auto dtype = at::native::_resolve_grouped_mm_out_dtype(self, mat2, out_dtype);
  at::Tensor out = at::native::create_grouped_gemm_output_tensor(self, mat2, offs, dtype);
  const bool a_2d = self.dim() == 2, b_2d = mat2.dim() == 2;
  if (!a_2d && !b_2d) return at::bmm_out(out, self, mat2);
  if (out.numel() == 0) return out;
  kernels::GroupedGemmDesc d;
  d.split = !b_2d ? kernels::GroupedGemmDesc::Split::kRowsOfA
                  : (!a_2d ? kernels::GroupedGemmDesc::Split::kColsOfB : kernels::GroupedGemmDesc::Split::kInner);
  kernels::GemmDesc& g = d.gemm;
  g.dtype = device_dtype(dtype, "_grouped_mm");
  g.m = self.size(-2);
  g.k = self.size(-1);
  g.n = mat2.size(-1);
  g.a = view(self);
  g.b = view(mat2);
  g.c = view(out);
  g.s = g.c;
  const at::Tensor offsets = offs->contiguous();
  d.offs = offsets.const_data_ptr<int32_t>();
  d.groups = offsets.numel();
  auto buffers = g.buffers();
  buffers.push_back(d.offs);
  launch(out.device().index(), "_grouped_mm", buffers, [d] { kernels::grouped_gemm(d); });
  return out;
}

}  // namespace torch_tpu::aten
