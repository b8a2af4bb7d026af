// plan_layout (kernels/reduce/layout.h).
#include "kernels/reduce/layout.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace torch_tpu::kernels::red {

namespace {

[[noreturn]] void bad(const std::string& what) {
  throw std::invalid_argument("torch_tpu kernels: reduce: " + what);
}

}  // namespace

Layout plan_layout(const ReduceDesc& d) {
  const size_t nd = d.shape.size();
  const int no = static_cast<int>(d.outputs.size());
  if (no < 1 || no > 2) bad("expected 1 or 2 outputs");
  if (d.input.strides.size() != nd) bad("input strides do not match the shape");
  for (const ReduceOperand& o : d.outputs) {
    if (o.strides.size() != nd) bad("output strides do not match the shape");
  }
  Layout L;
  L.noutputs = no;
  std::vector<size_t> rdims, kdims;
  for (size_t i = 0; i < nd; ++i) {
    if (d.shape[i] < 0) bad("negative size");
    bool reduced = true;
    for (const ReduceOperand& o : d.outputs) reduced = reduced && o.strides[i] == 0;
    if (d.shape[i] == 1) continue;
    (reduced ? rdims : kdims).push_back(i);
  }
  auto by_input_stride = [&](size_t a, size_t b) { return d.input.strides[a] < d.input.strides[b]; };
  std::stable_sort(rdims.begin(), rdims.end(), by_input_stride);
  std::stable_sort(kdims.begin(), kdims.end(), by_input_stride);

  for (size_t i : rdims) {
    const int64_t s = d.shape[i], st = d.input.strides[i];
    if (!L.rsize.empty() && st == L.rstride.back() * L.rsize.back()) {
      L.rsize.back() *= s;
    } else {
      L.rsize.push_back(s);
      L.rstride.push_back(st);
    }
  }
  for (size_t i : kdims) {
    const int64_t s = d.shape[i], st = d.input.strides[i];
    bool merge = !L.ksize.empty() && st == L.kin.back() * L.ksize.back();
    for (int o = 0; o < no && merge; ++o) {
      merge = d.outputs[o].strides[i] == L.kout[o].back() * L.ksize.back();
    }
    if (merge) {
      L.ksize.back() *= s;
    } else {
      L.ksize.push_back(s);
      L.kin.push_back(st);
      for (int o = 0; o < no; ++o) L.kout[o].push_back(d.outputs[o].strides[i]);
    }
  }
  if (L.rsize.empty()) {
    L.rsize.push_back(1);
    L.rstride.push_back(0);
  }
  L.n_red = std::accumulate(L.rsize.begin(), L.rsize.end(), int64_t{1}, std::multiplies<>());
  L.n_out = std::accumulate(L.ksize.begin(), L.ksize.end(), int64_t{1}, std::multiplies<>());
  return L;
}

}  // namespace torch_tpu::kernels::red
