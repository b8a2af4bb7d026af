// `tpu_kernels_tests --bench-elementwise [n]`: throughput of elementwise
// kernels inside a launched body (so parallel_for uses the device's cores),
// on host buffers of n elements (default 16M). Prints, never asserts.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/elementwise/elementwise.h"
#include "runtime/runtime.h"
#include "testing/harness.h"

using namespace torch_tpu::kernels;
namespace rt = torch_tpu::runtime;

namespace {

struct Case {
  const char* name;
  ElementwiseOp op;
  DType compute, a, b, out;
  bool b_broadcast;  // b is one element, stride 0
  bool a_strided;    // a read with stride 2
};

double run_case(const Case& c, int64_t n, int reps) {
  const auto bytes = [](DType t) { return static_cast<int64_t>(dtype_size(t)); };
  std::vector<unsigned char> a(n * bytes(c.a) * (c.a_strided ? 2 : 1), 1), b(n * bytes(c.b), 1), out(n * bytes(c.out));
  ElementwiseDesc d;
  d.shape = {n};
  d.compute = c.compute;
  d.operands = {ElementwiseOperand::tensor(out.data(), c.out, {bytes(c.out)}),
                ElementwiseOperand::tensor(a.data(), c.a, {bytes(c.a) * (c.a_strided ? 2 : 1)})};
  if (elementwise_num_inputs(c.op) == 2) {
    d.operands.push_back(ElementwiseOperand::tensor(b.data(), c.b, {c.b_broadcast ? 0 : bytes(c.b)}));
  }
  if (elementwise_num_args(c.op) == 1) d.args = {ScalarArg::from_int(1)};
  rt::Stream s = rt::default_stream(0);
  double best = 1e30;
  for (int r = 0; r < reps + 1; ++r) {  // the first run warms up (page faults)
    const auto t0 = std::chrono::steady_clock::now();
    rt::launch(s, c.name, {}, [&] { elementwise(c.op, d); });
    rt::stream_synchronize(s);
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0) best = std::min(best, sec);
  }
  return best;
}

}  // namespace

TEST_MODE(bench_elementwise, "--bench-elementwise", "[n] elementwise kernel throughput on a stream") {
  const int64_t n = argc > 0 ? std::atoll(argv[0]) : (int64_t{1} << 24);
  rt::DeviceProperties props;
  rt::get_device_properties(0, &props);
  std::printf("elementwise, %lld elements, %d cores per device (best of 5)\n", static_cast<long long>(n),
              props.core_count);
  const DType f32 = DType::kFloat32, f16 = DType::kFloat16, i32 = DType::kInt32, c64 = DType::kComplex64;
  const Case cases[] = {
      {"add f32", ElementwiseOp::kAdd, f32, f32, f32, f32, false, false},
      {"add f32 + scalar", ElementwiseOp::kAdd, f32, f32, f32, f32, true, false},
      {"add f32 strided a", ElementwiseOp::kAdd, f32, f32, f32, f32, false, true},
      {"add f32 <- i32 + f32", ElementwiseOp::kAdd, f32, i32, f32, f32, false, false},
      {"mul f16", ElementwiseOp::kMul, f16, f16, f16, f16, false, false},
      {"mul i32", ElementwiseOp::kMul, i32, i32, i32, i32, false, false},
      {"div f32", ElementwiseOp::kDiv, f32, f32, f32, f32, false, false},
      {"mul c64", ElementwiseOp::kMul, c64, c64, c64, c64, false, false},
      {"neg f32", ElementwiseOp::kNeg, f32, f32, f32, f32, false, false},
      {"abs c64 -> c64", ElementwiseOp::kAbs, c64, c64, c64, c64, false, false},
  };
  for (const Case& c : cases) {
    const double sec = run_case(c, n, 5);
    int64_t traffic = n * static_cast<int64_t>(dtype_size(c.a) + dtype_size(c.out));
    if (elementwise_num_inputs(c.op) == 2 && !c.b_broadcast) traffic += n * static_cast<int64_t>(dtype_size(c.b));
    std::printf("  %-24s %8.2f ms  %7.2f GB/s  %8.1f Melem/s\n", c.name, sec * 1e3, traffic / sec / 1e9,
                n / sec / 1e6);
  }
  return 0;
}
