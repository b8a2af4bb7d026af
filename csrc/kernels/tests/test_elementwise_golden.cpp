// elementwise against torch CPU: for every op and dtype, 576 input pairs of
// special values (zeros, infinities, NaN, extremes, values that wrap or
// overflow), hashed and compared with the hashes torch 2.13 CPU eager gives
// on the same contiguous inputs (elementwise_golden_cpu.inc, made by
// gen_elementwise_golden.py). NaN payloads are not compared.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "elementwise_test_util.h"
#include "testing/harness.h"

using namespace ew_test;

namespace {

struct GoldenValues {
  DType dtype;
  const char* hex;
};
struct GoldenResult {
  ElementwiseOp op;
  DType dtype;
  char alpha;  // '1', 'a' (the dtype's other alpha) or '-' (no alpha)
  uint64_t hash;
};

#include "elementwise_golden_cpu.inc"

constexpr int kN = 24;

std::vector<unsigned char> from_hex(const char* s) {
  std::vector<unsigned char> out;
  for (size_t i = 0; s[i] && s[i + 1]; i += 2) out.push_back(static_cast<unsigned char>(std::stoi(std::string(s + i, 2), nullptr, 16)));
  return out;
}

bool is_floating(DType t) {
  return t == DType::kFloat16 || t == DType::kBFloat16 || t == DType::kFloat32 || t == DType::kFloat64 ||
         t == DType::kComplex64 || t == DType::kComplex128;
}

// FNV-1a over the output bytes, every NaN replaced by the dtype's canonical
// quiet NaN (as the generator does).
uint64_t hash_output(const Buf& out, int64_t n) {
  uint64_t h = 0xCBF29CE484222325ull;
  const auto eat = [&](const unsigned char* p, size_t k) {
    for (size_t i = 0; i < k; ++i) h = (h ^ p[i]) * 0x100000001B3ull;
  };
  const bool cplx = out.dtype == DType::kComplex64 || out.dtype == DType::kComplex128;
  const DType part = out.dtype == DType::kComplex64 ? DType::kFloat32
                     : out.dtype == DType::kComplex128 ? DType::kFloat64 : out.dtype;
  const size_t ps = dtype_size(part);
  for (int64_t i = 0; i < n; ++i) {
    const unsigned char* e = out.at(i);
    for (int k = 0; k < (cplx ? 2 : 1); ++k) {
      const unsigned char* p = e + k * ps;
      double v = 0;
      if (is_floating(part)) convert_element(DType::kFloat64, &v, part, p);
      if (is_floating(part) && std::isnan(v)) {
        unsigned char nan[8];
        const double q = NAN;
        convert_element(part, nan, DType::kFloat64, &q);
        eat(nan, ps);
      } else {
        eat(p, ps);
      }
    }
  }
  return h;
}

ScalarArg alpha_for(DType t, char tag) {
  if (t == DType::kBool) return ScalarArg::from_bool(true);
  if (tag == '1') return ScalarArg::from_int(1);
  if (t == DType::kComplex64 || t == DType::kComplex128) return ScalarArg::from_complex(0.5, -2.0);
  if (is_floating(t)) return ScalarArg::from_double(0.1);
  return ScalarArg::from_int(3);
}

}  // namespace

TEST(elementwise_matches_torch_cpu_golden_hashes) {
  int checked = 0;
  for (const GoldenResult& g : kGoldenResults) {
    const GoldenValues* gv = nullptr;
    for (const GoldenValues& v : kGoldenValues) gv = v.dtype == g.dtype ? &v : gv;
    CHECK(gv != nullptr);
    if (!gv) continue;
    const std::vector<unsigned char> vals = from_hex(gv->hex);
    const size_t es = dtype_size(g.dtype);
    CHECK_EQ(vals.size(), es * kN);

    const std::vector<int64_t> shape{kN * kN};
    Buf a = dense(g.dtype, shape), b = dense(g.dtype, shape), out = dense(g.dtype, shape);
    for (int i = 0; i < kN; ++i) {
      for (int j = 0; j < kN; ++j) {
        std::memcpy(a.at(i * kN + j), vals.data() + i * es, es);
        std::memcpy(b.at(i * kN + j), vals.data() + j * es, es);
      }
    }
    ElementwiseDesc d;
    d.shape = shape;
    d.compute = g.dtype;
    d.operands = {out.operand(), a.operand()};
    if (elementwise_num_inputs(g.op) == 2) d.operands.push_back(b.operand());
    if (elementwise_num_args(g.op) == 1) d.args = {alpha_for(g.dtype, g.alpha)};
    CHECK_MSG(elementwise_supports(g.op, g.dtype), elementwise_op_name(g.op) << " " << dtype_name(g.dtype));
    elementwise(g.op, d);
    CHECK_MSG(hash_output(out, kN * kN) == g.hash, elementwise_op_name(g.op)
                                                       << " " << dtype_name(g.dtype) << " alpha " << g.alpha
                                                       << " differs from torch CPU");
    ++checked;
  }
  CHECK(checked > 80);
}
