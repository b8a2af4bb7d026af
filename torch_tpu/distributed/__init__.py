"""torch.distributed on tpu: the "tccl" c10d backend.

"tccl" (TPU collective communication library) follows the naming of nccl,
hccl and xccl: the backend name that torch.distributed users pick for a
device family. It is registered for device type "tpu" when torch_tpu is
imported, so

    dist.init_process_group(device_id=torch.device("tpu", local_rank))

selects it without naming a backend. Transport is gloo over c10d's own store
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

__all__ = ["BACKEND_NAME", "ProcessGroupTCCL", "register"]


def _create(store: dist.Store, rank: int, size: int, timeout: timedelta) -> ProcessGroupTCCL:
    return ProcessGroupTCCL(store, rank, size, timeout)


def register() -> None:
    """Register "tccl" with c10d for device type "tpu" (once per process)."""
    if not dist.is_available() or BACKEND_NAME in dist.Backend.backend_list:
        return
    dist.Backend.register_backend(BACKEND_NAME, _create, devices=["tpu"])
