"""ProcessGroupTCCL: c10d collectives for tpu tensors, carried by gloo.

A Python `dist.ProcessGroup` subclass (c10d's PyProcessGroup trampoline), so
both torch.distributed's Python API and C++ callers (DDP's reducer, the
functional collectives) reach these methods. Each collective:
1. stages its tpu inputs to host memory (a D2H copy on the current stream,
   so it sees all work queued before it);
2. runs the same collective on gloo (a ProcessGroupGloo built on c10d's own
   store and rendezvous), which also gives gloo's checks, timeouts and its
   error when a peer dies;
3. copies results back with H2D copies queued on the current stream and
   returns a Work with NCCL's stream semantics (work.py).
CPU tensors go through the same path without copies (gloo's own semantics).

The host waits for the gloo step, so there is no overlap of communication
with computation; that needs a device transport, not a staged one.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Optional

import torch
import torch.distributed as dist
from torch._C._distributed_c10d import (
    AllgatherOptions,
    AllreduceOptions,
    AllToAllOptions,
    BarrierOptions,
    BroadcastOptions,
    GatherOptions,
    ReduceOptions,
    ReduceScatterOptions,
    ScatterOptions,
)

from .staging import Reduction, Staged, check_devices
from .work import DoneWork, GroupWork, PendingWork

BACKEND_NAME = "tccl"


def _opts(cls, source, **fields):
    """A fresh options object: c10d passes its own read-only (const) ones."""
    opts = cls()
    opts.timeout = source.timeout
    for name, value in fields.items():
        setattr(opts, name, value)
    return opts


class ProcessGroupTCCL(dist.ProcessGroup):
    def __init__(self, store: dist.Store, rank: int, size: int, timeout: timedelta):
        super().__init__(rank, size)
        self._rank = rank
        self._size = size
        # Its own key space in the group's store, beside c10d's.
        self._gloo_pg: Optional[dist.ProcessGroupGloo] = dist.ProcessGroupGloo(
            dist.PrefixStore("tccl_gloo/", store), rank, size, timeout)
        self._coalesced: Optional[list] = None  # works since _start_coalescing
        self._group_name = ""
        self._group_desc = ""

    # -- identity ---------------------------------------------------------
    def getBackendName(self) -> str:
        return BACKEND_NAME

    def getRank(self) -> int:
        return self._rank

    def getSize(self) -> int:
        return self._size

    # c10d names every group; the C++ base class keeps the name in its
    # backends, which a Python group does not have.
    def setGroupName(self, name: str) -> None:
        self._group_name = name

    def getGroupName(self) -> str:
        return self._group_name

    def setGroupDesc(self, desc: str) -> None:
        self._group_desc = desc

    def getGroupDesc(self) -> str:
        return self._group_desc

    def __repr__(self) -> str:
        return f"ProcessGroupTCCL(rank={self._rank}, size={self._size})"

    def _get_backend(self, device):
        # init_process_group(device_id=...) asks the new group for that
        # device's backend; a Python group learns its device only here (c10d
        # set bound_device_id on the C++ group that this one replaced).
        device = torch.device(device)
        if device.type == "tpu" and device.index is not None and self.bound_device_id is None:
            self.bound_device_id = device
        return self._gloo

    # -- helpers ----------------------------------------------------------
    def _device(self, *tensor_lists) -> torch.device:
        tensors = [t for ts in tensor_lists for t in ts]
        return check_devices(tensors, self.bound_device_id)

    def _done(self, result: list, device: torch.device, source_rank: int = -1):
        work = DoneWork(result, device, source_rank)
        if self._coalesced is not None:
            self._coalesced.append(work)
        return work

    @staticmethod
    def _write_back(staged) -> None:
        for s in staged:
            s.write_back()

    # -- broadcast / reduce ------------------------------------------------
    def broadcast(self, tensors, opts):
        device = self._device(tensors)
        staged = [Staged(t, read=self._rank == opts.rootRank) for t in tensors]
        self._gloo.broadcast([s.wire for s in staged],
                             _opts(BroadcastOptions, opts, rootRank=opts.rootRank,
                                   rootTensor=opts.rootTensor)).wait()
        if self._rank != opts.rootRank:
            self._write_back(staged)
        return self._done(tensors, device)

    def allreduce(self, tensors, opts):
        device = self._device(tensors)
        if not tensors:
            return self._done(tensors, device)
        red = Reduction(opts.reduceOp, tensors[0].dtype, self._size)
        staged = [red.mark_output(red.prepare(Staged(t))) for t in tensors]
        self._gloo.allreduce([s.wire for s in staged],
                             _opts(AllreduceOptions, opts, reduceOp=red.gloo_reduce_op())).wait()
        for s in staged:
            red.finish(s)
        self._write_back(staged)
        return self._done(tensors, device)

    def allreduce_coalesced(self, tensors, opts):
        # One gloo allreduce per dtype over the flattened tensors.
        device = self._device(tensors)
        by_dtype: dict = {}
        for t in tensors:
            by_dtype.setdefault(t.dtype, []).append(t)
        for dtype, group in by_dtype.items():
            flat = torch.cat([t.reshape(-1) for t in group])
            self.allreduce([flat], _opts(AllreduceOptions, opts, reduceOp=opts.reduceOp))
            offset = 0
            for t in group:
                t.copy_(flat[offset:offset + t.numel()].view(t.shape))
                offset += t.numel()
        return self._done(tensors, device)

    def reduce(self, tensors, opts):
        device = self._device(tensors)
        red = Reduction(opts.reduceOp, tensors[0].dtype, self._size)
        staged = [red.mark_output(red.prepare(Staged(t))) for t in tensors]
        self._gloo.reduce([s.wire for s in staged],
                          _opts(ReduceOptions, opts, reduceOp=red.gloo_reduce_op(),
                                rootRank=opts.rootRank, rootTensor=opts.rootTensor)).wait()
        if self._rank == opts.rootRank:
            for s in staged:
                red.finish(s)
            self._write_back(staged)
        return self._done(tensors, device)

    # -- gathers ----------------------------------------------------------
    def allgather(self, output_lists, inputs, opts):
        device = self._device(inputs, *output_lists)
        ins = [Staged(t) for t in inputs]
        outs = [[Staged(t, read=False) for t in ts] for ts in output_lists]
        self._gloo.allgather([[s.wire for s in ss] for ss in outs], [s.wire for s in ins],
                             _opts(AllgatherOptions, opts)).wait()
        for ss in outs:
            self._write_back(ss)
        return self._done(output_lists, device)

    def allgather_coalesced(self, output_lists, inputs, opts):
        device = self._device(inputs, *output_lists)
        for outs, t in zip(output_lists, inputs):
            self.allgather([outs], [t], opts)
        return self._done(output_lists, device)

    def all_gather_single(self, output, input, opts):
        device = self._device([output, input])
        i, o = Staged(input), Staged(output, read=False)
        self._gloo._allgather_base(o.wire, i.wire, _opts(AllgatherOptions, opts)).wait()
        o.write_back()
        return self._done([output], device)

    _allgather_base = all_gather_single

    def all_gather_single_coalesced(self, outputs, inputs, opts):
        device = self._device(outputs, inputs)
        for o, i in zip(outputs, inputs):
            self.all_gather_single(o, i, opts)
        return self._done(outputs, device)

    allgather_into_tensor_coalesced = all_gather_single_coalesced  # c10d's older name

    def gather(self, output_lists, inputs, opts):
        device = self._device(inputs, *output_lists)
        ins = [Staged(t) for t in inputs]
        outs = [[Staged(t, read=False) for t in ts] for ts in output_lists]
        self._gloo.gather([[s.wire for s in ss] for ss in outs], [s.wire for s in ins],
                          _opts(GatherOptions, opts, rootRank=opts.rootRank)).wait()
        for ss in outs:
            self._write_back(ss)
        return self._done(output_lists, device)

    def scatter(self, outputs, input_lists, opts):
        device = self._device(outputs, *input_lists)
        ins = [[Staged(t) for t in ts] for ts in input_lists]
        outs = [Staged(t, read=False) for t in outputs]
        self._gloo.scatter([s.wire for s in outs], [[s.wire for s in ss] for ss in ins],
                           _opts(ScatterOptions, opts, rootRank=opts.rootRank)).wait()
        self._write_back(outs)
        return self._done(outputs, device)

    # -- reduce-scatter ---------------------------------------------------
    def reduce_scatter(self, outputs, input_lists, opts):
        device = self._device(outputs, *input_lists)
        red = Reduction(opts.reduceOp, outputs[0].dtype, self._size)
        ins = [[red.prepare(Staged(t)) for t in ts] for ts in input_lists]
        outs = [red.mark_output(Staged(t, read=False)) for t in outputs]
        self._gloo.reduce_scatter([s.wire for s in outs], [[s.wire for s in ss] for ss in ins],
                                  _opts(ReduceScatterOptions, opts, reduceOp=red.gloo_reduce_op())).wait()
        for s in outs:
            red.finish(s)
        self._write_back(outs)
        return self._done(outputs, device)

    def reduce_scatter_single(self, output, input, opts):
        device = self._device([output, input])
        red = Reduction(opts.reduceOp, output.dtype, self._size)
        i = red.prepare(Staged(input))
        o = red.mark_output(Staged(output, read=False))
        self._gloo._reduce_scatter_base(o.wire, i.wire,
                                        _opts(ReduceScatterOptions, opts, reduceOp=red.gloo_reduce_op())).wait()
        red.finish(o)
        o.write_back()
        return self._done([output], device)

    _reduce_scatter_base = reduce_scatter_single

    def reduce_scatter_single_coalesced(self, outputs, inputs, opts):
        device = self._device(outputs, inputs)
        for o, i in zip(outputs, inputs):
            self.reduce_scatter_single(o, i, opts)
        return self._done(outputs, device)

    reduce_scatter_tensor_coalesced = reduce_scatter_single_coalesced  # c10d's older name

    # -- all-to-all -------------------------------------------------------
    def all_to_all_single(self, output, input, output_split_sizes, input_split_sizes, opts):
        device = self._device([output, input])
        i, o = Staged(input), Staged(output, read=False)
        self._gloo.alltoall_base(o.wire, i.wire, list(output_split_sizes), list(input_split_sizes),
                                 _opts(AllToAllOptions, opts)).wait()
        o.write_back()
        return self._done([output], device)

    alltoall_base = all_to_all_single  # c10d's older name

    def alltoall(self, outputs, inputs, opts):
        device = self._device(outputs, inputs)
        ins = [Staged(t) for t in inputs]
        outs = [Staged(t, read=False) for t in outputs]
        self._gloo.alltoall([s.wire for s in outs], [s.wire for s in ins],
                            _opts(AllToAllOptions, opts)).wait()
        self._write_back(outs)
        return self._done(outputs, device)

    # -- point to point ---------------------------------------------------
    # Not waited for at the call: a rank may post its receive after its send
    # (batch_isend_irecv), so a send that waited for its peer could deadlock.
    def send(self, tensors, dst, tag):
        device = self._device(tensors)
        staged = [Staged(t) for t in tensors]
        work = self._gloo.send([s.wire for s in staged], dst, tag)
        return self._pending(work, lambda: tensors, device, staged)

    def recv(self, tensors, src, tag):
        device = self._device(tensors)
        staged = [Staged(t, read=False) for t in tensors]
        work = self._gloo.recv([s.wire for s in staged], src, tag)

        def finish():
            self._write_back(staged)
            return tensors

        return self._pending(work, finish, device, staged)

    def recv_anysource(self, tensors, tag):
        device = self._device(tensors)
        staged = [Staged(t, read=False) for t in tensors]
        work = self._gloo.recv_anysource([s.wire for s in staged], tag)

        def finish():
            self._write_back(staged)
            return tensors

        return self._pending(work, finish, device, staged)

    def _pending(self, gloo_work, finish, device, keep):
        work = PendingWork(gloo_work, finish, device, keep)
        if self._coalesced is not None:
            self._coalesced.append(work)
        return work

    # -- synchronisation and lifetime ---------------------------------------
    def barrier(self, opts=None):
        timeout = opts.timeout if opts is not None else BarrierOptions().timeout
        barrier_opts = BarrierOptions()
        barrier_opts.timeout = timeout
        self._gloo.barrier(barrier_opts).wait()
        return self._done([], torch.device("cpu"))

    def _start_coalescing(self, device):
        if self._coalesced is not None:
            raise RuntimeError("tccl: coalescing has already started on this process group")
        self._coalesced = []

    def _end_coalescing(self, device):
        if self._coalesced is None:
            raise RuntimeError("tccl: _end_coalescing without _start_coalescing")
        works, self._coalesced = self._coalesced, None
        return GroupWork(works)

    def shutdown(self) -> None:
        # destroy_process_group(). gloo's own shutdown leaves its threads
        # running until the object is destroyed, so drop it too.
        if self._gloo_pg is not None:
            self._gloo_pg.shutdown()
            self._gloo_pg = None

    def abort(self) -> None:
        if self._gloo_pg is not None:
            self._gloo_pg.abort()
            self._gloo_pg = None

    @property
    def _gloo(self) -> dist.ProcessGroupGloo:
        if self._gloo_pg is None:
            raise RuntimeError("tccl: the process group has been destroyed (destroy_process_group)")
        return self._gloo_pg
