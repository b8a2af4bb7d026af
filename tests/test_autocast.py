"""torch.autocast("tpu"): the policies ops.yaml declares (AutocastPrivateUse1,
csrc/generated/register_autocast.cpp), beyond what the generated per-op
autocast checks cover: type promotion without autocast, the other devices'
autocast, the cast cache, autograd, unsupported dtypes and a training step."""

import copy
import os
import sys
import warnings

import pytest
import torch

import torch_tpu

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "examples"))
import train_gpt  # noqa: E402

LOW = [torch.bfloat16, torch.float16]


def rand(*shape, dtype=torch.float32, device="tpu"):
    g = torch.Generator().manual_seed(sum(shape))
    return torch.randn(*shape, generator=g).to(dtype).to(device)


@pytest.mark.parametrize("low", LOW)
def test_one_op_per_policy(low):
    a, b = rand(4, 8), rand(8, 3)
    with torch.autocast("tpu", dtype=low):
        assert (a @ b).dtype == low                                  # lower_precision_fp
        assert torch.nn.functional.linear(a, b.t()).dtype == low     # ... on a composite
        assert torch.exp(a.to(low)).dtype == torch.float32           # fp32
        assert a.to(low).sum().dtype == torch.float32                # fp32_set_opt_dtype
        assert a.to(low).sum(dtype=torch.float64).dtype == torch.float64  # ... unless given
        assert torch.addcmul(a, a.to(low), a.to(low)).dtype == torch.float32  # promote
        assert torch.addcmul(a.to(low), a.to(low), a.to(low)).dtype == low
        ln = torch.nn.functional.layer_norm(a.to(low), (8,))
        assert ln.dtype == torch.float32                             # fp32 on a composite
    torch.testing.assert_close((a @ b).to(low).cpu(), (a.cpu().to(low) @ b.cpu().to(low)),
                               atol=5e-2, rtol=2e-2)


@pytest.mark.parametrize("low", LOW)
def test_type_promotion_holds_without_autocast_and_for_ops_without_policy(low):
    a, h = rand(4, 8), rand(4, 8, dtype=low)
    for ctx in (torch.autocast("tpu", enabled=False), torch.autocast("tpu", dtype=low)):
        with ctx:
            # add/mul have no policy: ordinary promotion, as CPU eager.
            for x, y in ((a, h), (h, 2.5), (h, torch.tensor(3, device="tpu")), (h, a[0, 0])):
                got = (x + y).dtype
                expected = (x.cpu() + (y.cpu() if isinstance(y, torch.Tensor) else y)).dtype
                assert got == expected == torch.result_type(x, y)
    with torch.autocast("tpu", enabled=False):
        assert (a @ a.t()).dtype == torch.float32
        assert torch.exp(h).dtype == low
    assert (a @ a.t()).dtype == torch.float32  # outside any autocast region


def test_other_devices_autocast_leaves_tpu_alone_and_back():
    a = rand(4, 4)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert (a @ a).dtype == torch.float32          # tpu tensors: not CPU autocast's
        assert (a.cpu() @ a.cpu()).dtype == torch.bfloat16
    with torch.autocast("tpu", dtype=torch.bfloat16):
        assert (a.cpu() @ a.cpu()).dtype == torch.float32
        assert (a @ a).dtype == torch.bfloat16


def test_double_and_integer_inputs_are_not_cast():
    d, i = rand(3, 3, dtype=torch.float64), torch.arange(9, device="tpu").view(3, 3)
    with torch.autocast("tpu", dtype=torch.bfloat16):
        assert (d @ d).dtype == torch.float64   # is_eligible: not double
        assert (i @ i).dtype == torch.int64     # not floating
        assert torch.exp(d).dtype == torch.float64


def test_cast_cache_casts_a_weight_once_per_region():
    w = torch.nn.Parameter(rand(8, 8))
    x = rand(2, 8)
    def casts_of(n_uses):
        torch_tpu.reset_stats()
        with torch.autocast("tpu", dtype=torch.bfloat16):
            for _ in range(n_uses):
                x @ w
        return torch_tpu.stats()["copies"]["d2d"]["calls"]
    # every use casts x (not a leaf that requires grad: not cached), w only once
    assert casts_of(3) - casts_of(1) == 2
    assert torch.is_autocast_cache_enabled()


def test_backward_through_autocast_gives_float32_grads_like_cpu():
    w_cpu = torch.nn.Parameter(torch.randn(8, 8, generator=torch.Generator().manual_seed(0)))
    w = torch.nn.Parameter(w_cpu.detach().to("tpu"))
    x = rand(4, 8)
    with torch.autocast("tpu", dtype=torch.bfloat16):
        y = torch.nn.functional.softmax(x @ w, dim=-1)   # bf16 matmul, float32 softmax
        assert y.dtype == torch.float32
    y.sum().backward()
    assert w.grad.dtype == torch.float32
    # The same computation cast by hand on CPU.
    y_cpu = torch.nn.functional.softmax((x.cpu().bfloat16() @ w_cpu.bfloat16()).float(), dim=-1)
    y_cpu.sum().backward()
    torch.testing.assert_close(w.grad.cpu(), w_cpu.grad, atol=2e-2, rtol=2e-2)


def test_unsupported_dtype_warns_and_disables():
    a = rand(2, 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.autocast("tpu", dtype=torch.float64):
            assert (a @ a).dtype == torch.float32
    assert any("not supported" in str(w.message) for w in caught)
    assert torch.get_autocast_dtype("tpu") in (torch.float16, torch.bfloat16)


def test_gpt_trains_under_autocast_without_fallback():
    torch.manual_seed(0)
    reference = train_gpt.GPT()
    model = copy.deepcopy(reference)
    fp32 = train_gpt.train(reference, "tpu", 6)
    torch_tpu.reset_stats()
    with torch_tpu.no_fallback():
        amp = train_gpt.train(model, "tpu", 6, amp_dtype=torch.bfloat16)
    # bfloat16 matmuls (8 mantissa bits) move the loss by well under 1%.
    torch.testing.assert_close(torch.tensor(amp), torch.tensor(fp32), rtol=2e-2, atol=2e-2)
    assert amp != fp32  # autocast did change the arithmetic
    x, y = next(train_gpt.batches(1, 2, 32, 96))
    with torch.autocast("tpu", dtype=torch.bfloat16):
        logits = model.head(model.ln(model.tok(x.to("tpu"))))
    assert logits.dtype == torch.bfloat16


def _aten_overloads_with(key):
    found = set()
    for s in torch._C._jit_get_all_schemas():
        if not s.name.startswith("aten::"):
            continue
        name = s.name + (f".{s.overload_name}" if s.overload_name else "")
        try:
            if torch._C._dispatch_has_kernel_for_dispatch_key(name, key):
                found.add(name[len("aten::"):])
        except RuntimeError:  # schemas of JIT-only operators
            pass
    return found


def test_reference_lists_are_what_cuda_registers():
    """codegen/facts/autocast.py reads CUDA's lists from ATen/autocast_mode.h: they
    are exactly the ops with an AutocastCUDA kernel, but for two cuDNN-only
    ones and the one op CUDA bans under autocast."""
    from codegen.facts import autocast

    listed = set(autocast.reference().policies)
    cuda = _aten_overloads_with("AutocastCUDA")
    assert cuda - listed == {"binary_cross_entropy", "cudnn_convolution",
                             "cudnn_convolution_transpose"}
    assert listed - cuda == set()


def test_tpu_registers_exactly_the_manifest_policies():
    from codegen.model import manifest

    entries = manifest.load(os.path.join(os.path.dirname(os.path.dirname(__file__)), "ops.yaml"))
    declared = {e.op for e in entries if e.autocast not in ("", "none")}
    assert _aten_overloads_with("AutocastPrivateUse1") == declared
    assert torch._C._dispatch_has_backend_fallback(torch._C.DispatchKey.AutocastPrivateUse1)
