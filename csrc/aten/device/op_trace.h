// Composite accounting. An op that decomposes (CompositeImplicit/Explicit
// Autograd) never reaches the PrivateUse1 key, so the wrappers cannot count
// it. While tracing is on (torch_tpu.trace_ops()), a RecordFunction callback
// sees every op the program dispatches and counts, under route "composite",
// those called with tpu tensors that have no tpu kernel of their own but a
// composite one. Off by default: the callback costs every op in the process.
#pragma once

namespace torch_tpu::aten {

// Nested: tracing stays on until every enable has been matched by a disable.
void enable_composite_tracing();
void disable_composite_tracing();

}  // namespace torch_tpu::aten
