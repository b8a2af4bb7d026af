// tpu graphs (torch.accelerator.Graph, torch.tpu.TPUGraph): capture on a
// side stream records launches (runtime stream capture), allocations made
// meanwhile come from the graph's private memory pool, and replay enqueues
// the recording as one task. Random kernels captured in a graph read their
// Philox seed and offset when they run, so each replay draws new numbers.
#pragma once

#include <c10/core/Allocator.h>

#include <cstdint>

#include "aten/device/generator.h"
#include "kernels/random/random.h"

namespace torch_tpu::aten {

// If the current stream of `device` is capturing into a graph: reserves
// `increment` counter words of `gen` inside that graph and returns the
// state a captured kernel uses (its offset counts from the replay's
// generator offset). False when not capturing.
bool reserve_graph_philox(c10::DeviceIndex device, TpuGeneratorImpl* gen, uint64_t increment,
                          kernels::PhiloxState* out);

// A new pool id for graphs to share (torch.tpu.graph_pool_handle()).
c10::MempoolId_t graph_pool_handle();

}  // namespace torch_tpu::aten
