#include "aten/device/op_registry.h"

#include <cstdlib>
#include <set>
#include <sstream>

#include "aten/device/fallback.h"

namespace torch_tpu::aten {
namespace {

const std::set<std::string>& forced_ops() {
  static const std::set<std::string>* ops = [] {
    auto* s = new std::set<std::string>();
    if (const char* env = std::getenv("TORCH_TPU_FORCE_FALLBACK")) {
      std::stringstream list(env);
      std::string item;
      while (std::getline(list, item, ',')) {
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        if (item.rfind("aten::", 0) == 0) item = item.substr(6);
        if (!item.empty()) s->insert(item);
      }
    }
    return s;
  }();
  return *ops;
}

}  // namespace

bool forced_to_host(const std::string& op) {
  const auto& ops = forced_ops();
  return ops.count("all") > 0 || ops.count(op) > 0;
}

void register_kernel(torch::Library& lib, const char* op, torch::CppFunction&& fn) {
  if (forced_to_host(op)) {
    register_host_fallback(lib, op);
  } else {
    lib.impl(op, std::move(fn));
  }
}

void register_autograd_kernel(torch::Library& autograd_lib, const char* op, torch::CppFunction&& fn) {
  // Forced to the host: upstream's decomposition stays in charge of autograd.
  if (!forced_to_host(op)) autograd_lib.impl(op, std::move(fn));
}

void register_host_fallback(torch::Library& lib, const char* op) {
  lib.impl(op, declared_fallback());
}

void check_dtype(const char* op, uint64_t allowed, const char* declared, const at::Tensor& t) {
  if (!t.defined() || !t.is_privateuseone()) return;
  const at::ScalarType type = t.scalar_type();
  TORCH_CHECK_NOT_IMPLEMENTED(
      (allowed & dtype_bit(type)) != 0, "\"", op, "\" not implemented for '",
      c10::toString(type), "' on tpu (ops.yaml declares ", declared,
      "). To add it, extend the op's dtypes in ops.yaml and its kernel, or run it on the "
      "host with TORCH_TPU_FORCE_FALLBACK=", op, ".");
}

}  // namespace torch_tpu::aten
