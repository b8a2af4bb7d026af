// gather / scatter / scatter with reductions (index.h).
//
// The iteration runs over index's shape with `dim` as the innermost loop, so
// every element that can land on the same place of self is handled by one
// core, in index order: scatter is deterministic and race free (as CPU), and
// the cores split the other dimensions. run_rows picks the loop order.
#include <cstring>
#include <stdexcept>
#include <string>

#include "kernels/common/dtype_dispatch.h"
#include "kernels/index/index.h"
#include "kernels/index/arith.h"
#include "kernels/index/steps.h"
#include "kernels/common/loops.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

// operands: 0 = index, 1 = the tensor read/written at p (out for gather,
// src for scatter), 2 = self with stride 0 along dim. Innermost = dim.
struct Plan {
  Layout<3> L;
  int64_t rows = 0, row_len = 0;
  int64_t self_dim_stride = 0, self_dim_size = 0;
  int64_t dim = 0;
};

Plan make_plan(const TensorDesc& index, const TensorDesc* other, const TensorDesc& self, int64_t dim) {
  Plan p;
  p.dim = dim;
  const int64_t nd = static_cast<int64_t>(index.sizes.size());
  if (nd == 0) {
    p.L.sizes = {1};
    p.L.strides = {std::vector<int64_t>{0}, std::vector<int64_t>{0}, std::vector<int64_t>{0}};
    p.rows = 1;
    p.row_len = 1;
    p.self_dim_size = self.sizes.empty() ? 1 : self.sizes[0];
    p.self_dim_stride = self.sizes.empty() ? 0 : self.strides[0];
    return p;
  }
  auto push = [&](int64_t d) {
    p.L.sizes.push_back(index.sizes[d]);
    p.L.strides[0].push_back(index.strides[d]);
    p.L.strides[1].push_back(other ? other->strides[d] : 0);
    p.L.strides[2].push_back(d == dim ? 0 : self.strides[d]);
  };
  for (int64_t d = 0; d < nd; ++d) {
    if (d != dim) push(d);
  }
  push(dim);
  p.row_len = index.sizes[dim];
  p.rows = p.row_len == 0 ? 0 : p.L.numel() / p.row_len;
  p.self_dim_size = self.sizes[dim];
  p.self_dim_stride = self.strides[dim];
  return p;
}



// An index pointer whose element width (int32 or int64) is known at run time.
struct DynIndex {
  const void* p;
  bool is32;
  DynIndex operator+(int64_t o) const {
    return is32 ? DynIndex{static_cast<const int32_t*>(p) + o, true}
                : DynIndex{static_cast<const int64_t*>(p) + o, false};
  }
  int64_t operator[](int64_t j) const {
    return is32 ? static_cast<const int32_t*>(p)[j] : static_cast<const int64_t*>(p)[j];
  }
};

// Runs elem(index_row, other_row, self_row, j) for every position j along
// dim of every row (a row: one position of the other dims). A row belongs to
// one core and its j run in order, so scatter stays race free and
// deterministic in either loop order:
//   row-major  j innermost: when dim is the contiguous direction;
//   tiled      up to kTile rows at a time, j outermost: when dim is strided
//              in both tensors (scatter/gather along dim 0 of a row-major
//              tensor), the rows of a tile are neighbours in memory, so each
//              j reads and writes contiguous runs instead of one element per
//              cache line (CPU's kernel walks this way too).
//
// A tile whose rows share one index (an index expanded along the other
// dims, as scatter_add of whole rows) and are adjacent in both tensors is
// done a contiguous run per j: run(other_run, self_run, count).
//
// IndexPtr: const I* (gather and assign, typed on the index width) or
// DynIndex (the reductions: the width is read at run time, which halves
// their instantiations).
template <typename T, typename IndexPtr, typename Elem, typename Run>
void run_rows(const Plan& p, IndexPtr ib, void* other, void* self, int64_t other_dim_stride,
              const IndexBounds& bounds, Elem&& elem, Run&& run) {
  constexpr int64_t kTile = 256;
  const int64_t grain = std::max<int64_t>(1, grain_elements(sizeof(T)) / std::max<int64_t>(1, p.row_len));
  T* ob = static_cast<T*>(other);
  T* sb = static_cast<T*>(self);
  const bool tiled = p.row_len <= 4 || (p.self_dim_stride != 1 && (ob == nullptr || other_dim_stride != 1));
  if (!tiled) {
    runtime::parallel_for(0, p.rows, grain, [&](int64_t r0, int64_t r1) {
      for_each_row(p.L, r0 * p.row_len, r1 * p.row_len, [&](const std::array<int64_t, 3>& off, int64_t n) {
        const IndexPtr ip = ib + off[0];
        T* op = ob ? ob + off[1] : nullptr;
        T* sp = sb + off[2];
        for (int64_t j = 0; j < n; ++j) elem(ip, op, sp, j);
      });
    });
    return;
  }
  runtime::parallel_for(0, p.rows, std::max<int64_t>(grain, kTile), [&](int64_t r0, int64_t r1) {
    int64_t ioff[kTile], ooff[kTile], soff[kTile];
    for (int64_t t0 = r0; t0 < r1; t0 += kTile) {
      const int64_t t1 = std::min(r1, t0 + kTile);
      int64_t c = 0;
      for_each_row(p.L, t0 * p.row_len, t1 * p.row_len, [&](const std::array<int64_t, 3>& off, int64_t) {
        ioff[c] = off[0];
        ooff[c] = off[1];
        soff[c] = off[2];
        ++c;
      });
      bool uniform = true;
      for (int64_t t = 1; t < c && uniform; ++t) {
        uniform = ioff[t] == ioff[0] && soff[t] == soff[0] + t && (ob == nullptr || ooff[t] == ooff[0] + t);
      }
      if (uniform) {
        const IndexPtr ip = ib + ioff[0];
        for (int64_t j = 0; j < p.row_len; ++j) {
          const int64_t k = bounds.check(static_cast<int64_t>(ip[j * p.L.strides[0].back()]), p.self_dim_size, p.dim);
          run(ob ? ob + ooff[0] + j * other_dim_stride : nullptr, sb + soff[0] + k * p.self_dim_stride, c);
        }
        continue;
      }
      for (int64_t j = 0; j < p.row_len; ++j) {
        for (int64_t t = 0; t < c; ++t) elem(ib + ioff[t], ob ? ob + ooff[t] : nullptr, sb + soff[t], j);
      }
    }
  });
}

template <typename T, typename I>
void gather_typed(const TensorDesc& out, const TensorDesc& self, int64_t dim, const TensorDesc& index) {
  const Plan p = make_plan(index, &out, self, dim);
  const int64_t is = p.L.strides[0].back(), os = p.L.strides[1].back();
  const int64_t ss = p.self_dim_stride, size = p.self_dim_size;
  run_rows<T>(
      p, static_cast<const I*>(index.data), out.data, self.data, os, kScatterBounds,
      [&](const I* ip, T* op, T* sp, int64_t j) {
        const int64_t k = kScatterBounds.check(static_cast<int64_t>(ip[j * is]), size, dim);
        op[j * os] = sp[k * ss];
      },
      [](T* __restrict op, const T* __restrict sp, int64_t c) {
        for (int64_t t = 0; t < c; ++t) op[t] = sp[t];
      });
}

// IndexPtr: const I* for assign, DynIndex for the reductions.
template <ScatterOp Op, typename T, typename IndexPtr>
void scatter_typed(const TensorDesc& self, int64_t dim, IndexPtr ib, const TensorDesc& index, const TensorDesc* src,
                   const void* value, const IndexBounds& bounds) {
  const Plan p = make_plan(index, src, self, dim);
  const int64_t is = p.L.strides[0].back(), srs = p.L.strides[1].back();
  const int64_t ss = p.self_dim_stride, size = p.self_dim_size;
  T v{};
  typename Arith<T>::C alpha{};
  if constexpr (Op == ScatterOp::kAddScaled) {
    std::memcpy(&alpha, value, sizeof(alpha));
  } else if (!src) {
    std::memcpy(&v, value, sizeof(T));
  }
  auto apply = [&](T* dst, T x) {
    if constexpr (Op == ScatterOp::kAddScaled) {
      add_scaled(dst, x, alpha);
    } else {
      combine<Op>(dst, x);
    }
  };
  run_rows<T>(
      p, ib, src ? src->data : nullptr, self.data, srs, bounds,
      [&](IndexPtr ip, T* srp, T* sp, int64_t j) {
        const int64_t k = bounds.check(static_cast<int64_t>(ip[j * is]), size, dim);
        apply(sp + k * ss, srp ? srp[j * srs] : v);
      },
      [&](const T* __restrict srp, T* __restrict sp, int64_t c) {
        if (srp) {
          for (int64_t t = 0; t < c; ++t) apply(sp + t, srp[t]);
        } else {
          for (int64_t t = 0; t < c; ++t) apply(sp + t, v);
        }
      });
}

template <typename S>
void scatter_generic(const TensorDesc& self, int64_t dim, DynIndex ib, const TensorDesc& index, const TensorDesc* src,
                     const void* value, const IndexBounds& bounds, StepFn step, bool scaled) {
  const Plan p = make_plan(index, src, self, dim);
  const int64_t is = p.L.strides[0].back(), srs = p.L.strides[1].back();
  const int64_t ss = p.self_dim_stride, size = p.self_dim_size;
  // kAddScaled: src is required and `value` is alpha; else `value` is the element.
  const void* arg = scaled ? value : nullptr;
  const S* v = scaled ? nullptr : static_cast<const S*>(value);
  run_rows<S>(
      p, ib, src ? src->data : nullptr, self.data, srs, bounds,
      [&](DynIndex ip, S* srp, S* sp, int64_t j) {
        const int64_t k = bounds.check(ip[j * is], size, dim);
        step(sp + k * ss, srp ? srp + j * srs : v, arg);
      },
      [&](const S* srp, S* sp, int64_t c) {
        for (int64_t t = 0; t < c; ++t) step(sp + t, srp ? srp + t : v, arg);
      });
}

void check(const TensorDesc& t, const char* what) {
  if (t.sizes.size() != t.strides.size()) {
    throw std::invalid_argument(std::string("scatter/gather: malformed ") + what);
  }
}

void check_dims(const TensorDesc& self, int64_t dim, const TensorDesc& index) {
  check(self, "self");
  check(index, "index");
  if (index.dtype != DType::kInt64 && index.dtype != DType::kInt32) {
    throw std::invalid_argument("scatter/gather: index must be int64 or int32");
  }
  const int64_t nd = static_cast<int64_t>(std::max(self.sizes.size(), index.sizes.size()));
  if (dim < 0 || dim >= std::max<int64_t>(1, nd)) throw std::invalid_argument("scatter/gather: bad dim");
  if (!index.sizes.empty() && !self.sizes.empty() && index.sizes.size() != self.sizes.size()) {
    throw std::invalid_argument("scatter/gather: index and self ranks differ");
  }
}

// The typed loops: the (op, dtype) pairs that models run (float sums,
// products, max/min and index_add with alpha; float16/bfloat16 max/min,
// sums and index_add with alpha (their src sums and products the glue does
// in float); every op of float64/int64/int32). True when handled. The step
// loop (int8/int16/uint8/bool/unsigned/complex) costs 5-40x per element of
// a typed one (an indirect call each).
template <ScatterOp Op, typename T>
bool scatter_hot(const TensorDesc& self, int64_t dim, DynIndex ib, const TensorDesc& index, const TensorDesc* src,
                 const void* value, const IndexBounds& b) {
  scatter_typed<Op, T>(self, dim, ib, index, src, value, b);
  return true;
}

template <typename T>
bool scatter_all_ops(const TensorDesc& self, int64_t dim, DynIndex ib, const TensorDesc& index,
                     const TensorDesc* src, const void* value, ScatterOp op, const IndexBounds& b) {
  switch (op) {
    case ScatterOp::kAdd: return scatter_hot<ScatterOp::kAdd, T>(self, dim, ib, index, src, value, b);
    case ScatterOp::kMul: return scatter_hot<ScatterOp::kMul, T>(self, dim, ib, index, src, value, b);
    case ScatterOp::kMax: return scatter_hot<ScatterOp::kMax, T>(self, dim, ib, index, src, value, b);
    case ScatterOp::kMin: return scatter_hot<ScatterOp::kMin, T>(self, dim, ib, index, src, value, b);
    case ScatterOp::kAddScaled: return scatter_hot<ScatterOp::kAddScaled, T>(self, dim, ib, index, src, value, b);
    case ScatterOp::kAssign: break;
  }
  return false;
}

bool scatter_fast(const TensorDesc& self, int64_t dim, DynIndex ib, const TensorDesc& index, const TensorDesc* src,
                  const void* value, ScatterOp op, const IndexBounds& b) {
  switch (self.dtype) {
    case DType::kFloat32: return scatter_all_ops<float>(self, dim, ib, index, src, value, op, b);
    case DType::kBFloat16:
      switch (op) {
        case ScatterOp::kAdd: return scatter_hot<ScatterOp::kAdd, BFloat16>(self, dim, ib, index, src, value, b);
        case ScatterOp::kAddScaled:
          return scatter_hot<ScatterOp::kAddScaled, BFloat16>(self, dim, ib, index, src, value, b);
        case ScatterOp::kMax: return scatter_hot<ScatterOp::kMax, BFloat16>(self, dim, ib, index, src, value, b);
        case ScatterOp::kMin: return scatter_hot<ScatterOp::kMin, BFloat16>(self, dim, ib, index, src, value, b);
        default: return false;
      }
    case DType::kFloat16:
      switch (op) {
        case ScatterOp::kAdd: return scatter_hot<ScatterOp::kAdd, Half>(self, dim, ib, index, src, value, b);
        case ScatterOp::kAddScaled:
          return scatter_hot<ScatterOp::kAddScaled, Half>(self, dim, ib, index, src, value, b);
        case ScatterOp::kMax: return scatter_hot<ScatterOp::kMax, Half>(self, dim, ib, index, src, value, b);
        case ScatterOp::kMin: return scatter_hot<ScatterOp::kMin, Half>(self, dim, ib, index, src, value, b);
        default: return false;
      }
    case DType::kFloat64: return scatter_all_ops<double>(self, dim, ib, index, src, value, op, b);
    case DType::kInt64: return scatter_all_ops<int64_t>(self, dim, ib, index, src, value, op, b);
    case DType::kInt32: return scatter_all_ops<int32_t>(self, dim, ib, index, src, value, op, b);
    default:
      return false;
  }
}

StepFn step_of(ScatterOp op, DType t) {
  switch (op) {
    case ScatterOp::kAdd: return step_for<ScatterOp::kAdd>(t);
    case ScatterOp::kMul: return step_for<ScatterOp::kMul>(t);
    case ScatterOp::kMax: return step_for<ScatterOp::kMax>(t);
    case ScatterOp::kMin: return step_for<ScatterOp::kMin>(t);
    case ScatterOp::kAddScaled: return step_for<ScatterOp::kAddScaled>(t);
    case ScatterOp::kAssign: break;
  }
  return nullptr;
}

void scatter_dispatch(const TensorDesc& self, int64_t dim, const TensorDesc& index, const TensorDesc* src,
                      const void* value, ScatterOp op, const IndexBounds& b) {
  const bool is32 = index.dtype == DType::kInt32;
  if (op == ScatterOp::kAssign) {  // moves bytes: one loop per element size
    visit_element_size(dtype_size(self.dtype), [&](auto tag) {
      using S = typename decltype(tag)::type;
      if (is32) {
        scatter_typed<ScatterOp::kAssign, S>(self, dim, static_cast<const int32_t*>(index.data), index, src, value, b);
      } else {
        scatter_typed<ScatterOp::kAssign, S>(self, dim, static_cast<const int64_t*>(index.data), index, src, value, b);
      }
    });
    return;
  }
  const DynIndex ib{index.data, is32};
  if (scatter_fast(self, dim, ib, index, src, value, op, b)) return;
  const StepFn step = step_of(op, self.dtype);
  if (!step) throw std::invalid_argument(std::string("scatter: reduction not supported for ") + dtype_name(self.dtype));
  visit_element_size(dtype_size(self.dtype), [&](auto tag) {
    scatter_generic<typename decltype(tag)::type>(self, dim, ib, index, src, value, b, step,
                                                  op == ScatterOp::kAddScaled);
  });
}

}  // namespace

void gather(const TensorDesc& out, const TensorDesc& self, int64_t dim, const TensorDesc& index) {
  check_dims(self, dim, index);
  check(out, "out");
  if (out.sizes != index.sizes || out.dtype != self.dtype) {
    throw std::invalid_argument("gather: out must have index's sizes and self's dtype");
  }
  if (index.numel() == 0) return;
  visit_element_size(dtype_size(self.dtype), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (index.dtype == DType::kInt32) {
      gather_typed<T, int32_t>(out, self, dim, index);
    } else {
      gather_typed<T, int64_t>(out, self, dim, index);
    }
  });
}

bool scatter_supports(ScatterOp op, DType dtype) {
  if (dtype == DType::kComplex32) return op == ScatterOp::kAssign || op == ScatterOp::kAdd;
  if (op == ScatterOp::kMax || op == ScatterOp::kMin) {
    return dtype != DType::kComplex64 && dtype != DType::kComplex128;
  }
  return true;
}

void scatter(const TensorDesc& self, int64_t dim, const TensorDesc& index, const TensorDesc* src,
             const void* value, ScatterOp op, const IndexBounds& bounds) {
  check_dims(self, dim, index);
  if (src) {
    check(*src, "src");
    if (src->dtype != self.dtype || src->sizes.size() != index.sizes.size()) {
      throw std::invalid_argument("scatter: src must have self's dtype and index's rank");
    }
  } else if (!value) {
    throw std::invalid_argument("scatter: no src and no value");
  }
  if (!scatter_supports(op, self.dtype)) {
    throw std::invalid_argument(std::string("scatter: reduction not supported for ") + dtype_name(self.dtype));
  }
  if (index.numel() == 0) return;
  scatter_dispatch(self, dim, index, src, value, op, bounds);
}

}  // namespace torch_tpu::kernels
