"""Every out= overload refuses an out on another device than its inputs, as
CUDA's do (torchgen checks the devices of CUDA's kernels). The generated
out= contract (tests/generated/test_out_contract.py) covers the ops.yaml
entries; these are the out= overloads no entry registers, which reach tpu
through ATen's CompositeExplicitAutograd kernel (addr.out's math_addr_out,
torchgen's autogen out= kernels). That kernel computes the result and copies
it into out wherever out lives, so the generator registers a device check in
front of it for each (codegen/emit/composite_out_checks.py).

  test_every_composite_out_overload_is_checked   all of them, from the
        dispatcher: each has a tpu kernel (the check), unless upstream itself
        does not check devices (device_check: NoCheck) or it copies between
        devices by definition
  test_out_on_another_device_is_rejected   the out= contract's two device
        rules (tests/out_contract_harness.py) on every OpInfo the generated
        contract does not run whose out= call reaches such an overload:
        RuntimeError naming the device, before anything reaches the device,
        the out untouched
"""

from __future__ import annotations

import os
import re

import pytest
import torch
from torch.testing._internal.common_methods_invocations import op_db

import torch_tpu  # noqa: F401
from codegen.emit.composite_out_checks import CROSS_DEVICE
from codegen.facts import upstream
from codegen.model import manifest
from out_contract_harness import Contract, run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXCLUDED = {d.op for d in manifest.load_declared(os.path.join(ROOT, "ops.yaml")) if d.kind == "exclude"}


def _composite_out_overloads():
    """(name, upstream checks devices) of every aten out= overload with two or
    more tensor arguments whose tpu kernel, without one of its own, would be
    ATen's CompositeExplicitAutograd kernel (a CompositeImplicitAutograd one
    decomposes into ops that check for themselves)."""
    found = []
    for qualified in torch._C._dispatch_get_all_op_names():
        if not qualified.startswith("aten::"):
            continue
        name = qualified[len("aten::"):]
        base, _, overload = name.partition(".")
        schema = torch._C._get_schema("aten::" + base, overload)
        if not any(a.is_out for a in schema.arguments):
            continue
        if sum("Tensor" in str(a.type) for a in schema.arguments) < 2:
            continue
        if not torch._C._dispatch_has_kernel_for_dispatch_key(qualified, "CompositeExplicitAutograd") or \
                torch._C._dispatch_has_kernel_for_dispatch_key(qualified, "CompositeImplicitAutograd"):
            continue
        source = upstream.lookup(name) or upstream.lookup(upstream.autogen_ops().get(name, ""))
        found.append((name, source is None or source.device_check))
    return sorted(found)


def test_every_composite_out_overload_is_checked():
    overloads = _composite_out_overloads()
    assert len(overloads) > 300  # a sanity bound: torch 2.13 has ~320 of them
    unchecked = [name for name, checks in overloads
                 if checks and name not in CROSS_DEVICE and name not in EXCLUDED
                 and not torch._C._dispatch_has_kernel_for_dispatch_key("aten::" + name, "PrivateUse1")]
    assert not unchecked, f"out= overloads that accept an out on any device: {unchecked}"


def _generated_contract_opinfos() -> set:
    """The OpInfos the generated out= contract already runs (the entries')."""
    with open(os.path.join(ROOT, "tests", "generated", "test_out_contract.py")) as f:
        return set(re.findall(r"contract\('[^']*', '[^']*', '[^']*', '([^']*)'", f.read()))


def _opinfo_cases():
    composite = {name for name, checks in _composite_out_overloads() if checks}
    covered = _generated_contract_opinfos()
    cases = []
    for op in op_db:
        if not op.supports_out or op.name in covered:
            continue
        overloads = sorted(o for o in composite if o.split(".")[0] == op.aten_name)
        if not overloads:
            continue
        supported = op.supported_dtypes("cpu")
        dtype = next((d for d in (torch.float32, torch.float64, torch.int64) if d in supported), None)
        if dtype is None:
            continue
        sample = next(iter(op.sample_inputs("cpu", dtype)), None)
        if sample is None or not isinstance(sample.input, torch.Tensor):
            continue  # a factory (logspace): no input device for out to differ from
        for rule in ("wrong_device_cpu", "wrong_device_peer"):
            c = Contract(op.aten_name, overloads[0], rule, op.name, op.variant_test_name,
                         str(dtype).removeprefix("torch."))
            cases.append(pytest.param(c, id=c.id))
    return cases


@pytest.mark.parametrize("contract", _opinfo_cases())
def test_out_on_another_device_is_rejected(contract):
    run(contract)
