"""Graph capture and replay on tpu, shaped like torch.cuda's graphs API.

Work enqueued on a capturing stream is recorded, not run; a replay enqueues
the whole recording as one task, so the host pays one launch instead of one
per kernel. torch.accelerator.Graph works on tpu too (the same C++ graph);
this module adds what torch.cuda offers on top of it:

    g = torch.tpu.TPUGraph()
    with torch.tpu.graph(g):          # captures on a side stream
        static_out = model(static_in)
    static_in.copy_(new_batch)        # refill inputs in place
    g.replay()                        # static_out now holds the new result

Rules (as with CUDA graphs): a capture may not wait for its own work
(`.item()`, `.cpu()`, `synchronize()` raise and invalidate the capture);
tensors a graph uses must stay alive while it exists; memory allocated
during capture comes from the graph's private pool until reset(); random
ops draw new numbers on every replay.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Tuple, Union

import torch
from torch.utils._pytree import tree_flatten, tree_unflatten

from .. import _C
from .device import current_device, synchronize
from .memory import empty_cache, graph_pool_handle
from .streams import Stream, stream as stream_context

_PoolHandle = Tuple[int, int]


def is_current_stream_capturing() -> bool:
    """True if the current tpu stream of the current device is capturing."""
    return torch.tpu.current_stream().is_capturing()


class TPUGraph(torch.accelerator.Graph):
    """A tpu graph: torch.accelerator.Graph with torch.cuda.CUDAGraph's
    capture_begin(pool=None, capture_error_mode="global") signature.

    capture_error_mode: "global" (default) refuses device-wide waits
    (synchronize, synchronous copies) from any thread while capturing;
    "thread_local" only from the capturing thread; "relaxed" allows them.
    Waiting for the captured work itself is always refused."""

    def __new__(cls, keep_graph: bool = False):
        return super().__new__(cls, keep_graph)

    def __init__(self, keep_graph: bool = False) -> None:
        super().__init__(keep_graph)

    def capture_begin(self, pool: Optional[_PoolHandle] = None,  # type: ignore[override]
                      capture_error_mode: str = "global") -> None:
        torch._C._acceleratorGraph.capture_begin(self, pool=pool, capture_error_mode=capture_error_mode)


class graph:
    """Context manager: captures the block into `tpu_graph` on a side stream.

    Like torch.cuda.graph: synchronizes the device and empties the cache
    first, makes `stream` (default: one capture stream per device) current,
    and restores the previous stream afterwards. If the block raises, that
    error propagates and the capture is discarded."""

    _capture_streams: Dict[int, torch.Stream] = {}

    def __init__(self, tpu_graph: TPUGraph, pool: Optional[_PoolHandle] = None,
                 stream: Optional[torch.Stream] = None, capture_error_mode: str = "global"):
        if stream is None:
            dev = current_device()
            stream = graph._capture_streams.get(dev)
            if stream is None:
                stream = graph._capture_streams[dev] = Stream(dev)
        self.tpu_graph = tpu_graph
        self.pool = pool
        self.capture_error_mode = capture_error_mode
        self.stream_ctx = stream_context(stream)

    def __enter__(self) -> None:
        synchronize()
        empty_cache()
        self.stream_ctx.__enter__()
        try:
            if isinstance(self.tpu_graph, TPUGraph):
                self.tpu_graph.capture_begin(pool=self.pool, capture_error_mode=self.capture_error_mode)
            else:  # a plain torch.accelerator.Graph
                torch._C._acceleratorGraph.capture_begin(self.tpu_graph, pool=self.pool,
                                                         capture_error_mode=self.capture_error_mode)
        except BaseException:
            self.stream_ctx.__exit__(None, None, None)
            raise

    def __exit__(self, exc_type, exc, tb) -> bool:
        try:
            if exc_type is None:
                self.tpu_graph.capture_end()
            else:
                # The block's own error is the one to report; ending the
                # capture only cleans up (it fails if the error invalidated it).
                try:
                    self.tpu_graph.capture_end()
                except RuntimeError:
                    pass
                self.tpu_graph.reset()
        finally:
            self.stream_ctx.__exit__(None, None, None)
        return False


_Callable = Union[torch.nn.Module, Callable[..., Any]]


def make_graphed_callables(callables, sample_args, num_warmup_iters: int = 3,
                           allow_unused_input: bool = False, pool: Optional[_PoolHandle] = None):
    """Graphed versions of callables (functions or nn.Modules), like
    torch.cuda.make_graphed_callables: each one's forward and backward are
    captured once from `sample_args` and replayed on every call, with the
    inputs copied into the captured ones. A module's graphed forward runs
    while its training flag is as it was at capture; otherwise its eager one.

    `callables` is one callable or a tuple of them (then `sample_args` is a
    tuple of argument tuples, and the callables must run in that order);
    arguments must be tensors (nested in lists/tuples/dicts is fine)."""
    just_one = not isinstance(callables, tuple)
    if just_one:
        callables, sample_args = (callables,), (sample_args,)
    if torch.is_autocast_enabled("tpu") and torch.is_autocast_cache_enabled():
        raise RuntimeError("make_graphed_callables does not support the autocast weight cache: "
                           "use torch.autocast(..., cache_enabled=False)")

    flat_args, arg_specs, static_inputs, param_counts = [], [], [], []
    for fn, args in zip(callables, sample_args):
        if isinstance(fn, torch.nn.Module):
            if fn._backward_hooks or fn._forward_hooks or fn._forward_pre_hooks:
                raise RuntimeError("make_graphed_callables: modules must not have hooks registered "
                                   "(they would not run on replay)")
            params = tuple(fn.parameters())
        else:
            params = ()
        flat, spec = tree_flatten(args)
        for a in flat:
            if not isinstance(a, torch.Tensor) or a.device.type != "tpu":
                raise TypeError("make_graphed_callables: every sample argument must be a tpu tensor, "
                                f"got {type(a).__name__}" + (f" on {a.device}" if isinstance(a, torch.Tensor) else ""))
        flat_args.append(flat)
        arg_specs.append(spec)
        static_inputs.append(tuple(flat) + params)
        param_counts.append(len(params))

    mempool = graph_pool_handle() if pool is None else pool
    fwd_graphs = [TPUGraph() for _ in callables]
    bwd_graphs = [TPUGraph() for _ in callables]

    def grads_of(outputs, inputs, grad_outputs):
        outs = [o for o in outputs if o.requires_grad]
        ins = [i for i in inputs if i.requires_grad]
        if not outs or not ins:
            return ()
        return torch.autograd.grad(outputs=outs, inputs=ins, grad_outputs=grad_outputs,
                                   only_inputs=True, allow_unused=allow_unused_input)

    # Warm up on a side stream: lazy initialization and first-use allocations
    # happen here, not inside the capture.
    synchronize()
    with stream_context(Stream()):
        for fn, args, inputs in zip(callables, sample_args, static_inputs):
            for _ in range(num_warmup_iters):
                outputs, _ = tree_flatten(fn(*args))
                grads_of(outputs, inputs, [torch.empty_like(o) for o in outputs if o.requires_grad])
            del outputs
    synchronize()

    fwd_outputs, out_specs = [], []
    for fn, args, g in zip(callables, sample_args, fwd_graphs):
        with graph(g, pool=mempool):
            outputs = fn(*args)
        flat_out, spec = tree_flatten(outputs)
        fwd_outputs.append(tuple(flat_out))
        out_specs.append(spec)

    # Backwards in reverse order, so a later callable's grads may feed an earlier one.
    grad_outputs_all, grad_inputs_all = [None] * len(callables), [None] * len(callables)
    for i in reversed(range(len(callables))):
        static_grad_outputs = tuple(torch.empty_like(o) if o.requires_grad else None for o in fwd_outputs[i])
        with graph(bwd_graphs[i], pool=mempool):
            grads = grads_of(fwd_outputs[i], static_inputs[i], [g for g in static_grad_outputs if g is not None])
        grads = iter(grads)
        grad_inputs_all[i] = tuple(next(grads) if x.requires_grad else None for x in static_inputs[i])
        grad_outputs_all[i] = static_grad_outputs

    if pool is None:
        # The pool is ours alone and every capture is done: the captured
        # forward's autograd graph can go (its saved tensors' memory stays in
        # the pool, which nothing else allocates from). Kept alive, it would
        # hold the parameters' AccumulateGrad nodes made on the capture
        # stream, and every later backward would accumulate there.
        fwd_outputs = [tuple(o.detach() for o in outs) for outs in fwd_outputs]

    results = []
    for i, fn in enumerate(callables):
        graphed = _graphed_autograd_function(fwd_graphs[i], bwd_graphs[i], static_inputs[i],
                                             fwd_outputs[i], grad_outputs_all[i], grad_inputs_all[i],
                                             len(flat_args[i]))
        params = static_inputs[i][len(flat_args[i]):]
        out_spec = out_specs[i]

        def run(*user_args, _graphed=graphed, _params=params, _spec=out_spec):
            flat, _ = tree_flatten(user_args)
            return tree_unflatten(list(_graphed.apply(*(tuple(flat) + _params))), _spec)

        if isinstance(fn, torch.nn.Module):
            eager_forward, training = fn.forward, fn.training

            def forward(*user_args, _run=run, _eager=eager_forward, _mod=fn, _training=training):
                return _run(*user_args) if _mod.training == _training else _eager(*user_args)

            fn.forward = forward
            results.append(fn)
        else:
            results.append(run)
    return results[0] if just_one else tuple(results)


def _graphed_autograd_function(fwd_graph, bwd_graph, static_inputs, static_outputs,
                               static_grad_outputs, static_grad_inputs, num_user_args):
    class Graphed(torch.autograd.Function):
        @staticmethod
        def forward(ctx, *inputs):
            # Parameters are the captured tensors themselves; user arguments
            # are copied in unless the caller passed the captured ones.
            for static, new in zip(static_inputs[:num_user_args], inputs[:num_user_args]):
                if static.data_ptr() != new.data_ptr():
                    static.copy_(new)
            fwd_graph.replay()
            return tuple(o.detach() for o in static_outputs)

        @staticmethod
        @torch.autograd.function.once_differentiable
        def backward(ctx, *grads):
            for static, g in zip(static_grad_outputs, grads):
                if static is not None and g is not None and static.data_ptr() != g.data_ptr():
                    static.copy_(g)
            bwd_graph.replay()
            # The captured tensors themselves, not detached aliases: a fresh
            # alias would be "stealable", and AccumulateGrad would make it
            # the parameter's .grad, which the next replay then overwrites
            # (and zero_grad(set_to_none=False) plus accumulation doubles).
            return static_grad_inputs

    return Graphed


__all__ = ["TPUGraph", "graph", "graph_pool_handle", "is_current_stream_capturing", "make_graphed_callables"]
