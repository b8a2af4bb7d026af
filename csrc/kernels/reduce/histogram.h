// histogramdd (histc, histogram; histogram.cpp) and bincount, as CPU's
// HistogramKernel.cpp / SummaryOps.cpp count: an element outside
// [first edge, last edge] or NaN is skipped; its bin is found by binary
// search of the edges (upper_bound - 1), by linear interpolation, or by
// linear interpolation corrected by a search of the neighbouring edges; the
// last bin includes its right edge. Each core accumulates a histogram of its
// own rows in the element type (as CPU's threads do), then the partial
// histograms are added. Runtime headers only.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

enum class BinSelect : int8_t { kBinarySearch, kLinear, kLinearLocalSearch };

struct HistogramDesc {
  DType dtype = DType::kFloat32;    // input, weight, edges and hist (floating)
  const void* input = nullptr;      // [M, D] contiguous
  const void* weight = nullptr;     // [M] contiguous, or null (weight 1)
  int64_t M = 0, D = 0;
  std::vector<const void*> edges;   // D contiguous, ascending
  std::vector<int64_t> num_edges;   // per dim; hist has num_edges[d] - 1 bins there
  void* hist = nullptr;             // contiguous, row-major over the D dims; zeroed first
  BinSelect select = BinSelect::kBinarySearch;
};

bool histogram_supports(DType t);
void histogramdd(const HistogramDesc& d);

// CUDA's histc of an integer tensor (ATen's cuda/SummaryOps.cu; CPU has
// none): each of the n elements of src (contiguous) in [lo, hi] counts in bin
// (x - lo) * bins / (hi - lo), in int64 (the last bin includes hi). Counts
// are kept in int64 per core and written in the element type, whose
// wrap-around is that of CUDA's adds in the element type.
void histc_integer(DType t, const void* src, int64_t n, int64_t lo, int64_t hi, int64_t bins, void* hist);

// bincount: range[0] = min, range[1] = max of the n integers of src (n > 0).
void integer_range(DType t, const void* src, int64_t n, int64_t* range);
// counts[src[i]] += 1 (int64 counts) or += weight[i] (weights float32 or
// float64, counts of the same dtype); counts zeroed first, bins entries.
void bincount(DType t, const void* src, int64_t n, const void* weight, DType weight_dtype, void* counts,
              int64_t bins);

}  // namespace torch_tpu::kernels
