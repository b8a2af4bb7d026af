// Outputs of a replayed graph (torch.compile(mode="reduce-overhead"),
// torch_tpu/_compile/graphs.py) are lent to the caller, not copied: each
// returned tensor gets a storage of its own whose memory is the graph's
// output memory (kept alive by it). Before the next replay overwrites that
// memory, every lent storage still alive is given a copy of its bytes in
// memory of its own, so tensors the caller kept, and their views, keep their
// values. A training loop lets go of its activations and gradients before
// the graph runs again, so it copies nothing; what it keeps (the last loss)
// is copied once, on the stream, ahead of the replay.
//
// Copies go on the current stream, the one replays run on (a caller that
// uses an output on another stream must order it, as with CUDA graphs).
#include "python/graph_outputs.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <c10/core/StorageImpl.h>
#include <torch/csrc/utils/pybind.h>

#include <unordered_map>
#include <vector>

namespace py = pybind11;

namespace torch_tpu::python {
namespace {

using StoragePtr = c10::intrusive_ptr<c10::StorageImpl>;

// A lent storage's memory: the graph's, owned by its output storage.
void release_owner(void* owner) { delete static_cast<StoragePtr*>(owner); }

class GraphOutputs {
 public:
  // Tensors over outputs' memory, one new storage per output storage (so
  // outputs that alias each other still do); remembered until reclaim().
  std::vector<at::Tensor> lend(const std::vector<at::Tensor>& outputs) {
    std::unordered_map<c10::StorageImpl*, c10::Storage> lent;
    std::vector<at::Tensor> out;
    out.reserve(outputs.size());
    for (const at::Tensor& o : outputs) {
      c10::StorageImpl* graph = o.storage().unsafeGetStorageImpl();
      auto it = lent.find(graph);
      if (it == lent.end()) it = lent.emplace(graph, lend_storage(o.storage())).first;
      out.push_back(at::empty({0}, o.options()).set_(it->second, o.storage_offset(), o.sizes(), o.strides()));
    }
    return out;
  }

  // Storages lent earlier and still alive get memory of their own holding
  // their current bytes; then nothing is on loan. Returns how many did.
  int64_t reclaim() {
    int64_t copied = 0;
    for (auto& weak : lent_) {
      StoragePtr s = weak.lock();
      if (!s) continue;
      const auto nbytes = static_cast<int64_t>(s->nbytes());
      const auto options = at::TensorOptions().dtype(at::kByte).device(s->device());
      at::Tensor fresh = at::empty({nbytes}, options);
      at::Tensor old = at::empty({0}, options).set_(c10::Storage(s), 0, {nbytes}, {1});
      fresh.copy_(old);
      s->set_data_ptr_noswap(fresh.storage().unsafeGetStorageImpl()->set_data_ptr(c10::DataPtr()));
      ++copied;
    }
    lent_.clear();
    return copied;
  }

 private:
  c10::Storage lend_storage(const c10::Storage& graph) {
    auto* owner = new StoragePtr(c10::intrusive_ptr<c10::StorageImpl>::reclaim_copy(graph.unsafeGetStorageImpl()));
    c10::DataPtr memory(graph.unsafeGetStorageImpl()->mutable_data(), owner, &release_owner, graph.device());
    // Resizable as any tensor's storage: a resize allocates memory of its own.
    auto impl = c10::make_intrusive<c10::StorageImpl>(c10::StorageImpl::use_byte_size_t(), graph.nbytes(),
                                                     std::move(memory), graph.allocator(), graph.resizable());
    lent_.emplace_back(impl);
    return c10::Storage(std::move(impl));
  }

  std::vector<c10::weak_intrusive_ptr<c10::StorageImpl>> lent_;
};

}  // namespace

void register_graph_outputs(py::module& m) {
  py::class_<GraphOutputs>(m, "_GraphOutputs")
      .def(py::init<>())
      .def("lend", &GraphOutputs::lend,
           "Tensors over the outputs' memory in storages of their own, without a copy.")
      .def("reclaim", &GraphOutputs::reclaim,
           "Before a replay: lent storages still alive get a copy of their bytes. Returns how many.");
}

}  // namespace torch_tpu::python
