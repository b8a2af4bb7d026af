// Random kernels: counter-based (Philox4x32-10, as CUDA's curand Philox).
//
// Every kernel gets (seed, offset) from the tpu generator (csrc/aten/
// generator.h), which reserves 4 counter values per element. Element i of
// the output (row-major over its shape) draws the 4 words of Philox block
// (offset / 4 + i) under key `seed`. Results therefore depend only on
// (seed, offset, shape), never on how the work is split over the cores, and
// a saved generator state replays them exactly.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

struct PhiloxState {
  uint64_t seed = 0;
  uint64_t offset = 0;   // in 32-bit words; a multiple of 4
  // Set for a kernel captured in a graph: {seed, offset} of the replay that
  // runs it, read when it runs (seed replaces `seed`; offset adds to `offset`).
  const uint64_t* replay = nullptr;
};

// The 4 words of block `block` under `seed` (Philox4x32, 10 rounds).
void philox_block(uint64_t seed, uint64_t block, uint32_t out[4]);

// Counter words each element consumes (what the launcher reserves).
constexpr uint64_t kWordsPerElement = 4;

enum class RandomDist : int8_t {
  kUniform,       // a + (b - a) * U[0, 1), values < b
  kNormal,        // mean a, std b (Box-Muller)
  kBernoulli,     // 1 with probability a (a scalar p)
  kExponential,   // rate a, values > 0
  kLogNormal,     // exp(N(a, b^2))
  kCauchy,        // median a, scale b
  kGeometric,     // trials to the first success, success probability a (>= 1)
  kRandomBits,    // CPU's random_(): [0, 2^mantissa] for floats, [0, max] for ints, {0,1} bool
  kRandomRange,   // base + (bits mod range): random_(from, to); uses range/base
  kRandomFull64,  // the full 64-bit range (random_(from=min, to=None) for int64)
};

struct RandomDesc {
  TensorDesc out;           // any dtype the distribution allows, any strides
  RandomDist dist = RandomDist::kUniform;
  double a = 0, b = 1;
  uint64_t range = 0;       // kRandomRange
  int64_t base = 0;         // kRandomRange
  PhiloxState rng;
};
void random_fill(const RandomDesc& d);

// bernoulli_(p tensor): out[i] = U < p[i]; p is broadcast to out's shape
// (strides may be 0), float16/bfloat16/float/double.
void bernoulli_tensor(const TensorDesc& out, const TensorDesc& p, PhiloxState rng);

// Fused dropout over n dense elements (input, output and mask share one
// memory order): mask[i] = U >= p ... keep with probability 1 - p,
// output[i] = input[i] * mask[i] * scale.
struct DropoutDesc {
  const void* input = nullptr;
  void* output = nullptr;
  bool* mask = nullptr;
  DType dtype = DType::kFloat32;
  int64_t n = 0;
  double keep = 1;   // 1 - p
  double scale = 1;  // 1 / (1 - p), 0 when p == 1
  PhiloxState rng;

  // The device memory it reads and writes (the launch names it: strict mode).
  std::vector<const void*> buffers() const { return {input, output, mask}; }
};
void dropout_forward(const DropoutDesc& d);

// A uniformly random permutation of [0, n) into out (contiguous, int64/
// int32/int16/int8/uint8/float/double/half/bfloat16 as randperm allows).
// Consumes kWordsPerElement words per element.
void randperm(void* out, DType dtype, int64_t n, PhiloxState rng);

// multinomial: probs [rows, categories] contiguous (float types), out
// [rows, samples] int64 contiguous. Throws like CPU for invalid rows
// (negative, inf or nan entries; zero sum). Uses kWordsPerElement words per
// output element.
struct MultinomialDesc {
  const void* probs = nullptr;
  int64_t* out = nullptr;
  DType dtype = DType::kFloat32;
  int64_t rows = 1, categories = 1, samples = 1;
  bool replacement = false;
  PhiloxState rng;

  // The device memory it reads and writes (the launch names it: strict mode).
  std::vector<const void*> buffers() const { return {probs, out}; }
};
void multinomial(const MultinomialDesc& d);

}  // namespace torch_tpu::kernels
