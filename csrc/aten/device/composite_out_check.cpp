#include "aten/device/composite_out_check.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/op_registration/adaption.h>
#include <c10/core/DeviceGuard.h>

#include <mutex>
#include <optional>
#include <string>
#include <unordered_set>

namespace torch_tpu::aten {
namespace {

std::mutex g_out_checks_mu;
std::unordered_set<c10::OperatorName>& out_checks() {
  static auto* ops = new std::unordered_set<c10::OperatorName>();
  return *ops;
}

// "tpu_addr_out", as the generated wrappers are named in torchgen's message.
std::string method_name(const c10::OperatorName& name) {
  std::string out = "tpu_" + name.name.substr(name.name.find("::") + 2);
  if (!name.overload_name.empty()) out += "_" + name.overload_name;
  return out;
}

void check_device(std::optional<c10::Device>& common, const at::Tensor& t, const c10::OperatorHandle& op,
                  const std::string& arg) {
  if (!t.defined()) return;
  if (!common) {
    common = t.device();
  } else if (*common != t.device()) {
    const std::string method = method_name(op.operator_name());
    c10::impl::common_device_check_failure(*common, t, method.c_str(), arg.c_str());
  }
}

void composite_out_kernel(const c10::OperatorHandle& op, c10::DispatchKeySet, torch::jit::Stack* stack) {
  const auto& arguments = op.schema().arguments();
  std::optional<c10::Device> common;
  const size_t first = stack->size() - arguments.size();
  for (size_t i = 0; i < arguments.size(); ++i) {
    const c10::IValue& v = (*stack)[first + i];
    const std::string& arg = arguments[i].name();
    if (v.isTensor()) {
      check_device(common, v.toTensor(), op, arg);
    } else if (v.isTensorList()) {
      for (const at::Tensor& t : v.toTensorVector()) check_device(common, t, op, arg);
    } else if (v.isList()) {  // Tensor?[]
      for (const c10::IValue& e : v.toListRef()) {
        if (e.isTensor()) check_device(common, e.toTensor(), op, arg);
      }
    }
  }
  const c10::OptionalDeviceGuard guard(common);
  op.callBoxedForDispatchKey(c10::DispatchKey::CompositeExplicitAutograd, *stack);
}

}  // namespace

void register_composite_out_checks(torch::Library& lib, const char* const* ops, size_t count) {
  std::lock_guard<std::mutex> lock(g_out_checks_mu);
  for (size_t i = 0; i < count; ++i) {
    lib.impl(ops[i], torch::CppFunction::makeFromBoxedFunction<&composite_out_kernel>());
    const std::string name = ops[i];
    const size_t dot = name.find('.');
    out_checks().insert(c10::OperatorName("aten::" + name.substr(0, dot),
                                          dot == std::string::npos ? "" : name.substr(dot + 1)));
  }
}

bool is_composite_out_check(const c10::OperatorName& op) {
  std::lock_guard<std::mutex> lock(g_out_checks_mu);
  return out_checks().count(op) > 0;
}

}  // namespace torch_tpu::aten
