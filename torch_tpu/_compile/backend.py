"""torch.compile(backend="tpu"): the Dynamo backend name that Google's
TorchTPU registers and that transformers passes for device "tpu" (its
static-cache generate() compiles the decoding step with it). Here it is
Inductor with torch_tpu's registrations: the same graphs, kernels and
modes ("reduce-overhead" replays tpu graphs) as backend="inductor" on tpu
tensors. It is found through the package's "torch_dynamo_backends" entry
point (pyproject.toml), so naming it needs no import of torch_tpu first.

torch.backends.tpu.allow_excess_precision (default True, as Inductor)
applies here: False keeps every float16/bfloat16 rounding that eager makes
(Inductor's emulate_precision_casts) in graphs compiled by this backend.
"""

from __future__ import annotations


def tpu(gm, example_inputs, mode=None, options=None):
    import torch

    from .. import backends

    patches = dict(options or {})
    patches.setdefault("emulate_precision_casts", not backends.allow_excess_precision)
    return torch._TorchCompileInductorWrapper(mode, patches, dynamic=None)(gm, example_inputs)
