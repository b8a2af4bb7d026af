// DType facts, TensorDesc helpers and coalesce_dims.
#include <cstring>

#include "testing/harness.h"
#include "kernels/common/tensor_desc.h"

using namespace torch_tpu::kernels;

namespace {

TensorDesc desc(std::vector<int64_t> sizes, std::vector<int64_t> strides) {
  TensorDesc t;
  t.sizes = std::move(sizes);
  t.strides = std::move(strides);
  return t;
}

using V = std::vector<int64_t>;

}  // namespace

TEST(dtype_size_and_name) {
  const size_t sizes[kNumDTypes] = {1, 1, 1, 2, 4, 8, 2, 4, 8, 2, 2, 4, 8, 8, 16, 4};
  const char* names[kNumDTypes] = {"bool",      "uint8",      "int8",      "int16",   "int32",
                                   "int64",     "uint16",     "uint32",    "uint64",  "float16",
                                   "bfloat16",  "float32",    "float64",   "complex64", "complex128",
                                   "complex32"};
  for (int i = 0; i < kNumDTypes; ++i) {
    CHECK_EQ(dtype_size(static_cast<DType>(i)), sizes[i]);
    CHECK(std::strcmp(dtype_name(static_cast<DType>(i)), names[i]) == 0);
  }
  CHECK_THROWS(dtype_size(static_cast<DType>(42)));
}

TEST(numel_and_is_contiguous) {
  CHECK_EQ(desc({}, {}).numel(), 1);
  CHECK(desc({}, {}).is_contiguous());
  CHECK_EQ(desc({2, 3, 4}, {12, 4, 1}).numel(), 24);
  CHECK(desc({2, 3, 4}, {12, 4, 1}).is_contiguous());
  CHECK(!desc({2, 3, 4}, {1, 2, 6}).is_contiguous());
  CHECK(desc({2, 1, 4}, {4, 99, 1}).is_contiguous());  // size-1 dims ignored
  CHECK(!desc({3, 4}, {5, 1}).is_contiguous());        // padded rows
  CHECK(!desc({3, 4}, {0, 1}).is_contiguous());        // broadcast
  CHECK_EQ(desc({3, 0, 2}, {0, 7, 1}).numel(), 0);
  CHECK(desc({3, 0, 2}, {0, 7, 1}).is_contiguous());   // empty
}

TEST(coalesce_contiguous_collapses_to_one_dim) {
  TensorDesc a = desc({2, 3, 4}, {12, 4, 1});
  coalesce_dims({&a});
  CHECK(a.sizes == V{24});
  CHECK(a.strides == V{1});
}

TEST(coalesce_drops_size_one_dims) {
  TensorDesc a = desc({1, 5, 1}, {77, 2, 33});
  coalesce_dims({&a});
  CHECK(a.sizes == V{5});
  CHECK(a.strides == V{2});
  TensorDesc b = desc({1, 1}, {3, 9});
  coalesce_dims({&b});
  CHECK(b.sizes == V{1});  // at least one dimension
  CHECK(b.strides == V{1});
  TensorDesc c = desc({}, {});
  coalesce_dims({&c});
  CHECK(c.sizes == V{1});
}

TEST(coalesce_keeps_transposed_dims) {
  TensorDesc a = desc({3, 4}, {1, 3});
  coalesce_dims({&a});
  CHECK(a.sizes == (V{3, 4}));
  CHECK(a.strides == (V{1, 3}));
}

TEST(coalesce_needs_every_operand_to_agree) {
  TensorDesc a = desc({3, 4}, {4, 1});
  TensorDesc b = desc({3, 4}, {5, 1});  // padded rows
  coalesce_dims({&a, &b});
  CHECK(a.sizes == (V{3, 4}));
  CHECK(a.strides == (V{4, 1}));
  CHECK(b.strides == (V{5, 1}));

  // Inner two dims merge for both, the outer one only for a.
  TensorDesc c = desc({2, 3, 4}, {12, 4, 1});
  TensorDesc d = desc({2, 3, 4}, {100, 4, 1});
  coalesce_dims({&c, &d});
  CHECK(c.sizes == (V{2, 12}));
  CHECK(c.strides == (V{12, 1}));
  CHECK(d.strides == (V{100, 1}));
}

TEST(coalesce_broadcast_dims) {
  TensorDesc a = desc({3, 4}, {4, 1});
  TensorDesc b = desc({3, 4}, {0, 0});  // a broadcast scalar
  coalesce_dims({&a, &b});
  CHECK(a.sizes == V{12});
  CHECK(b.strides == V{0});
  TensorDesc c = desc({3, 4}, {4, 1});
  TensorDesc e = desc({3, 4}, {1, 0});  // a broadcast column
  coalesce_dims({&c, &e});
  CHECK(c.sizes == (V{3, 4}));
  CHECK(e.strides == (V{1, 0}));
}

TEST(coalesce_empty_and_errors) {
  TensorDesc a = desc({3, 0, 2}, {0, 7, 1});
  coalesce_dims({&a});
  CHECK(a.sizes == V{0});
  CHECK_EQ(a.numel(), 0);
  TensorDesc b = desc({3, 4}, {4, 1});
  TensorDesc c = desc({4, 3}, {3, 1});
  CHECK_THROWS(coalesce_dims({&b, &c}));
  TensorDesc d = desc({3, 4}, {4});
  CHECK_THROWS(coalesce_dims({&d}));
}
