"""torch.distributed on tpu: the "tccl" c10d backend.

"tccl" (TPU collective communication library) follows the naming of nccl,
hccl and xccl: the backend name that torch.distributed users pick for a
device family. It is registered for device type "tpu" when torch_tpu is
imported, so

    dist.init_process_group(device_id=torch.device("tpu", local_rank))

selects it without naming a backend. The same backend also answers to
"tpu_dist" and "tpu", the names Google's TorchTPU registers (transformers
asks for "tpu_dist" on device "tpu"); "tccl" stays the device's default. Transport is gloo over c10d's own store
and rendezvous (TCPStore under torchrun), so the same backend runs across
hosts wherever gloo does. See process_group.py for how a collective runs.

Composition ("cpu:gloo,tpu:tccl"): a backend written in Python can only be a
whole `dist.ProcessGroup` (c10d's C++ `Backend` cannot be subclassed from
Python), and c10d then uses that group for every device of the string. So
with that string c10d builds a gloo backend for "cpu", then replaces the
group with tccl's, which carries CPU tensors on its own gloo instance: CPU
tensors still run on gloo and tpu tensors on tccl, but
`group._get_backend(torch.device("cpu"))` is tccl's gloo, not c10d's (which
is dropped).
"""

from __future__ import annotations

from datetime import timedelta

import torch.distributed as dist

from .process_group import BACKEND_NAME, ProcessGroupTCCL

__all__ = ["BACKEND_NAME", "ALIASES", "ProcessGroupTCCL", "register"]

# Other names of the same backend: TorchTPU's (see above).
ALIASES = ("tpu_dist", "tpu")


def _create(store: dist.Store, rank: int, size: int, timeout: timedelta) -> ProcessGroupTCCL:
    return ProcessGroupTCCL(store, rank, size, timeout)


def register() -> None:
    """Register "tccl" and its aliases with c10d for device type "tpu" (once
    per process). The first name registered for a device is its default."""
    if not dist.is_available():
        return
    for name in (BACKEND_NAME, *ALIASES):
        if name not in dist.Backend.backend_list:
            dist.Backend.register_backend(name, _create, devices=["tpu"])
