"""torch.compile(mode="reduce-overhead") on tpu: compiled graphs replayed
through tpu graph capture (torch_tpu/tpu/graphs.py).

torch 2.13 wraps compiled graphs in CUDA graphs only for "cuda" devices,
but offers two hooks that make it device-neutral, and we use both:
- `check_lowering_disable_cudagraph` (called at compile time) accepts a
  graph whose only device is "tpu" instead of skipping it as "multiple
  devices" (anything else keeps torch's answer);
- `torch._inductor.config.cudagraph_policy`: a policy whose `cudagraphify`
  wraps tpu graphs here and hands every other graph to torch's own.

How a wrapped graph runs: the first call copies the inputs into static
buffers (parameters and buffers, Inductor's static inputs, are used in
place), warms up once on a side stream, and captures; every call copies
the new inputs in and replays. Outputs are the graph's own memory, lent
to the caller without a copy; an output the caller still holds when the
graph runs again is first moved to memory of its own (csrc/python/
graph_outputs.cpp), so a result never changes under the caller. CUDA graph
trees track output liveness for the same reason; they re-record instead.
A forward's saved activations thus reach the backward's graph at the same
addresses every step, and the backward reads them in place.
A graph that cannot be captured (it waits for its own results, e.g. a
data-dependent shape) runs without capture, with one warning.
"""

from __future__ import annotations

import threading
import warnings
from typing import Any, Callable, List, Sequence

import torch

from .. import _C


def _is_tpu_graph(inputs: Sequence[Any]) -> bool:
    return any(isinstance(x, torch.Tensor) and x.device.type == "tpu" for x in inputs)


def _tpu_only(device_node_mapping) -> bool:
    devices = {d for d in device_node_mapping if d.type != "meta"}
    return len(devices) == 1 and next(iter(devices)).type == "tpu"


def _storage(t: torch.Tensor) -> int:
    return t.untyped_storage().data_ptr() if t.numel() else 0


def _record(model: Callable, inputs: List[Any], static_input_idxs: Sequence[int],
            mutated_input_idxs: Sequence[int] = ()) -> Callable:
    from torch._inductor.compile_fx import get_expanded_dims, index_expanded_dims_and_copy_

    from ..tpu.graphs import TPUGraph, graph
    from ..tpu.random import get_rng_state, set_rng_state
    from ..tpu.streams import Stream, stream as stream_context

    static_idxs = set(static_input_idxs)
    mutated = set(mutated_input_idxs)
    expanded = [get_expanded_dims(x) if isinstance(x, torch.Tensor) and i not in static_idxs else []
                for i, x in enumerate(inputs)]
    static_inputs = []
    for i, x in enumerate(inputs):
        if not isinstance(x, torch.Tensor):
            static_inputs.append(x)
        elif i in static_idxs:
            static_inputs.append(x.detach())
        else:
            buf = torch.empty_strided(x.size(), x.stride(), dtype=x.dtype, device=x.device)
            index_expanded_dims_and_copy_(buf, x, expanded[i])
            static_inputs.append(buf)
    copy_idxs = [i for i, x in enumerate(static_inputs) if isinstance(x, torch.Tensor) and i not in static_idxs]
    copy_back = [i for i in copy_idxs if i in mutated]  # the graph mutates the caller's tensor

    device = torch.tpu.current_device()
    side = Stream(device)
    side.wait_stream(torch.tpu.current_stream())
    # Warm-up (lazy state and first allocations happen outside the capture),
    # on copies of the in-place inputs that are not parameters or that the
    # graph mutates: a backward may write into its "donated" saved
    # activations, and the capture must read them as they were. (Copied-in
    # inputs are refilled at every replay.) Random numbers it draws are given
    # back, so the first call draws what eager would.
    warm = [x.clone() if isinstance(x, torch.Tensor) and i in static_idxs
            and (i in mutated or not isinstance(x, torch.nn.Parameter)) else x
            for i, x in enumerate(static_inputs)]
    rng = get_rng_state(device)
    with stream_context(side):
        model(warm)
    del warm
    torch.tpu.current_stream().wait_stream(side)
    set_rng_state(rng, device)

    g = TPUGraph()
    try:
        with graph(g, stream=side, capture_error_mode="thread_local"):
            static_outputs = model(list(static_inputs))
    except RuntimeError as e:
        if "capturing a graph" not in str(e):
            raise
        warnings.warn(f"torch.compile(mode='reduce-overhead') on tpu: this graph runs without graph replay, "
                      f"since it cannot be captured ({str(e).splitlines()[0]})")

        def eager(new_inputs: List[Any]) -> Any:
            return model(new_inputs)

        return eager
    if not isinstance(static_outputs, (list, tuple)):
        static_outputs = (static_outputs,)

    # What each output is, decided once: a value; memory of an in-place input
    # (returned as is: it is that memory); a view of a copied-in input
    # (re-made on the caller's tensor); or the graph's own memory, lent
    # (torch_tpu._C._GraphOutputs: no copy, unless the caller still holds
    # it when the graph runs again).
    in_place = {_storage(static_inputs[i]) for i in static_idxs if isinstance(static_inputs[i], torch.Tensor)}
    copied = {_storage(static_inputs[i]): i for i in copy_idxs}
    plan = []
    for o in static_outputs:
        ptr = _storage(o) if isinstance(o, torch.Tensor) else 0
        if not isinstance(o, torch.Tensor) or (ptr and ptr in in_place):
            plan.append(("as_is", o, None))
        elif ptr and ptr in copied:
            plan.append(("input", o, copied[ptr]))
        else:
            plan.append(("own", o, None))
    own = [o for kind, o, _ in plan if kind == "own"]
    lender = _C._GraphOutputs()

    def replay(new_inputs: List[Any]) -> List[Any]:
        for i in copy_idxs:
            index_expanded_dims_and_copy_(static_inputs[i], new_inputs[i], expanded[i])
        callers = list(new_inputs) if (copy_back or copied) else None
        new_inputs.clear()
        lender.reclaim()  # outputs the caller still holds get their own memory first
        g.replay()
        for i in copy_back:
            callers[i].copy_(static_inputs[i])
        lent = iter(lender.lend(own))
        out = []
        for kind, o, extra in plan:
            if kind == "as_is":
                out.append(o)
            elif kind == "input":
                src, buf = callers[extra], static_inputs[extra]
                out.append(torch.as_strided(src, o.size(), o.stride(),
                                            src.storage_offset() + o.storage_offset() - buf.storage_offset()))
            else:
                out.append(next(lent))
        return out

    replay.graph = g  # keeps the graph alive; tpu_graphify tells a replay from the eager fallback by it
    return replay


def tpu_graphify(model: Callable, static_input_idxs: Sequence[int], mutated_input_idxs: Sequence[int] = ()) -> Callable:
    """Boxed-calling-convention wrapper. One recording per thread and per
    input signature (shapes, strides, dtypes and integer inputs: a dynamic
    graph is recorded once per shape it meets, as CUDA graph trees do).

    Inductor's static inputs are used in place, so a recording is valid
    while they keep their addresses. Parameters do; a backward's saved
    activations (fresh tensors each step) do not: an input found at a new
    address is re-recorded once as an input that is copied in."""
    local = threading.local()

    def key(inputs: List[Any]):
        return (torch.tpu.current_device(),) + tuple((tuple(x.shape), tuple(x.stride()), x.dtype) if isinstance(x, torch.Tensor)
                     else (x if isinstance(x, (int, float, bool)) else type(x)) for x in inputs)

    def run(new_inputs: List[Any]) -> Any:
        if not hasattr(local, "records"):
            local.records, local.copied = {}, set()
        k = key(new_inputs)
        rec = local.records.get(k)
        if rec is not None:
            moved = {i for i, ptr in rec.static_ptrs if new_inputs[i].data_ptr() != ptr}
            if not moved:
                return rec(new_inputs)
            local.copied |= moved
        static = [i for i in static_input_idxs if i not in local.copied and isinstance(new_inputs[i], torch.Tensor)]
        rec = local.records[k] = _record(model, new_inputs, static, mutated_input_idxs)
        rec.static_ptrs = [(i, new_inputs[i].data_ptr()) for i in static] if hasattr(rec, "graph") else []
        return rec(new_inputs)  # the first call's results come from the first replay too

    return run


def register() -> None:
    from torch._inductor import config, cudagraph_utils

    if getattr(cudagraph_utils.check_lowering_disable_cudagraph, "_tpu", False):
        return
    torch_check = cudagraph_utils.check_lowering_disable_cudagraph

    def check_lowering_disable_cudagraph(device_node_mapping):
        if _tpu_only(device_node_mapping):
            return None
        return torch_check(device_node_mapping)

    check_lowering_disable_cudagraph._tpu = True
    cudagraph_utils.check_lowering_disable_cudagraph = check_lowering_disable_cudagraph

    class TpuGraphPolicy(cudagraph_utils.CUDAGraphPolicy):
        """tpu graphs here; every other device as torch does it."""

        def cudagraphify(self, model, example_inputs, static_input_idxs, **kwargs):
            if _is_tpu_graph(example_inputs):
                return tpu_graphify(model, static_input_idxs, kwargs.get("mutated_input_idxs", ()))
            return super().cudagraphify(model, example_inputs, static_input_idxs, **kwargs)

    if config.cudagraph_policy is None:  # a user's own policy stays in charge
        config.cudagraph_policy = TpuGraphPolicy()
