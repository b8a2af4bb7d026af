// take / put_ (index.h): flat indices into self. Only bits move for take and
// a plain put, so those loops are instantiated per element size; put with
// accumulate adds in the element's compute type (arith.h), serially.
#include <cstring>
#include <stdexcept>
#include <string>

#include "kernels/common/dtype_dispatch.h"
#include "kernels/index/arith.h"
#include "kernels/index/index.h"
#include "kernels/index/loops.h"
#include "kernels/index/steps.h"
#include "kernels/common/loops.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

// Element offset of self's flat (row-major) element k, k in [-numel, numel).
struct FlatOffset {
  const TensorDesc* self = nullptr;
  int64_t numel = 0;
  bool contiguous = false;

  int64_t operator()(int64_t k) const {
    if (k < -numel || k >= numel) {
      throw_index_error("out of range: tried to access index " + std::to_string(k) + " on a tensor of " +
                        std::to_string(numel) + " elements.");
    }
    if (k < 0) k += numel;
    if (contiguous) return k;
    int64_t offset = 0;
    for (int64_t d = static_cast<int64_t>(self->sizes.size()) - 1; d >= 0; --d) {
      const int64_t size = self->sizes[d];
      offset += (k % size) * self->strides[d];
      k /= size;
    }
    return offset;
  }
};

// step (put with accumulate of a cold dtype): T is only the element size
// and step adds.
template <typename T, TakePut Mode, bool ViaStep = false>
void take_put_typed(const ElementwiseDesc& d, const TensorDesc& self, StepFn step = nullptr) {
  const DynLayout L = iterator_layout(d);
  const FlatOffset flat{&self, self.numel(), self.is_contiguous()};
  char* data = static_cast<char*>(d.operands[0].data);  // out (take) or source (put)
  const char* index = static_cast<const char*>(d.operands[1].data);
  const int64_t ds = L.strides[0][L.ndim() - 1], is = L.strides[1][L.ndim() - 1];
  T* const base = static_cast<T*>(self.data);
  auto body = [&](int64_t b, int64_t e) {
    for_each_row_dyn(L, b, e, [&](const int64_t* off, int64_t n) {
      for (int64_t j = 0; j < n; ++j) {
        T* elem = base + flat(load_index(index + off[1] + j * is, false));
        char* other = data + off[0] + j * ds;
        if constexpr (Mode == TakePut::kTake) {
          std::memcpy(other, elem, sizeof(T));
        } else if constexpr (Mode == TakePut::kPut) {
          std::memcpy(elem, other, sizeof(T));
        } else if constexpr (ViaStep) {
          step(elem, other, nullptr);
        } else {
          T v;
          std::memcpy(&v, other, sizeof(T));
          combine<ScatterOp::kAdd>(elem, v);
        }
      }
    });
  };
  if constexpr (Mode == TakePut::kPutAccumulate) {
    body(0, L.numel());  // serial: deterministic sums (as CPU's serial_execution)
  } else {
    runtime::parallel_for(0, L.numel(), grain_elements(sizeof(T) * 4), body);
  }
}

}  // namespace

void take_put(const ElementwiseDesc& d, const TensorDesc& self, TakePut mode) {
  if (d.operands.size() != 2 || d.operands[1].dtype != DType::kInt64 || d.operands[0].dtype != self.dtype) {
    throw std::invalid_argument("take/put: operands must be {data in self's dtype, int64 index}");
  }
  if (d.numel() == 0) return;
  if (mode == TakePut::kPutAccumulate) {
    // Serial anyway: float typed, the other dtypes add through a step (same
    // arithmetic) in one loop per element size.
    if (self.dtype == DType::kFloat32) return take_put_typed<float, TakePut::kPutAccumulate>(d, self);
    const StepFn step = step_for<ScatterOp::kAdd>(self.dtype);
    visit_element_size(dtype_size(self.dtype), [&](auto tag) {
      take_put_typed<typename decltype(tag)::type, TakePut::kPutAccumulate, true>(d, self, step);
    });
    return;
  }
  visit_element_size(dtype_size(self.dtype), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (mode == TakePut::kTake) {
      take_put_typed<T, TakePut::kTake>(d, self);
    } else {
      take_put_typed<T, TakePut::kPut>(d, self);
    }
  });
}

}  // namespace torch_tpu::kernels
