// Advanced indexing (index / index_put, over TensorIterator-shaped
// descriptors) and masked_fill (index.h).
#include <cstring>
#include <stdexcept>
#include <string>

#include "kernels/common/dtype_dispatch.h"
#include "kernels/index/index.h"
#include "kernels/index/arith.h"
#include "kernels/index/loops.h"
#include "kernels/index/steps.h"
#include "kernels/common/loops.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

struct Indexer {
  int nidx = 0;
  std::vector<bool> is32;
  const std::vector<int64_t>* sizes = nullptr;
  const std::vector<int64_t>* strides = nullptr;
  const IndexBounds* bounds = &kAdvancedIndexBounds;

  // Byte offset for the element whose index operands sit at offs[2...].
  int64_t offset(const ElementwiseDesc& d, const int64_t* offs, int64_t j, const DynLayout& L) const {
    int64_t total = 0;
    for (int k = 0; k < nidx; ++k) {
      const char* p = static_cast<const char*>(d.operands[2 + k].data) + offs[2 + k] +
                      j * L.strides[2 + k][L.ndim() - 1];
      const int64_t v = bounds->check(load_index(p, is32[k]), (*sizes)[k], k);
      total += v * (*strides)[k];
    }
    return total;
  }
};

Indexer make_indexer(const ElementwiseDesc& d, const std::vector<int64_t>& sizes,
                     const std::vector<int64_t>& strides) {
  if (d.operands.size() < 2 || sizes.size() != strides.size() || d.operands.size() - 2 != sizes.size()) {
    throw std::invalid_argument("index kernels: operands and indexed dims disagree");
  }
  Indexer ix;
  ix.nidx = static_cast<int>(sizes.size());
  for (int k = 0; k < ix.nidx; ++k) {
    const DType t = d.operands[2 + k].dtype;
    if (t != DType::kInt64 && t != DType::kInt32) throw std::invalid_argument("index kernels: index dtype");
    ix.is32.push_back(t == DType::kInt32);
  }
  ix.sizes = &sizes;
  ix.strides = &strides;
  return ix;
}

// True when no index operand moves along the innermost dim: the indexed
// offset is then one value per row piece (x[idx] with idx broadcast over the
// trailing dims, the embedding / index_put_ of whole rows pattern).
bool index_fixed_per_row(const Indexer& ix, const DynLayout& L) {
  for (int k = 0; k < ix.nidx; ++k) {
    if (L.strides[2 + k][L.ndim() - 1] != 0) return false;
  }
  return true;
}

template <typename T>
void index_gather_typed(const ElementwiseDesc& d, const Indexer& ix) {
  const DynLayout L = iterator_layout(d);
  char* out = static_cast<char*>(d.operands[0].data);
  const char* self = operand_data(d.operands[1]);
  const int64_t os = L.strides[0][L.ndim() - 1], ss = L.strides[1][L.ndim() - 1];
  const bool fixed = index_fixed_per_row(ix, L);
  runtime::parallel_for(0, L.numel(), grain_elements(sizeof(T) * 4), [&](int64_t b, int64_t e) {
    for_each_row_dyn(L, b, e, [&](const int64_t* off, int64_t n) {
      if (fixed) {
        const char* src = self + off[1] + ix.offset(d, off, 0, L);
        char* dst = out + off[0];
        for (int64_t j = 0; j < n; ++j) std::memcpy(dst + j * os, src + j * ss, sizeof(T));
        return;
      }
      for (int64_t j = 0; j < n; ++j) {
        const int64_t src = off[1] + j * ss + ix.offset(d, off, j, L);
        std::memcpy(out + off[0] + j * os, self + src, sizeof(T));
      }
    });
  });
}

// ViaStep: T is only the element size and `step` adds (the cold dtypes).
template <typename T, bool Accumulate, bool ViaStep = false>
void index_put_typed(const ElementwiseDesc& d, const Indexer& ix, bool in_order, StepFn step = nullptr) {
  const DynLayout L = iterator_layout(d);
  char* self = static_cast<char*>(d.operands[0].data);
  const char* values = operand_data(d.operands[1]);
  const int64_t ds = L.strides[0][L.ndim() - 1], vs = L.strides[1][L.ndim() - 1];
  const bool fixed = index_fixed_per_row(ix, L);
  auto body = [&](int64_t b, int64_t e) {
    for_each_row_dyn(L, b, e, [&](const int64_t* off, int64_t n) {
      if (fixed) {  // one indexed offset for the row piece
        char* dst = self + off[0] + ix.offset(d, off, 0, L);
        const char* src = values + off[1];
        for (int64_t j = 0; j < n; ++j) {
          T v;
          std::memcpy(&v, src + j * vs, sizeof(T));
          if constexpr (ViaStep) {
            step(dst + j * ds, &v, nullptr);
          } else if constexpr (Accumulate) {
            combine<ScatterOp::kAdd>(reinterpret_cast<T*>(dst + j * ds), v);
          } else {
            std::memcpy(dst + j * ds, &v, sizeof(T));
          }
        }
        return;
      }
      for (int64_t j = 0; j < n; ++j) {
        T* dst = reinterpret_cast<T*>(self + off[0] + j * ds + ix.offset(d, off, j, L));
        T v;
        std::memcpy(&v, values + off[1] + j * vs, sizeof(T));
        if constexpr (ViaStep) {
          step(dst, &v, nullptr);
        } else if constexpr (Accumulate) {
          combine<ScatterOp::kAdd>(dst, v);
        } else {
          std::memcpy(dst, &v, sizeof(T));
        }
      }
    });
  };
  if (Accumulate || in_order) {
    body(0, L.numel());  // serial: deterministic sums, or the last duplicate wins (as CPU's serial_execution)
  } else {
    runtime::parallel_for(0, L.numel(), grain_elements(sizeof(T) * 4), body);
  }
}

}  // namespace

void index_gather(const ElementwiseDesc& d, const std::vector<int64_t>& indexed_sizes,
                  const std::vector<int64_t>& indexed_strides) {
  const Indexer ix = make_indexer(d, indexed_sizes, indexed_strides);
  if (d.operands[0].dtype != d.operands[1].dtype) throw std::invalid_argument("index: dtypes differ");
  if (d.numel() == 0) return;
  visit_element_size(dtype_size(d.operands[0].dtype), [&](auto tag) {
    index_gather_typed<typename decltype(tag)::type>(d, ix);
  });
}

bool index_put_accumulate_supports(DType) { return true; }

void index_put(const ElementwiseDesc& d, const std::vector<int64_t>& indexed_sizes,
               const std::vector<int64_t>& indexed_strides, PutMode mode, const IndexBounds& bounds) {
  Indexer ix = make_indexer(d, indexed_sizes, indexed_strides);
  ix.bounds = &bounds;
  if (d.operands[0].dtype != d.operands[1].dtype) throw std::invalid_argument("index_put: dtypes differ");
  if (d.numel() == 0) return;
  if (mode != PutMode::kAccumulate) {
    visit_element_size(dtype_size(d.operands[0].dtype), [&](auto tag) {
      index_put_typed<typename decltype(tag)::type, false>(d, ix, mode == PutMode::kInOrder);
    });
    return;
  }
  // Typed loops for the floating dtypes models accumulate in; the others
  // add through a step (same arithmetic) in one loop per element size.
  switch (d.operands[0].dtype) {
    case DType::kFloat32: return index_put_typed<float, true>(d, ix, true);
    case DType::kBFloat16: return index_put_typed<BFloat16, true>(d, ix, true);
    case DType::kFloat16: return index_put_typed<Half, true>(d, ix, true);
    case DType::kFloat64: return index_put_typed<double, true>(d, ix, true);
    default: break;
  }
  const StepFn step = step_for<ScatterOp::kAdd>(d.operands[0].dtype);
  visit_element_size(dtype_size(d.operands[0].dtype), [&](auto tag) {
    index_put_typed<typename decltype(tag)::type, true, true>(d, ix, true, step);
  });
}

// ---- masked_fill ------------------------------------------------------------

namespace {

template <typename T>
void masked_fill_typed(const ElementwiseDesc& d, T v) {
  const DynLayout L = iterator_layout(d);
  char* self = static_cast<char*>(d.operands[0].data);
  const char* mask = static_cast<const char*>(d.operands[1].data);
  const int64_t ss = L.strides[0][L.ndim() - 1], ms = L.strides[1][L.ndim() - 1];
  runtime::parallel_for(0, L.numel(), grain_elements(sizeof(T)), [&](int64_t b, int64_t e) {
    const T value = v;
    for_each_row_dyn(L, b, e, [&](const int64_t* off, int64_t n) {
      T* s = reinterpret_cast<T*>(self + off[0]);
      const uint8_t* m = reinterpret_cast<const uint8_t*>(mask + off[1]);
      if (ss == static_cast<int64_t>(sizeof(T)) && ms == 1) {
        for (int64_t j = 0; j < n; ++j) s[j] = m[j] ? value : s[j];  // vectorizes as a blend
      } else {
        const int64_t se = ss / static_cast<int64_t>(sizeof(T));
        for (int64_t j = 0; j < n; ++j) {
          if (m[j * ms]) s[j * se] = value;
        }
      }
    });
  });
}

}  // namespace

void masked_fill(const ElementwiseDesc& d, const void* value) {
  if (d.operands.size() != 2 || d.operands[1].dtype != DType::kBool) {
    throw std::invalid_argument("masked_fill: operands must be {self, bool mask}");
  }
  if (d.numel() == 0) return;
  visit_element_size(dtype_size(d.operands[0].dtype), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v;
    std::memcpy(&v, value, sizeof(T));
    masked_fill_typed<T>(d, v);
  });
}

}  // namespace torch_tpu::kernels
