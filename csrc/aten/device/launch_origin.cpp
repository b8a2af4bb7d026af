#include "aten/device/launch_origin.h"

#include <torch/csrc/profiler/combined_traceback.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

namespace torch_tpu::aten {
namespace {

thread_local const char* t_scope_op = nullptr;     // innermost OpScope
thread_local const char* t_scope_outer = nullptr;  // outermost OpScope

bool launch_stacks_from_env() {
  const char* v = std::getenv("TORCH_TPU_LAUNCH_STACKS");
  return v == nullptr || !(std::strcmp(v, "0") == 0 || std::strcmp(v, "false") == 0 || std::strcmp(v, "off") == 0);
}

std::atomic<bool> g_launch_stacks{launch_stacks_from_env()};

struct OpOrigin final : runtime::LaunchOrigin {
  const char* op = nullptr;
  const char* outer = nullptr;
  std::shared_ptr<torch::CapturedTraceback> stack;
};

// The innermost frames shown; a deeper stack says how many it leaves out.
constexpr size_t kMaxLaunchFrames = 12;

std::string format_launch_stack(torch::CapturedTraceback* stack) {
  const torch::SymbolizedTracebacks s = torch::symbolize({stack});  // takes the GIL itself
  if (s.tracebacks.empty() || s.tracebacks[0].empty()) return "";
  const std::vector<uint64_t>& frames = s.tracebacks[0];  // innermost first
  const size_t shown = std::min(frames.size(), kMaxLaunchFrames);
  std::string out;
  if (frames.size() > shown) out += "  ... (" + std::to_string(frames.size() - shown) + " outer frames)\n";
  for (size_t i = shown; i-- > 0;) {  // outermost first, as a Python traceback
    const auto& f = s.all_frames.at(frames[i]);
    out += "  File \"" + f.filename + "\", line " + std::to_string(f.lineno) + ", in " + f.funcname + "\n";
  }
  return out;
}

}  // namespace

OpScope::OpScope(const char* op) noexcept : saved_(t_scope_op), outermost_(t_scope_outer == nullptr) {
  t_scope_op = op;
  if (outermost_) t_scope_outer = op;
}

OpScope::~OpScope() {
  t_scope_op = saved_;
  if (outermost_) t_scope_outer = nullptr;
}

runtime::LaunchOriginPtr launch_origin() {
  auto origin = std::make_shared<OpOrigin>();
  origin->op = t_scope_op;
  origin->outer = t_scope_outer;
  if (g_launch_stacks.load(std::memory_order_relaxed)) {
    origin->stack = torch::CapturedTraceback::gather(/*python=*/true, /*script=*/false, /*cpp=*/false);
  }
  return origin;
}

std::string describe_origin(const runtime::LaunchOrigin* origin) {
  const auto* o = dynamic_cast<const OpOrigin*>(origin);
  if (o == nullptr) return "";
  std::string out;
  if (o->op) {
    out += o->op;
    if (o->outer && std::strcmp(o->outer, o->op) != 0) out += std::string(" (called from ") + o->outer + ")";
  }
  if (o->stack) {
    const std::string stack = format_launch_stack(o->stack.get());
    if (!stack.empty()) out += (out.empty() ? "launched at:\n" : ", launched at:\n") + stack;
  }
  return out;
}

void set_launch_stacks(bool on) { g_launch_stacks.store(on, std::memory_order_relaxed); }

bool launch_stacks() { return g_launch_stacks.load(std::memory_order_relaxed); }

}  // namespace torch_tpu::aten
