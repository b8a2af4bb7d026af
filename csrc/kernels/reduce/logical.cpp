// all/any (reduce.h): nonzero tests (NaN is nonzero) combined with and/or
// into a bool (or uint8) output. Its own file: minmax.cpp is the heaviest
// reduction unit, and two halves build in parallel.
#include "kernels/reduce/engine.h"
#include "kernels/reduce/ops.h"

namespace torch_tpu::kernels::red {

namespace {

template <typename T, bool kAll>
struct LogicalOp {
  using In = T;
  using Acc = uint8_t;
  static constexpr bool kPairwise = false;
  static constexpr int kLanes = 64;
  DType out_t;

  Acc identity() const { return kAll ? 1 : 0; }
  Acc load(T x, int64_t) const { return convert<Bool>(x).v; }
  Acc combine(Acc a, Acc b) const { return kAll ? (a & b) : (a | b); }
  void store(char* const* out, Acc a, int64_t) const { write_value(out[0], out_t, a); }
};

}  // namespace

void reduce_logical_family(const ReduceDesc& d, const Layout& L) {
  visit_dtype(d.input.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (d.op == ReduceOp::kAll) {
      run_reduction(LogicalOp<T, true>{d.outputs[0].dtype}, d, L);
    } else {
      run_reduction(LogicalOp<T, false>{d.outputs[0].dtype}, d, L);
    }
  });
}

}  // namespace torch_tpu::kernels::red
