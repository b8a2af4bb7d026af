// What happens when an operator without a tpu kernel reaches the device.
// Policy (env TORCH_TPU_FALLBACK, or torch_tpu.set_fallback_policy):
//   error (default)  NotImplementedError naming the op and how to add it;
//   warn             run it on the host (copy in, compute, copy out), warn
//                    once per operator, count every call;
//   allow            the same without warnings.
// Ops that run on the host are counted in telemetry under route "fallback".
#pragma once

#include <string>

#include <torch/library.h>

namespace torch_tpu::aten {

enum class FallbackPolicy { kError, kWarn, kAllow };

FallbackPolicy fallback_policy();
void set_fallback_policy(FallbackPolicy policy);
FallbackPolicy parse_fallback_policy(const std::string& name);  // ValueError on bad names
const char* fallback_policy_name(FallbackPolicy policy);

// The boxed host fallback for ops that ops.yaml routes to the host (or that
// TORCH_TPU_FORCE_FALLBACK forces there): runs whatever the policy, warns
// once per op under "warn", counts every call.
torch::CppFunction declared_fallback();

}  // namespace torch_tpu::aten
