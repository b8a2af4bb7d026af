"""Inductor's choices for CPU's C++ kernels, made for tpu's too.

tpu's kernels are CppScheduling's C++ for the host CPU, but torch 2.13's
Inductor makes some choices by `device.type == "cpu"`, and a tpu graph took
the branch written for Triton on GPUs at each of them:
- cat: a "pointwise cat" that evaluates every input, masked, for each output
  element. CPU always copies each input into its slice (ConcatKernel): the
  pointwise kernel does not vectorize in C++. The GPT example's backward
  concatenated q, k and v's gradients in a scalar kernel of 104 us; the
  copies take 23 (AMD EPYC, family 23, in the training step).
- pad as cat: a right pad written as a cat with a filled tensor; CPU skips
  it, since its cat is the copies above and the fill is one more kernel.
- var_mean: Welford's update (a division per vector) for reductions of up
  to 8 values, two passes (sum, then squared deviations) on CPU up to
  1,024. The GPT example's layer norms over 64 values are the case: 63 ->
  33 us a kernel.
- realizing: a value reused by several kernels, or one with many ops, is
  kept in memory on CPU sooner (realize_cpu_* thresholds) and recomputed
  in each consumer on GPUs.
- loop reordering in fusion: disabled for CPU because "CPU reindexing is
  not validated yet" (scheduler.py); it crashed on tpu's C++ loop groups.
- division by a constant: a multiplication by the reciprocal, except on CPU,
  which divides for precision (torch issue 157959). tpu's results are
  CPU's here too.

Each choice is patched where torch reads it, for tpu only, so CPU and other
devices keep torch's code; tests/test_compile.py checks that tpu's kernels
are CPU's, character for character.
"""

from __future__ import annotations


def _on_tpu(node) -> bool:
    # Lowerings pass Python numbers too (div_prim's divisor: avg_pool's
    # divisor_override); those have no device and keep torch's choice.
    get_device = getattr(node, "get_device", None)
    device = get_device() if get_device is not None else None
    return device is not None and device.type == "tpu"


def _mark(fn):
    fn._tpu_cpp_choice = True
    return fn


def _patched(fn) -> bool:
    return getattr(fn, "_tpu_cpp_choice", False)


def apply() -> None:
    from torch._inductor import config, ir, lowering, scheduler

    if not _patched(ir.is_cpu):
        # Read by the realize heuristics only (ir.py); a tpu buffer is host
        # memory to the C++ kernels that read it.
        ir.is_cpu = _mark(lambda x: ir.get_device_type(x) in ("cpu", "tpu"))

    node_is_cpu = scheduler.BaseSchedulerNode.is_cpu
    if not _patched(node_is_cpu):
        def is_cpu(self) -> bool:
            device = self.get_device()
            return device is not None and device.type in ("cpu", "tpu")
        scheduler.BaseSchedulerNode.is_cpu = _mark(is_cpu)

    pointwise_cat = lowering.pointwise_cat
    if not _patched(pointwise_cat):
        def cat_as_copies(inputs, dim=0, _pointwise=pointwise_cat):
            if _on_tpu(inputs[0]) and not config.force_pointwise_cat:
                return ir.TensorBox(ir.ConcatKernel.create(inputs, dim))
            return _pointwise(inputs, dim)
        lowering.pointwise_cat = _mark(cat_as_copies)

    pad_as_cat = lowering._pad_as_cat
    if not _patched(pad_as_cat):
        def no_pad_as_cat(x, *args, _pad=pad_as_cat, **kwargs):
            return None if _on_tpu(x) else _pad(x, *args, **kwargs)
        lowering._pad_as_cat = _mark(no_pad_as_cat)

    two_step = lowering.use_two_step_variance
    if not _patched(two_step):
        def two_step_as_cpu(x, *args, _two_step=two_step, **kwargs):
            if not _on_tpu(x):
                return _two_step(x, *args, **kwargs)
            # The non-CPU branch compares with unroll_reductions_threshold
            # where CPU's reads cpp.use_two_step_variance_threshold; the
            # rest of the test is the same.
            with config.patch(unroll_reductions_threshold=config.cpp.use_two_step_variance_threshold):
                return _two_step(x, *args, **kwargs)
        lowering.use_two_step_variance = _mark(two_step_as_cpu)

    constant_value = lowering.get_constant_value
    if not _patched(constant_value):
        # div_prim's only question to it: "is the divisor a constant?", and
        # a constant becomes a multiplication by its reciprocal except on
        # CPU (torch issue 157959: precision). No constant: a true division.
        def divisor_as_cpu(x, _constant=constant_value):
            return None if _on_tpu(x) else _constant(x)
        lowering.get_constant_value = _mark(divisor_as_cpu)
