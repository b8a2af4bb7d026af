// histc, bincount (direct route) and the histogram/histogramdd stubs
// (kernels/reduce/histogram.h). CPU's
// Histogram.cpp is shared with MPS only: histc repeats histogram_histc_out
// (its checks, the range from aminmax with one synchronisation when min ==
// max, linspace edges) and counts like histogramdd_out_cpu_template on
// contiguous [M, D] rows (histogram_run also applies `density`, for
// torch.histogram and histogramdd).
// Integer histc is CUDA's (SummaryOps.cu), which CPU does not have.
// bincount (SummaryOps.cpp, CPU-only) reads the input's range with one
// counted synchronisation: the output size depends on the maximum.
#include <ATen/native/Resize.h>
#include <ATen/ops/linspace.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/aminmax.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <ATen/Dispatch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <tuple>
#include <vector>

#include "aten/device/runtime_check.h"
#include "aten/device/telemetry.h"
#include "aten/device/tpu_stream.h"
#include "aten/launch.h"
#include "generated/ops/bincount.h"
#include "generated/ops/histc.h"
#include "generated/ops/histc_out.h"
#include "generated/stub_kernels.h"
#include "kernels/reduce/histogram.h"

namespace torch_tpu::aten {
namespace {

void histogram_run(const at::Tensor& self, const std::optional<at::Tensor>& weight, bool density, at::Tensor& hist,
                   const at::TensorList& bin_edges, kernels::BinSelect select) {
  const kernels::DType t = device_dtype(self.scalar_type(), "histogram");
  TORCH_CHECK_NOT_IMPLEMENTED(kernels::histogram_supports(t), "\"histogram_cpu\" not implemented for '",
                              toString(self.scalar_type()), "'");
  const int64_t D = self.size(-1);
  const int64_t M = std::accumulate(self.sizes().begin(), self.sizes().end() - 1, int64_t{1},
                                    std::multiplies<int64_t>());
  if (D == 0 || hist.numel() == 0) {
    hist.zero_();
  } else {
    const at::Tensor input = self.reshape({M, D}).contiguous();
    at::Tensor w;
    if (weight.has_value()) w = weight->reshape({M}).contiguous();
    std::vector<at::Tensor> edges(bin_edges.size());
    kernels::HistogramDesc d;
    d.dtype = t;
    d.input = input.const_data_ptr();
    d.weight = w.defined() ? w.const_data_ptr() : nullptr;
    d.M = M;
    d.D = D;
    std::vector<const void*> buffers{d.input, d.weight};
    for (size_t k = 0; k < edges.size(); ++k) {
      edges[k] = bin_edges[k].contiguous();
      d.edges.push_back(edges[k].const_data_ptr());
      d.num_edges.push_back(edges[k].numel());
      buffers.push_back(d.edges.back());
    }
    at::Tensor out = hist.is_contiguous() ? hist : at::empty(hist.sizes(), hist.options());
    d.hist = out.data_ptr();
    d.select = select;
    buffers.push_back(d.hist);
    launch(self.device().index(), "histogramdd", std::move(buffers), [d = std::move(d)] { kernels::histogramdd(d); });
    if (!out.is_same(hist)) hist.copy_(out);
  }
  if (density) {  // CPU's normalisation, in its order
    const auto hist_sum = hist.sum().item();
    hist.div_(hist_sum);
    for (int64_t dim = 0; dim < D; ++dim) {
      const auto bin_lengths = bin_edges[dim].diff();
      std::vector<int64_t> shape(D, 1);
      shape[dim] = bin_lengths.numel();
      hist.div_(bin_lengths.reshape(shape));
    }
  }
}

// The data's minima and maxima over dim 0 of [M, D] rows (of everything
// when rows is the flat input: dim < 0), as doubles on the host: one
// synchronisation.
std::vector<double> read_data_range(const at::Tensor& input, int64_t dim) {
  auto [mn, mx] = dim < 0 ? at::aminmax(input) : at::aminmax(input, dim);
  const at::Tensor ends = at::stack({mn, mx}).to(at::kDouble).cpu();
  const double* e = ends.const_data_ptr<double>();
  return std::vector<double>(e, e + ends.numel());  // minima, then maxima
}

// Histogram.cpp's histc_select_outer_bin_edges (with bins_edges_correction).
std::pair<double, double> histc_outer_edges(const at::Tensor& input, const at::Scalar& min, const at::Scalar& max) {
  double left = min.to<double>(), right = max.to<double>();
  if (left == right && input.numel() > 0) {
    const std::vector<double> ends = read_data_range(input, -1);
    left = ends[0];
    right = ends[1];
  }
  if (left == right) {
    if (input.scalar_type() == at::kDouble) {
      left = std::min(std::nextafter(left, std::numeric_limits<double>::lowest()), left - 1.);
      right = std::max(std::nextafter(right, std::numeric_limits<double>::max()), right + 1.);
    } else if (input.scalar_type() == at::kFloat) {
      const float l = static_cast<float>(left), r = static_cast<float>(right);
      left = std::min(static_cast<double>(std::nextafter(l, std::numeric_limits<float>::lowest())), left - 1.);
      right = std::max(static_cast<double>(std::nextafter(r, std::numeric_limits<float>::max())), right + 1.);
    } else {
      left -= 1;
      right += 1;
    }
  }
  TORCH_CHECK(!(std::isinf(left) || std::isinf(right) || std::isnan(left) || std::isnan(right)),
              "torch.histc: range of [", left, ", ", right, "] is not finite");
  TORCH_CHECK(left < right, "torch.histc: max must be larger than min");
  return {left, right};
}

// The integer input's minimum and maximum, exactly (one synchronisation).
std::pair<int64_t, int64_t> read_integer_range(const at::Tensor& input) {
  auto [mn, mx] = at::aminmax(input);
  const at::Tensor ends = at::stack({mn, mx}).to(at::kLong).cpu();
  return {ends.const_data_ptr<int64_t>()[0], ends.const_data_ptr<int64_t>()[1]};
}

// CUDA's histc of integers (ATen's cuda/SummaryOps.cu: CPU's histc takes
// floating dtypes only, and transformers' MoE routing calls it on int32
// expert ids): CUDA's checks and messages, the bounds truncated to int64 and
// narrowed to the element type, the data's range when min == max, an empty
// range widened by one each side in the element type; counts in the
// element type.
at::Tensor histc_integer(const at::Tensor& self, int64_t bins, const at::Scalar& min, const at::Scalar& max) {
  TORCH_CHECK(bins > 0, "bins must be > 0");
  const int64_t min_s = min.to<int64_t>(), max_s = max.to<int64_t>();
  int64_t lo = 0, hi = 0;
  AT_DISPATCH_INTEGRAL_TYPES(self.scalar_type(), "histc", [&] {
    // v as the element type (modular, as C++'s conversion), back in int64
    auto narrow = [](int64_t v) { return static_cast<int64_t>(static_cast<scalar_t>(v)); };
    lo = narrow(min_s);
    hi = narrow(max_s);
    if (min_s == max_s && self.numel() > 0) std::tie(lo, hi) = read_integer_range(self);
    if (lo == hi) {
      lo = narrow(static_cast<int64_t>(static_cast<uint64_t>(lo) - 1));
      hi = narrow(static_cast<int64_t>(static_cast<uint64_t>(hi) + 1));
    }
  });
  TORCH_CHECK(lo < hi, "max must be larger than min");
  at::Tensor hist = at::empty({bins}, self.options());
  const at::Tensor src = self.contiguous();
  const kernels::DType t = device_dtype(self.scalar_type(), "histc");
  const void* sp = src.const_data_ptr();
  void* hp = hist.data_ptr();
  const int64_t n = src.numel();
  launch(self.device().index(), "histc", {sp, hp}, [=] { kernels::histc_integer(t, sp, n, lo, hi, bins, hp); });
  return hist;
}

}  // namespace

// The stubs ATen's device-generic Histogram.cpp calls for torch.histogram and
// torch.histogramdd (input already [M, D], hist and edges sized and checked).
void histogramdd_kernel(const at::Tensor& self, const std::optional<at::Tensor>& weight, bool density,
                        at::Tensor& hist, const at::TensorList& bin_edges) {
  histogram_run(self, weight, density, hist, bin_edges, kernels::BinSelect::kBinarySearch);
}

void histogramdd_linear_kernel(const at::Tensor& self, const std::optional<at::Tensor>& weight, bool density,
                               at::Tensor& hist, const at::TensorList& bin_edges, bool local_search) {
  // local_search: histogramdd, whose edges are returned, so the bins must
  // agree with them; histc's edges are not returned.
  histogram_run(self, weight, density, hist, bin_edges,
                local_search ? kernels::BinSelect::kLinearLocalSearch : kernels::BinSelect::kLinear);
}

// The data's range per dimension when no range is given (ATen calls this only
// for a non-empty input): aminmax over the rows, one synchronisation.
void histogram_select_outer_bin_edges_kernel(const at::Tensor& input, const int64_t N,
                                             std::vector<double>& leftmost_edges,
                                             std::vector<double>& rightmost_edges) {
  const std::vector<double> ends = read_data_range(input, 0);
  std::copy(ends.begin(), ends.begin() + N, leftmost_edges.begin());
  std::copy(ends.begin() + N, ends.end(), rightmost_edges.begin());
}

// Histogram.cpp's histogram_histc_out: linspace edges, then the linear bin
// selection (no local search), as CPU.
at::Tensor& histc_out(const at::Tensor& self, int64_t bins, const at::Scalar& min, const at::Scalar& max,
                      at::Tensor& out) {
  if (c10::isIntegralType(self.scalar_type(), /*includeBool=*/false)) {  // CUDA's _histc_out_cuda
    const at::Tensor hist = histc_integer(self, bins, min, max);
    at::native::resize_output(out, hist.sizes());
    out.copy_(hist);
    return out;
  }
  at::Tensor bin_edges = at::empty({0}, self.options());
  const at::Tensor reshaped = self.reshape({self.numel(), 1});
  TORCH_CHECK(self.dtype() == out.dtype(), "torch.histogram: input tensor and hist tensor should",
              " have the same dtype, but got input ", self.dtype(), " and hist ", out.dtype());
  TORCH_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension ", 0);
  at::native::resize_output(bin_edges, {bins + 1});
  at::native::resize_output(out, {bins});
  const auto [left, right] = histc_outer_edges(self, min, max);
  at::linspace_out(bin_edges, left, right, bins + 1);
  histogram_run(reshaped, std::nullopt, /*density=*/false, out, {bin_edges}, kernels::BinSelect::kLinear);
  return out;
}

at::Tensor histc(const at::Tensor& self, int64_t bins, const at::Scalar& min, const at::Scalar& max) {
  if (c10::isIntegralType(self.scalar_type(), /*includeBool=*/false)) return histc_integer(self, bins, min, max);
  at::Tensor hist = at::empty({0}, self.options(), at::MemoryFormat::Contiguous);
  return histc_out(self, bins, min, max, hist);
}

// SummaryOps.cpp's _bincount_cpu: float32 weights count in float32, others
// in float64, none in int64.
at::Tensor bincount(const at::Tensor& self, const ::std::optional<at::Tensor>& weights_opt, int64_t minlength) {
  const kernels::DType t = device_dtype(self.scalar_type(), "bincount");
  TORCH_CHECK_NOT_IMPLEMENTED(c10::isIntegralType(self.scalar_type(), /*includeBool=*/false),
                              "\"bincount_cpu\" not implemented for '", toString(self.scalar_type()), "'");
  const at::Tensor weights_given = weights_opt.has_value() ? *weights_opt : at::Tensor();
  const bool has_weights = weights_given.defined();
  const bool float_weights = !has_weights || weights_given.scalar_type() == at::kFloat;
  const at::Tensor src = self.contiguous();
  const at::Tensor weights =
      !has_weights ? at::Tensor() : float_weights ? weights_given.contiguous() : weights_given.contiguous().to(at::kDouble);
  TORCH_CHECK(minlength >= 0, "minlength should be >= 0");
  const auto counts_options = !has_weights ? self.options().dtype(at::kLong) : weights.options();
  if (self.dim() == 1 && self.numel() == 0) return at::zeros({minlength}, self.options().dtype(at::kLong));
  int64_t range[2] = {0, -1};
  if (self.dim() == 1) {
    at::Tensor range_dev = at::empty({2}, self.options().dtype(at::kLong));
    const void* sp = src.const_data_ptr();
    int64_t* rp = range_dev.data_ptr<int64_t>();
    const int64_t n = src.numel();
    launch(self.device().index(), "bincount_range", {sp, rp}, [=] { kernels::integer_range(t, sp, n, rp); });
    telemetry::count_sync("bincount");
    TPU_CHECK(runtime::memcpy_and_sync(range, rp, sizeof(range), runtime::MemcpyKind::kDeviceToHost,
                                       native_stream(current_stream(self.device().index()))));
  }
  TORCH_CHECK(self.dim() == 1 && range[0] >= 0, "bincount only supports 1-d non-negative integral inputs.");
  TORCH_CHECK(!(has_weights && (weights.dim() != 1 || weights.size(0) != self.size(0))),
              "weights should be 1-d and have the same length as input");
  const int64_t bins = std::max(range[1] + 1, minlength);
  at::Tensor counts = at::empty({bins}, counts_options);
  const void* sp = src.const_data_ptr();
  const void* wp = has_weights ? weights.const_data_ptr() : nullptr;
  const kernels::DType wt = has_weights ? device_dtype(weights.scalar_type(), "bincount") : kernels::DType::kInt64;
  void* cp = counts.data_ptr();
  const int64_t n = src.numel();
  launch(self.device().index(), "bincount", {sp, wp, cp}, [=] { kernels::bincount(t, sp, n, wp, wt, cp, bins); });
  return counts;
}

}  // namespace torch_tpu::aten
