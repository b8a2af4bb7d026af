"""Compiled programs: compile once ahead of time, save, load in a fresh
process without compiling again, and run a registered handle in a hot loop.

    prog = torch_tpu.program.compile(model, (example_x,))   # torch.export, on tpu
    prog.save("out/")                                        # program + platform + contract
    prog = torch_tpu.program.CompiledProgram.load("out/")    # checks the platform
    handle = prog.register()                                 # captured once
    for x in batches:
        y = handle(x)                                        # one graph replay per call
    handle.close()

What the pieces are, in PyTorch terms:
- The program is the model's `torch.export` graph (Core ATen IR) with its
  weights on tpu, run by the tpu kernels. Loading it is `torch.export.load`:
  nothing is traced or compiled again. (An Inductor-compiled program would
  need AOTInductor's C++ wrapper to launch tpu kernels; not built yet.)
- The platform it was built for (torch and torch_tpu versions, the kernel
  variant: the instruction set the device kernels were selected for) is
  saved with it; `load` refuses another platform with a message naming
  each difference.
- `register()` captures the program into a tpu graph once: each call copies
  the inputs into the graph's input buffers and replays it (no lookup, no
  tracing, one device task). Shapes must be the example's.
- Resident data: a tpu tensor argument is already on the device (no
  host-to-device copy, and outputs stay on tpu); CPU arguments are copied in
  and, when every argument is on the CPU, outputs are copied back out.
  `torch_tpu.stats()["program"]` counts both. Outputs that stay on tpu are
  the graph's output buffers: the next call overwrites them (clone to keep),
  as with CUDA graphs.
- `torch_tpu.benchmark(handle, *args)` reports host time (until the call
  returns) and device time (between events around it) separately.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from typing import Any, Dict, List, Optional, Sequence

import torch

from . import _C

__all__ = ["CompiledProgram", "ProgramHandle", "compile", "benchmark", "PlatformMismatchError"]

_PROGRAM_FILE = "program.pt2"
_META_FILE = "program.json"
_FORMAT = 1

# Counters shown by torch_tpu.stats()["program"] (reset by reset_stats()).
_stats: Dict[str, int] = {"calls": 0, "h2d_inputs": 0, "resident_inputs": 0, "d2h_outputs": 0,
                          "resident_outputs": 0}


class PlatformMismatchError(RuntimeError):
    """A saved program was built for another platform."""


def platform() -> Dict[str, str]:
    """What a program built here is built for."""
    from . import __version__

    return {"torch_tpu": __version__, "torch": torch.__version__,
            "kernel_variant": _C._cpu_capability()["selected"]}


class _Fn(torch.nn.Module):
    """A plain function as a module, so torch.export can take it."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def _spec(t: torch.Tensor) -> Dict[str, Any]:
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", "")}


class CompiledProgram:
    """A program compiled ahead of time (see the module docstring).

    Contract: `param_names` (the weights and buffers it binds, in the order
    it takes them), `input_specs` (name, shape and dtype of each user
    input), `output_indices` (the positions of the user outputs among the
    graph's outputs; the others are buffer updates), `has_return`,
    `platform`, and `output_dir` once saved or loaded."""

    def __init__(self, exported: torch.export.ExportedProgram, input_specs: List[Dict[str, Any]],
                 platform_info: Dict[str, str], output_dir: Optional[str] = None):
        self.exported = exported
        self.input_specs = input_specs
        self.platform = platform_info
        self.output_dir = output_dir
        sig = exported.graph_signature
        kinds = torch.export.graph_signature.InputKind
        self.param_names = [s.target for s in sig.input_specs
                            if s.kind in (kinds.PARAMETER, kinds.BUFFER, kinds.CONSTANT_TENSOR)]
        out_kind = torch.export.graph_signature.OutputKind.USER_OUTPUT
        self.output_indices = [i for i, s in enumerate(sig.output_specs) if s.kind == out_kind]
        self.has_return = bool(self.output_indices)
        self._module = exported.module()

    # ------------------------------------------------------------ running --
    def __call__(self, *args):
        """One run, without capture (see register() for the hot loop)."""
        tpu_args, all_cpu = _to_device(args)
        _stats["calls"] += 1
        return _outputs(self._module(*tpu_args), all_cpu)

    def register(self) -> "ProgramHandle":
        return ProgramHandle(self)

    # -------------------------------------------------------- persistence --
    def save(self, output_dir: str) -> None:
        os.makedirs(output_dir, exist_ok=True)
        torch.export.save(self.exported, os.path.join(output_dir, _PROGRAM_FILE))
        meta = {"format": _FORMAT, "platform": self.platform, "input_specs": self.input_specs,
                "param_names": self.param_names, "output_indices": self.output_indices}
        with open(os.path.join(output_dir, _META_FILE), "w") as f:
            json.dump(meta, f, indent=1)
        self.output_dir = output_dir

    @classmethod
    def load(cls, output_dir: str, check_platform: bool = True) -> "CompiledProgram":
        meta_path = os.path.join(output_dir, _META_FILE)
        if not os.path.exists(meta_path):
            raise FileNotFoundError(f"{output_dir} holds no saved program (no {_META_FILE}); "
                                    "save one with CompiledProgram.save(dir)")
        with open(meta_path) as f:
            meta = json.load(f)
        if meta.get("format") != _FORMAT:
            raise PlatformMismatchError(f"{output_dir}: program format {meta.get('format')}, this torch_tpu "
                                        f"reads format {_FORMAT}; compile and save it again")
        here = platform()
        diffs = [f"{k}: saved for {meta['platform'].get(k)!r}, this process has {v!r}"
                 for k, v in here.items() if meta["platform"].get(k) != v]
        if diffs and check_platform:
            raise PlatformMismatchError(
                f"the program in {output_dir} was built for another platform ({'; '.join(diffs)}). "
                "Compile it again here with torch_tpu.program.compile(...), or pass check_platform=False "
                "to run it anyway (results may then differ in the last bits)")
        exported = torch.export.load(os.path.join(output_dir, _PROGRAM_FILE))
        return cls(exported, meta["input_specs"], meta["platform"], output_dir)


def compile(model_or_fn, example_inputs: Sequence[torch.Tensor], *, dynamic_shapes=None) -> CompiledProgram:
    """Exports `model_or_fn` (a module, or a function of tensors) with
    torch.export and places it on tpu. `example_inputs` may be on the CPU
    or on tpu; they fix the input shapes of a registered handle."""
    module = model_or_fn if isinstance(model_or_fn, torch.nn.Module) else _Fn(model_or_fn)
    example_inputs = tuple(example_inputs)
    for t in example_inputs:
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"compile: example inputs must be tensors, got {type(t).__name__}")
    # Core ATen IR: functional, so buffer updates (BatchNorm's running
    # statistics in training mode) are explicit outputs of the graph.
    exported = torch.export.export(module, example_inputs, dynamic_shapes=dynamic_shapes).run_decompositions()
    from torch.export.passes import move_to_device_pass

    exported = move_to_device_pass(exported, "tpu")
    names = [s.arg.name for s in exported.graph_signature.input_specs
             if s.kind == torch.export.graph_signature.InputKind.USER_INPUT]
    specs = [dict(name=n, **_spec(t)) for n, t in zip(names, example_inputs)]
    return CompiledProgram(exported, specs, platform())


def _to_device(args):
    moved, all_cpu = [], True
    for a in args:
        if isinstance(a, torch.Tensor):
            if a.device.type == "tpu":
                all_cpu = False
                _stats["resident_inputs"] += 1
            else:
                _stats["h2d_inputs"] += 1
                a = a.to("tpu")
        moved.append(a)
    return moved, all_cpu


def _outputs(out, to_cpu: bool):
    flat = out if isinstance(out, (list, tuple)) else (out,)
    if to_cpu:
        _stats["d2h_outputs"] += sum(isinstance(o, torch.Tensor) for o in flat)
        res = [o.cpu() if isinstance(o, torch.Tensor) else o for o in flat]
    else:
        _stats["resident_outputs"] += sum(isinstance(o, torch.Tensor) for o in flat)
        res = list(flat)
    return type(out)(res) if isinstance(out, (list, tuple)) else res[0]


class ProgramHandle:
    """A program registered for a hot loop: captured once into a tpu graph.

    `inputs` are the graph's input buffers: fill them in place (`copy_`, or
    kernels writing into them) and call the handle with them to skip even
    the device-side copy."""

    def __init__(self, program: CompiledProgram):
        self.program = program
        self.inputs = [torch.empty(s["shape"], dtype=getattr(torch, s["dtype"]), device="tpu")
                       for s in program.input_specs]
        for t in self.inputs:
            if t.is_floating_point():
                t.zero_()
            else:
                t.fill_(0)
        module = program._module
        side = torch.tpu.Stream()
        side.wait_stream(torch.tpu.current_stream())
        with torch.no_grad(), torch.tpu.stream(side):
            module(*self.inputs)  # warm-up: first-use allocations outside the capture
        torch.tpu.current_stream().wait_stream(side)
        self.graph = torch.tpu.TPUGraph()
        with torch.no_grad(), torch.tpu.graph(self.graph, stream=side):
            out = module(*self.inputs)
        self._tuple = isinstance(out, (list, tuple))
        self.outputs = list(out) if self._tuple else [out]
        self._shapes = [t.shape for t in self.inputs]

    def __call__(self, *args):
        if self.graph is None:
            raise RuntimeError("this program handle was closed")
        if len(args) != len(self.inputs):
            raise TypeError(f"the program takes {len(self.inputs)} inputs, got {len(args)}")
        all_cpu = True
        for static, a, shape in zip(self.inputs, args, self._shapes):
            if a is static:
                all_cpu = False
                _stats["resident_inputs"] += 1
                continue
            if a.shape != shape:
                raise ValueError(f"input of shape {tuple(a.shape)} given to a program registered for "
                                 f"{tuple(shape)}: register() captures the example's shapes")
            if a.device.type == "tpu":
                all_cpu = False
                _stats["resident_inputs"] += 1
            else:
                _stats["h2d_inputs"] += 1
            static.copy_(a)
        self.graph.replay()
        _stats["calls"] += 1
        out = self.outputs
        if all_cpu:
            _stats["d2h_outputs"] += len(out)
            out = [o.cpu() for o in out]
        else:
            _stats["resident_outputs"] += len(out)
        return type(self.outputs)(out) if self._tuple else out[0]

    def close(self) -> None:
        """Releases the graph and its buffers (also on garbage collection)."""
        if self.graph is not None:
            self.graph.reset()
            self.graph = None
            self.inputs, self.outputs = [], []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def benchmark(handle, *args, warmup: int = 3, iters: int = 20) -> Dict[str, float]:
    """Median host and device wall time of `handle(*args)` in microseconds:
    host_wall_us until the call returns, device_wall_us between timing
    events recorded on the current stream around it."""
    for _ in range(warmup):
        handle(*args)
    torch.tpu.synchronize()
    host, device = [], []
    for _ in range(iters):
        start, end = torch.tpu.Event(enable_timing=True), torch.tpu.Event(enable_timing=True)
        start.record()
        t0 = time.perf_counter()
        handle(*args)
        host.append((time.perf_counter() - t0) * 1e6)
        end.record()
        end.synchronize()
        device.append(start.elapsed_time(end) * 1e3)
    return {"host_wall_us": statistics.median(host), "device_wall_us": statistics.median(device),
            "iters": iters}


def _reset_stats() -> None:
    for k in _stats:
        _stats[k] = 0
