// Device utilization (utilization.cpp). A header of its own, not runtime.h:
// the kernel library includes runtime.h, and a declaration only the Python
// module calls should not recompile it.
#pragma once

#include "runtime.h"

namespace torch_tpu::runtime {

// Percent of the last second (at least; up to 1 1/6 s, as NVML's sample
// periods) during which one or more tasks ran on the device's streams:
// torch.tpu.utilization.
Status utilization(int device, int* percent);

}  // namespace torch_tpu::runtime
