#include "aten/device/op_trace.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/record_function.h>

#include <mutex>

#include "aten/device/composite_out_check.h"
#include "aten/device/telemetry.h"

namespace torch_tpu::aten {
namespace {

bool has_tpu_tensor(const at::RecordFunction& fn) {
  for (const c10::IValue& v : fn.inputs()) {
    if (v.isTensor() && v.toTensor().is_privateuseone()) return true;
    if (v.isTensorList()) {
      for (const at::Tensor& t : v.toTensorVector()) {
        if (t.is_privateuseone()) return true;
      }
    }
  }
  return false;
}

bool decomposes_on_tpu(const c10::OperatorHandle& op) {
  using c10::DispatchKey;
  // An out= overload whose tpu kernel only checks devices still decomposes.
  const bool own_kernel =
      op.hasKernelForDispatchKey(DispatchKey::PrivateUse1) && !is_composite_out_check(op.operator_name());
  return !own_kernel &&
         (op.hasKernelForDispatchKey(DispatchKey::CompositeImplicitAutograd) ||
          op.hasKernelForDispatchKey(DispatchKey::CompositeExplicitAutograd) ||
          op.hasKernelForDispatchKey(DispatchKey::CompositeExplicitAutogradNonFunctional));
}

std::unique_ptr<at::ObserverContext> on_op_start(const at::RecordFunction& fn) {
  std::optional<c10::OperatorName> name = fn.operator_name();
  if (!name || !has_tpu_tensor(fn)) return nullptr;
  std::optional<c10::OperatorHandle> op = c10::Dispatcher::singleton().findOp(*name);
  if (!op || !decomposes_on_tpu(*op)) return nullptr;
  std::string full = name->name;
  if (!name->overload_name.empty()) full += "." + name->overload_name;
  telemetry::op_counter(full).count(telemetry::Route::kComposite);
  return nullptr;
}

std::mutex g_mu;
int g_depth = 0;
at::CallbackHandle g_handle = 0;

}  // namespace

void enable_composite_tracing() {
  std::lock_guard<std::mutex> g(g_mu);
  if (g_depth++ == 0) {
    g_handle = at::addGlobalCallback(at::RecordFunctionCallback(&on_op_start)
                                         .needsInputs(true)
                                         .scopes({at::RecordScope::FUNCTION}));
  }
}

void disable_composite_tracing() {
  std::lock_guard<std::mutex> g(g_mu);
  if (g_depth > 0 && --g_depth == 0) at::removeCallback(g_handle);
}

}  // namespace torch_tpu::aten
