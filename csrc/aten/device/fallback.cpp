#include "aten/device/fallback.h"

#include <ATen/native/CPUFallback.h>
#include <c10/core/DeviceGuard.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <set>

#include "aten/device/backend.h"
#include "aten/device/telemetry.h"

namespace torch_tpu::aten {
namespace {

std::atomic<FallbackPolicy>& policy_slot() {
  static std::atomic<FallbackPolicy> policy{[] {
    const char* env = std::getenv("TORCH_TPU_FALLBACK");
    return env == nullptr ? FallbackPolicy::kError : parse_fallback_policy(env);
  }()};
  return policy;
}

// Collects the devices of all tensor arguments; only CPU 0-dim tensors
// (scalars) may sit next to tpu tensors, as on CUDA.
std::optional<c10::Device> common_device(const c10::FunctionSchema& schema,
                                         const torch::jit::Stack& stack, size_t num_args) {
  std::optional<c10::Device> found;
  auto visit = [&](const at::Tensor& t) {
    if (!t.defined() || (t.is_cpu() && t.dim() == 0)) return;
    if (!found) {
      found = t.device();
    } else {
      TORCH_CHECK(*found == t.device(),
                  "Expected all tensors to be on the same device, but found at least two "
                  "devices, ",
                  *found, " and ", t.device(), "! (in the host fallback of ", schema.name(), ")");
    }
  };
  for (size_t i = stack.size() - num_args; i < stack.size(); ++i) {
    const c10::IValue& v = stack[i];
    if (v.isTensor()) {
      visit(v.toTensor());
    } else if (v.isTensorList()) {
      for (const at::Tensor& t : v.toTensorVector()) visit(t);
    } else if (v.isOptionalTensorList()) {
      for (std::optional<at::Tensor> t : v.toOptionalTensorList()) {
        if (t.has_value()) visit(*t);
      }
    }
  }
  return found;
}

std::string op_name(const c10::FunctionSchema& schema) {
  std::string name = schema.name();
  if (!schema.overload_name().empty()) name += "." + schema.overload_name();
  return name;
}

// Copies the inputs to the CPU, runs the CPU kernel, copies results (and
// mutated inputs) back; counted as route "fallback".
void run_on_host(const c10::OperatorHandle& op, torch::jit::Stack* stack, const std::string& name) {
  const c10::FunctionSchema& schema = op.schema();
  std::optional<c10::Device> device =
      common_device(schema, *stack, schema.arguments().size());
  if (fallback_policy() == FallbackPolicy::kWarn) {
    static std::mutex mu;
    static std::set<std::string>* warned = new std::set<std::string>();
    std::lock_guard<std::mutex> g(mu);
    if (warned->insert(name).second) {
      TORCH_WARN("The operator '", name,
                 "' has no tpu kernel and ran on the host (CPU fallback): its inputs were "
                 "copied to the CPU and its results back. This warning is shown once per "
                 "operator; torch_tpu.stats() counts every call.");
    }
  }
  telemetry::op_counter(name).count(telemetry::Route::kFallback);
  c10::OptionalDeviceGuard guard;
  if (device && device->is_privateuseone()) guard.reset_device(*device);
  // Views cannot be emulated by copies: refuse them rather than break aliasing.
  at::native::cpu_fallback(op, stack, /*error_on_views=*/true);
}

// Any op without a tpu kernel lands here; the policy decides.
void undeclared_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const std::string name = op_name(op.schema());
  TORCH_CHECK_NOT_IMPLEMENTED(
      fallback_policy() != FallbackPolicy::kError, "The operator '", name,
      "' has no tpu kernel. To add one, declare it in ops.yaml and run `python -m codegen` "
      "(see docs/adding-an-operator.md). To run it on the host instead (slow: inputs are "
      "copied to the CPU and results back), set TORCH_TPU_FALLBACK=warn or call "
      "torch_tpu.set_fallback_policy('warn').");
  run_on_host(op, stack, name);
}

void declared_fallback_kernel(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  run_on_host(op, stack, op_name(op.schema()));
}

}  // namespace

FallbackPolicy fallback_policy() { return policy_slot().load(); }

void set_fallback_policy(FallbackPolicy policy) { policy_slot().store(policy); }

FallbackPolicy parse_fallback_policy(const std::string& name) {
  if (name == "error") return FallbackPolicy::kError;
  if (name == "warn") return FallbackPolicy::kWarn;
  if (name == "allow") return FallbackPolicy::kAllow;
  TORCH_CHECK_VALUE(false, "unknown tpu fallback policy '", name,
                    "': expected 'error', 'warn' or 'allow' (TORCH_TPU_FALLBACK)");
}

const char* fallback_policy_name(FallbackPolicy policy) {
  switch (policy) {
    case FallbackPolicy::kError: return "error";
    case FallbackPolicy::kWarn: return "warn";
    case FallbackPolicy::kAllow: return "allow";
  }
  return "?";
}

torch::CppFunction declared_fallback() {
  return torch::CppFunction::makeFromBoxedFunction<&declared_fallback_kernel>();
}

void register_fallback() {
  static auto* lib = [] {
    auto* l = new torch::Library(torch::Library::IMPL, "_", c10::DispatchKey::PrivateUse1,
                                 __FILE__, __LINE__);
    l->fallback(torch::CppFunction::makeFromBoxedFunction<&undeclared_fallback>());
    return l;
  }();
  (void)lib;
}

}  // namespace torch_tpu::aten
