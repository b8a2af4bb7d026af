"""Host staging for collectives: tpu tensors travel through gloo as CPU copies.

gloo carries float16/bfloat16/float32/float64, int8/uint8/int32/int64 and
bool. Every other dtype is widened to one of those without loss for the trip
(and narrowed on the way back with CPU's conversion, which wraps integers the
way their own arithmetic would), so every dtype works. gloo has no AVG for
integers and no PREMUL_SUM at all: both become SUM with a local step before
or after (NCCL's semantics: integer AVG truncates)."""

from __future__ import annotations

from typing import Optional

import torch
import torch.distributed as dist

RedOp = dist.ReduceOp.RedOpType

# dtype -> the gloo dtype it travels as (lossless).
_WIDEN = {
    torch.int16: torch.int32,
    torch.uint16: torch.int32,
    torch.uint32: torch.int64,
    torch.float8_e4m3fn: torch.float32,
    torch.float8_e4m3fnuz: torch.float32,
    torch.float8_e5m2: torch.float32,
    torch.float8_e5m2fnuz: torch.float32,
}
_UINT64_FLIP = -(2 ** 63)  # xor with the sign bit maps unsigned order onto signed order


def check_devices(tensors: list[torch.Tensor], bound: Optional[torch.device]) -> torch.device:
    """The one device a collective's tensors live on (cpu or tpu:N)."""
    devices = {t.device for t in tensors}
    if not devices:
        return torch.device("cpu")
    if len(devices) > 1:
        names = ", ".join(sorted(str(d) for d in devices))
        raise ValueError(f"Tensors of one collective must be on the same device, got {names}")
    device = devices.pop()
    if device.type not in ("cpu", "tpu"):
        raise RuntimeError(f"No backend type associated with device type {device.type}")
    if device.type == "tpu" and bound is not None and device != bound:
        raise ValueError(f"Tensor found on device {device} but the process group is bound to {bound} "
                         "(init_process_group(device_id=...))")
    for t in tensors:
        if t.layout != torch.strided:
            raise ValueError(f"tccl supports dense (strided) tensors only, got {t.layout}")
    return device


class Staged:
    """One tensor's trip through gloo: `wire` is what gloo reads and writes.

    A CPU tensor that gloo can take as it is travels in place (no copy); any
    other gets a contiguous CPU copy (for a tpu tensor, a D2H copy on the
    current stream, which waits for the work that produced it). `read=False`
    marks an output whose old values nobody needs."""

    def __init__(self, tensor: torch.Tensor, *, read: bool = True):
        self.tensor = tensor
        self.flip = False  # uint64 MIN/MAX: sign bit flipped on the wire
        dtype = tensor.dtype
        wire_dtype = _WIDEN.get(dtype, dtype)
        in_place = tensor.device.type == "cpu" and wire_dtype == dtype and dtype != torch.uint64 \
            and tensor.is_contiguous()
        if in_place:
            self.wire = tensor
        elif read and tensor.device.type == "tpu" and wire_dtype == dtype:
            # A synchronous D2H copy (it waits for the current stream) into
            # pinned memory, from where the result's H2D copy is asynchronous.
            self.wire = torch.empty(tensor.shape, dtype=dtype, pin_memory=True).copy_(tensor)
            if dtype == torch.uint64:
                self.wire = self.wire.view(torch.int64)
        elif read:
            cpu = tensor.to("cpu")
            cpu = cpu.view(torch.int64) if dtype == torch.uint64 else cpu.to(wire_dtype)
            self.wire = cpu.contiguous()
        else:  # an output only: no need to read the device
            wire_dtype = torch.int64 if dtype == torch.uint64 else wire_dtype
            self.wire = torch.empty(tensor.shape, dtype=wire_dtype, pin_memory=tensor.device.type == "tpu")
        self.in_place = in_place

    def own(self) -> None:
        """Make `wire` a private copy (before changing it locally)."""
        if self.wire is self.tensor:
            self.wire = self.wire.clone()
            self.in_place = False

    def write_back(self) -> None:
        """Copy the wire's values into the tensor. For tpu, an H2D copy from
        pinned memory queued on the current stream: the host does not wait for
        it, and the host allocator keeps the pinned block until it ran."""
        if self.in_place:
            return
        wire = self.wire
        if self.flip:
            wire = wire ^ _UINT64_FLIP
        if self.tensor.dtype == torch.uint64:
            wire = wire.view(torch.uint64)
        wire = wire.view(self.tensor.shape)
        if self.tensor.device.type == "tpu":
            if wire.dtype != self.tensor.dtype:
                wire = wire.to(self.tensor.dtype)  # CPU's conversion, on the host
            if not wire.is_pinned():
                wire = wire.pin_memory()
            self.tensor.copy_(wire, non_blocking=True)
        else:
            self.tensor.copy_(wire)


class Reduction:
    """How one ReduceOp runs on gloo: gloo's op plus local steps."""

    def __init__(self, op, dtype: torch.dtype, world_size: int):
        red = op.op if isinstance(op, dist.ReduceOp) else RedOp(op)
        self.world_size = world_size
        self.dtype = dtype
        self.premul = None
        self.average = red == RedOp.AVG
        self.flip = dtype == torch.uint64 and red in (RedOp.MIN, RedOp.MAX)
        if red == RedOp.PREMUL_SUM:
            self.premul = op.factor
        self.gloo_op = RedOp.SUM if red in (RedOp.AVG, RedOp.PREMUL_SUM) else red

    def prepare(self, staged: Staged) -> Staged:
        """Local step on an input before gloo reduces it."""
        if self.premul is not None:
            staged.own()
            factor = self.premul
            if isinstance(factor, torch.Tensor):
                factor = factor.to("cpu")
            staged.wire = (staged.wire * factor).to(staged.wire.dtype)
        if self.flip:
            staged.own()
            staged.wire = staged.wire ^ _UINT64_FLIP
        return staged

    def mark_output(self, staged: Staged) -> Staged:
        staged.flip = self.flip
        return staged

    def finish(self, staged: Staged) -> None:
        """Local step on an output after gloo reduced it."""
        if self.average:
            staged.own()
            wire = staged.wire
            if wire.dtype.is_floating_point or wire.dtype.is_complex:
                staged.wire = wire / self.world_size
            else:
                staged.wire = torch.div(wire, self.world_size, rounding_mode="trunc").to(wire.dtype)

    def gloo_reduce_op(self) -> dist.ReduceOp:
        return dist.ReduceOp(self.gloo_op)
