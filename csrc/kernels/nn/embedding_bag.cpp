// Embedding bags (embedding_bag.h): the bags split over the cores; each
// accumulates its rows in the compute type and stores once. Renorm visits
// the distinct rows in increasing order, like CPU.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/nn/embedding_bag.h"
#include "kernels/index/index.h"
#include "kernels/nn/rows.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

int64_t load_index(const void* p, DType t, int64_t i) {
  return t == DType::kInt32 ? static_cast<const int32_t*>(p)[i] : static_cast<const int64_t*>(p)[i];
}

void store_index(void* p, DType t, int64_t i, int64_t v) {
  if (t == DType::kInt32) {
    static_cast<int32_t*>(p)[i] = static_cast<int32_t>(v);
  } else {
    static_cast<int64_t*>(p)[i] = v;
  }
}

template <typename C>
void bags_typed(const EmbeddingBagDesc& d, const std::vector<int64_t>& start) {
  runtime::parallel_for(0, d.num_bags, nn::rows_grain(8 * d.dim), [&](int64_t b, int64_t e) {
    std::vector<C> acc(d.dim), row(d.dim);
    std::vector<int64_t> arg(d.dim);
    for (int64_t bag = b; bag < e; ++bag) {
      std::fill(acc.begin(), acc.end(), C(0));
      std::fill(arg.begin(), arg.end(), -1);
      int64_t count = 0;
      for (int64_t i = start[bag]; i < start[bag + 1]; ++i) {
        const int64_t k = load_index(d.indices, d.index_dtype, i);
        store_index(d.offset2bag, d.index_dtype, i, bag);
        if (k == d.padding_idx) continue;
        nn::load_row(d.weight, d.dtype, k * d.dim, d.dim, row.data());
        if (d.mode == BagMode::kMax) {
          for (int64_t j = 0; j < d.dim; ++j) {
            if (count == 0 || row[j] > acc[j]) {
              acc[j] = row[j];
              arg[j] = k;
            }
          }
        } else {
          const C s = d.per_sample_weights ? nn::load_one<C>(d.per_sample_weights, d.dtype, i) : C(1);
          for (int64_t j = 0; j < d.dim; ++j) acc[j] += row[j] * s;
        }
        ++count;
      }
      if (d.mode == BagMode::kMean && count > 0) {
        for (int64_t j = 0; j < d.dim; ++j) acc[j] /= static_cast<C>(count);
      }
      nn::store_row(acc.data(), d.dim, d.out, d.dtype, bag * d.dim);
      store_index(d.bag_size, d.index_dtype, bag, count);
      if (d.max_indices != nullptr) {
        for (int64_t j = 0; j < d.dim; ++j) store_index(d.max_indices, d.index_dtype, bag * d.dim + j, arg[j]);
      }
    }
  });
}

template <typename C>
double row_norm(const std::vector<C>& row, double p) {
  double acc = 0;
  if (std::isinf(p)) {
    for (C v : row) acc = std::max(acc, std::abs(static_cast<double>(v)));
    return acc;
  }
  if (p == 0) {
    for (C v : row) acc += v != C(0);
    return acc;
  }
  for (C v : row) acc += std::pow(std::abs(static_cast<double>(v)), p);
  return std::pow(acc, 1.0 / p);
}

template <typename C>
void renorm_typed(DType t, void* weight, int64_t rows, int64_t dim, const void* indices, DType index_dtype,
                  int64_t num_indices, double max_norm, double norm_type) {
  std::vector<int64_t> ks(num_indices);
  for (int64_t i = 0; i < num_indices; ++i) {
    ks[i] = load_index(indices, index_dtype, i);
    if (ks[i] < 0 || ks[i] >= rows) throw_index_error("index out of range in self");
  }
  std::sort(ks.begin(), ks.end());
  ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
  runtime::parallel_for(0, static_cast<int64_t>(ks.size()), nn::rows_grain(dim), [&](int64_t b, int64_t e) {
    std::vector<C> row(dim);
    double norm_buf = 0;  // room for one element of any float dtype
    for (int64_t j = b; j < e; ++j) {
      nn::load_row(weight, t, ks[j] * dim, dim, row.data());
      // CPU takes the norm as a tensor of the weight's dtype (.item()): round it so.
      double norm = row_norm(row, norm_type);
      nn::store_one(norm, &norm_buf, t, 0);
      norm = nn::load_one<double>(&norm_buf, t, 0);
      if (norm > max_norm) {
        const C scale = static_cast<C>(max_norm / (norm + 1e-7));
        for (C& v : row) v *= scale;
        nn::store_row(row.data(), dim, weight, t, ks[j] * dim);
      }
    }
  });
}

}  // namespace

void embedding_renorm(DType t, void* weight, int64_t rows, int64_t dim, const void* indices, DType index_dtype,
                      int64_t num_indices, double max_norm, double norm_type) {
  nn::with_compute_type(t, [&](auto c) { renorm_typed<decltype(c)>(t, weight, rows, dim, indices, index_dtype, num_indices, max_norm, norm_type); });
}

void embedding_bag(const EmbeddingBagDesc& d) {
  // Bag boundaries, checked as ATen's CPU kernel checks them. The last bag
  // runs to the end of indices, with include_last_offset too (as on CPU and
  // CUDA: the extra offset only closes the list).
  std::vector<int64_t> start(d.num_bags + 1);
  for (int64_t b = 0; b < d.num_bags; ++b) start[b] = load_index(d.offsets, d.index_dtype, b);
  start[d.num_bags] = d.num_indices;
  if (d.num_bags > 0 && start[0] != 0) throw_data_error("offsets[0] has to be 0, i.e., the first sequence in the "
                                                        "mini-batch has to start from position 0. However, got " +
                                                        std::to_string(start[0]));
  for (int64_t b = 0; b < d.num_bags; ++b) {
    if (start[b] > start[b + 1]) {
      throw_data_error("offsets has to be a 1D Tensor of non-decreasing values not larger than the number of "
                       "indices (" + std::to_string(d.num_indices) + "), got offsets[" + std::to_string(b + 1) +
                       "] = " + std::to_string(start[b + 1]));
    }
  }
  for (int64_t i = 0; i < d.num_indices; ++i) {
    const int64_t k = load_index(d.indices, d.index_dtype, i);
    if (k < 0 || k >= d.rows) throw_index_error("index out of range in self");
  }
  // bag_size's extra entry (include_last_offset) belongs to no bag: 0, a
  // defined value where CUDA leaves memory unwritten.
  for (int64_t b = d.num_bags; b < d.num_offsets; ++b) store_index(d.bag_size, d.index_dtype, b, 0);
  nn::with_compute_type(d.dtype, [&](auto c) { bags_typed<decltype(c)>(d, start); });
}

}  // namespace torch_tpu::kernels
