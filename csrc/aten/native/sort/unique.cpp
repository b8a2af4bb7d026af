// unique: _unique2, unique_consecutive, unique_dim, unique_dim_consecutive
// (direct route; kernels/sort/unique.h), CPU's Unique.cpp. The output sizes
// depend on the data: one kernel writes every output at its largest size and
// the number of unique entries, the host reads that number back (one counted
// synchronisation, as nonzero's) and narrows the outputs, as CPU resizes its
// own.
#include <ATen/WrapDimUtils.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/unique_dim_consecutive.h>

#include <algorithm>

#include "aten/device/runtime_check.h"
#include "aten/device/telemetry.h"
#include "aten/device/tpu_stream.h"
#include "aten/launch.h"
#include "generated/ops/_unique.h"
#include "generated/ops/_unique2.h"
#include "generated/ops/unique_consecutive.h"
#include "generated/ops/unique_dim.h"
#include "generated/ops/unique_dim_consecutive.h"
#include "kernels/sort/unique.h"

namespace torch_tpu::aten {
namespace {

using UniqueResult = std::tuple<at::Tensor, at::Tensor, at::Tensor>;

kernels::DType unique_dtype(const at::Tensor& self, const char* cpu_name) {
  const kernels::DType t = device_dtype(self.scalar_type(), cpu_name);
  TORCH_CHECK_NOT_IMPLEMENTED(kernels::unique_supports(t), "\"", cpu_name, "\" not implemented for '",
                              toString(self.scalar_type()), "'");
  return t;
}

// The count the kernel left at `count` (a synchronisation).
int64_t unique_read_count(const at::Tensor& count, const char* name) {
  const c10::DeviceIndex dev = count.device().index();
  int64_t host = 0;
  telemetry::count_sync(name);
  TPU_CHECK(runtime::memcpy_and_sync(&host, count.const_data_ptr<int64_t>(), sizeof(int64_t),
                                     runtime::MemcpyKind::kDeviceToHost, native_stream(current_stream(dev))));
  return host;
}

// Flat unique, sorted (CPU always sorts) or of runs of equal neighbours.
UniqueResult unique_flat(const at::Tensor& self, bool consecutive, bool return_inverse, bool return_counts) {
  const char* name = consecutive ? "unique_consecutive" : "_unique2";
  const kernels::DType t = unique_dtype(self, "unique");
  const int64_t n = self.numel();
  const auto long_options = self.options().dtype(at::kLong);
  at::Tensor inverse = at::empty({0}, long_options);
  at::Tensor counts = at::empty({0}, long_options);
  if (n == 0) {
    if (return_inverse) inverse.resize_(self.sizes());
    return {at::empty({0}, self.options()), inverse, counts};
  }
  at::Tensor output = at::empty({n}, self.options());
  if (return_inverse) inverse = at::empty(self.sizes(), long_options);
  if (return_counts) counts = at::empty({n}, long_options);
  at::Tensor count = at::empty({}, long_options);
  int64_t* ip = return_inverse ? inverse.data_ptr<int64_t>() : nullptr;
  int64_t* cp = return_counts ? counts.data_ptr<int64_t>() : nullptr;
  int64_t* np = count.data_ptr<int64_t>();
  void* op = output.data_ptr();
  if (consecutive) {
    const at::Tensor src = self.contiguous();
    const void* sp = src.const_data_ptr();
    launch(self.device().index(), name, {sp, op, ip, cp, np},
           [=] { kernels::unique_consecutive(t, sp, n, op, ip, cp, np); });
  } else {
    output.view(self.sizes()).copy_(self);  // sorted in place by the kernel
    at::Tensor perm = at::empty({n}, long_options);
    int64_t* pp = perm.data_ptr<int64_t>();
    launch(self.device().index(), name, {op, pp, ip, cp, np},
           [=] { kernels::unique_sorted(t, op, pp, n, ip, cp, np); });
  }
  const int64_t unique = unique_read_count(count, name);
  output.resize_({unique});
  if (return_counts) counts.resize_({unique});
  return {output, inverse, counts};
}

// Unique.cpp's _unique_dim_cpu_template: slices along `dim` as rows.
UniqueResult unique_along(const at::Tensor& self, int64_t dim, bool consecutive) {
  const char* name = consecutive ? "unique_dim_consecutive" : "unique_dim";
  const kernels::DType t = unique_dtype(self, "unique_dim");
  const auto long_options = self.options().dtype(at::kLong);
  auto sizes = self.sizes().vec();
  const auto num_zero_dims = std::count(sizes.begin(), sizes.end(), 0);
  if (self.size(dim) == 0) {
    TORCH_CHECK(num_zero_dims == 1,
                "Number of zero sized dimensions is more than one, so unique cannot be applied ");
    return {at::empty(sizes, self.options()), at::empty({0}, long_options), at::empty({0}, long_options)};
  }
  TORCH_CHECK(num_zero_dims == 0,
              "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
  dim = at::maybe_wrap_dim(dim, self.dim());
  const at::Tensor moved = self.moveaxis(dim, 0);
  std::vector<int64_t> new_sizes = moved.sizes().vec();
  const at::Tensor rows = moved.contiguous().view({moved.size(0), -1});
  const int64_t S = rows.size(0), L = rows.size(1);
  at::Tensor out = at::empty({S, L}, self.options());
  at::Tensor inverse = at::empty({S}, long_options);
  at::Tensor counts = at::empty({S}, long_options);
  at::Tensor count = at::empty({}, long_options);
  const void* rp = rows.const_data_ptr();
  void* op = out.data_ptr();
  int64_t* ip = inverse.data_ptr<int64_t>();
  int64_t* cp = counts.data_ptr<int64_t>();
  int64_t* np = count.data_ptr<int64_t>();
  launch(self.device().index(), name, {rp, op, ip, cp, np},
         [=] { kernels::unique_rows(t, rp, S, L, consecutive, op, ip, cp, np); });
  const int64_t unique = unique_read_count(count, name);
  new_sizes[0] = -1;
  at::Tensor output = out.narrow(0, 0, unique).view(new_sizes).moveaxis(0, dim);
  return {output, inverse, counts.narrow(0, 0, unique)};
}

}  // namespace

UniqueResult _unique2(const at::Tensor& self, bool sorted, bool return_inverse, bool return_counts) {
  (void)sorted;  // CPU sorts either way
  return unique_flat(self, /*consecutive=*/false, return_inverse, return_counts);
}

std::tuple<at::Tensor, at::Tensor> _unique(const at::Tensor& self, bool sorted, bool return_inverse) {
  auto [output, inverse, counts] = torch_tpu::aten::_unique2(self, sorted, return_inverse, /*return_counts=*/false);
  return {output, inverse};
}

UniqueResult unique_consecutive(const at::Tensor& self, bool return_inverse, bool return_counts,
                                ::std::optional<int64_t> dim) {
  if (!dim.has_value() || (dim.value() == 0 && self.dim() == 1)) {
    return unique_flat(self, /*consecutive=*/true, return_inverse, return_counts);
  }
  return at::unique_dim_consecutive(self, dim.value(), return_inverse, return_counts);  // as CPU, through the op
}

UniqueResult unique_dim(const at::Tensor& self, int64_t dim, bool sorted, bool return_inverse, bool return_counts) {
  (void)sorted, (void)return_inverse, (void)return_counts;  // CPU returns all three, sorted
  return unique_along(self, dim, /*consecutive=*/false);
}

UniqueResult unique_dim_consecutive(const at::Tensor& self, int64_t dim, bool return_inverse, bool return_counts) {
  (void)return_inverse, (void)return_counts;
  return unique_along(self, dim, /*consecutive=*/true);
}

}  // namespace torch_tpu::aten
