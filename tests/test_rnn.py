"""nn.LSTM, nn.GRU and their cells on tpu against CPU: forward and backward
(inputs, states and every parameter's gradient), multi-layer, bidirectional,
batch_first and packed sequences. On tpu, nn.LSTM/nn.GRU on padded input run
one autograd node per layer and direction (lstm.input / gru.input in
ops.yaml: replaces_decomposition); packed sequences, projections and the
cells run the fused cells (_thnn_fused_lstm_cell / _thnn_fused_gru_cell and
their backwards, as on CUDA)."""

import copy

import pytest
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

import torch_tpu

TOL = {torch.float32: dict(atol=2e-5, rtol=2e-4), torch.float64: dict(atol=1e-10, rtol=1e-9)}


def _run(module, inputs):
    out = module(*inputs)
    tensors = [t for t in torch.utils._pytree.tree_leaves(out) if isinstance(t, torch.Tensor)]
    loss = sum((t.float() * (k + 1)).sum() for k, t in enumerate(tensors))
    loss.backward()
    grads = [p.grad for p in module.parameters()] + [t.grad for t in inputs if isinstance(t, torch.Tensor)]
    return tensors, grads


def _compare(make, inputs, dtype):
    torch.manual_seed(0)
    cpu = make().to(dtype)
    tpu = copy.deepcopy(cpu).to("tpu")
    cpu_in = [t.to(dtype).clone().requires_grad_() for t in inputs]
    tpu_in = [t.to(dtype).to("tpu").requires_grad_() for t in inputs]
    out_c, grad_c = _run(cpu, cpu_in)
    out_t, grad_t = _run(tpu, tpu_in)
    assert all(t.device.type == "tpu" for t in out_t)
    for a, b in zip(out_t + grad_t, out_c + grad_c):
        torch.testing.assert_close(a.cpu(), b, **TOL[dtype])


DTYPES = [torch.float32, torch.float64]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("layers,bidirectional,batch_first,bias",
                         [(1, False, False, True), (2, True, True, True), (2, False, False, False)])
def test_recurrent_layers_match_cpu(kind, dtype, layers, bidirectional, batch_first, bias):
    def make():
        return getattr(torch.nn, kind)(6, 5, num_layers=layers, bidirectional=bidirectional,
                                       batch_first=batch_first, bias=bias)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(3, 4, 6, generator=g)
    _compare(make, [x], dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("kind", ["LSTMCell", "GRUCell"])
def test_cells_match_cpu(kind, dtype):
    g = torch.Generator().manual_seed(2)
    x, h = torch.randn(3, 6, generator=g), torch.randn(3, 5, generator=g)
    make = lambda: getattr(torch.nn, kind)(6, 5)  # noqa: E731
    if kind == "LSTMCell":
        c = torch.randn(3, 5, generator=g)
        torch.manual_seed(0)
        cpu = make().to(dtype)
        tpu = copy.deepcopy(cpu).to("tpu")
        ins_c = [t.to(dtype).clone().requires_grad_() for t in (x, h, c)]
        ins_t = [t.to(dtype).to("tpu").requires_grad_() for t in (x, h, c)]
        out_c = cpu(ins_c[0], (ins_c[1], ins_c[2]))
        out_t = tpu(ins_t[0], (ins_t[1], ins_t[2]))
        (out_c[0].sum() + 2 * out_c[1].sum()).backward()
        (out_t[0].sum() + 2 * out_t[1].sum()).backward()
        for a, b in zip(list(out_t) + [t.grad for t in ins_t] + [p.grad for p in tpu.parameters()],
                        list(out_c) + [t.grad for t in ins_c] + [p.grad for p in cpu.parameters()]):
            torch.testing.assert_close(a.cpu(), b, **TOL[dtype])
    else:
        _compare(make, [x, h], dtype)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_packed_sequences_match_cpu(kind):
    g = torch.Generator().manual_seed(3)
    x = torch.randn(4, 5, 6, generator=g)  # (batch, time, features)
    lengths = torch.tensor([5, 3, 2, 1])

    def forward(module, inp):
        packed = pack_padded_sequence(inp, lengths, batch_first=True)
        out, _ = module(packed)
        return pad_packed_sequence(out, batch_first=True)[0]

    torch.manual_seed(0)
    cpu = getattr(torch.nn, kind)(6, 5, batch_first=True, num_layers=2)
    tpu = copy.deepcopy(cpu).to("tpu")
    xc, xt = x.clone().requires_grad_(), x.to("tpu").requires_grad_()
    yc, yt = forward(cpu, xc), forward(tpu, xt)
    yc.sum().backward()
    yt.sum().backward()
    torch.testing.assert_close(yt.cpu(), yc, **TOL[torch.float32])
    torch.testing.assert_close(xt.grad.cpu(), xc.grad, **TOL[torch.float32])
    for a, b in zip(tpu.parameters(), cpu.parameters()):
        torch.testing.assert_close(a.grad.cpu(), b.grad, **TOL[torch.float32])


def _layer_calls(kind):
    ops = torch_tpu.stats()["ops"]
    cell = "aten::_thnn_fused_lstm_cell" if kind == "LSTM" else "aten::_thnn_fused_gru_cell"
    return ops.get(f"aten::{kind.lower()}.input", {}), ops.get(cell, {})


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_layers_run_one_node_per_layer(kind):
    """The layer path, not upstream's per-step decomposition: no fused cell
    calls, one backward node per layer and direction."""
    torch_tpu.reset_stats()
    m = getattr(torch.nn, kind)(6, 5, num_layers=2, bidirectional=True).to("tpu")
    x = torch.randn(7, 3, 6, device="tpu", requires_grad=True)
    out, _ = m(x)
    layer, cell = _layer_calls(kind)
    assert layer == {"direct": 1} and not cell
    seen, layers, stack = set(), 0, [out.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        layers += fn.name().endswith(f"{kind.capitalize()}Layer>")
        stack.extend(f for f, _ in fn.next_functions)
    assert layers == 4  # 2 layers x 2 directions


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("kind,which", [("LSTM", "output"), ("LSTM", "final_h"), ("LSTM", "final_c"),
                                        ("GRU", "output"), ("GRU", "final_h")])
def test_given_states_and_partial_gradients_match_cpu(kind, dtype, which):
    """h0 (c0) given and requiring grad; the loss reads only one result, so
    the others' gradients reach the layer undefined."""
    g = torch.Generator().manual_seed(4)
    x, h0, c0 = torch.randn(4, 3, 6, generator=g), torch.randn(2, 3, 5, generator=g), torch.randn(2, 3, 5, generator=g)
    torch.manual_seed(0)
    cpu = getattr(torch.nn, kind)(6, 5, num_layers=2).to(dtype)
    tpu = copy.deepcopy(cpu).to("tpu")
    results = []
    for module, dev in ((cpu, "cpu"), (tpu, "tpu")):
        ins = [t.to(dtype).to(dev).detach().requires_grad_() for t in ((x, h0, c0) if kind == "LSTM" else (x, h0))]
        out, state = module(ins[0], tuple(ins[1:]) if kind == "LSTM" else ins[1])
        h, c = state if kind == "LSTM" else (state, None)
        picked = {"output": out, "final_h": h, "final_c": c}[which]
        (picked * torch.linspace(-1, 1, picked.numel(), dtype=dtype, device=dev).view_as(picked)).sum().backward()
        results.append([out, h] + [t.grad for t in ins] + [p.grad for p in module.parameters()])
    for a, b in zip(results[1], results[0]):
        torch.testing.assert_close(a.cpu(), b, **TOL[dtype])


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_half_precision_layers_match_cpu_float32(kind, dtype):
    """float16/bfloat16 storage, gate arithmetic in float: against CPU's
    float32 result from the same rounded weights and inputs."""
    torch.manual_seed(0)
    ref = getattr(torch.nn, kind)(16, 8, num_layers=2, batch_first=True).to(dtype).float()
    tpu = copy.deepcopy(ref).to(dtype).to("tpu")
    x = torch.randn(2, 9, 16).to(dtype)
    xr, xt = x.float().requires_grad_(), x.to("tpu").requires_grad_()
    yr, yt = ref(xr)[0], tpu(xt)[0]
    assert yt.dtype == dtype
    yr.sum().backward()
    yt.float().sum().backward()
    tol = dict(atol=2e-2, rtol=2e-2) if dtype == torch.float16 else dict(atol=6e-2, rtol=6e-2)
    torch.testing.assert_close(yt.float().cpu(), yr, **tol)
    torch.testing.assert_close(xt.grad.float().cpu(), xr.grad, **tol)
    for a, b in zip(tpu.parameters(), ref.parameters()):
        torch.testing.assert_close(a.grad.float().cpu(), b.grad, **tol)


def test_lstm_with_projections_matches_cpu():
    """proj_size: the layer path does not cover it; upstream's decomposition runs."""
    def make():
        return torch.nn.LSTM(6, 5, num_layers=2, proj_size=3, bidirectional=True)
    g = torch.Generator().manual_seed(5)
    _compare(make, [torch.randn(4, 3, 6, generator=g)], torch.float32)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_inference_mode_and_eval_dropout_match_cpu(kind):
    """Under InferenceMode the PrivateUse1 registration runs (no autograd
    key); in eval mode the dropout between layers is off."""
    torch.manual_seed(0)
    cpu = getattr(torch.nn, kind)(6, 5, num_layers=3, dropout=0.4).eval()
    tpu = copy.deepcopy(cpu).to("tpu")
    x = torch.randn(5, 2, 6)
    with torch.inference_mode():
        yc, yt = cpu(x)[0], tpu(x.to("tpu"))[0]
    torch.testing.assert_close(yt.cpu(), yc, **TOL[torch.float32])


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_training_dropout_between_layers(kind):
    """Dropout in training mode: applied between layers (not after the last)."""
    torch.manual_seed(0)
    m = getattr(torch.nn, kind)(6, 5, num_layers=2, dropout=0.9).to("tpu")
    x = torch.randn(5, 2, 6, device="tpu", requires_grad=True)
    train_out = m(x)[0]
    train_out.sum().backward()
    eval_out = m.eval()(x)[0]
    assert not torch.allclose(train_out.cpu(), eval_out.cpu())
    assert torch.isfinite(x.grad.cpu()).all()


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_double_backward_is_refused(kind):
    """As with cuDNN on CUDA: backward with create_graph=True gives CPU's
    gradients; differentiating them again raises."""
    torch.manual_seed(0)
    cpu = getattr(torch.nn, kind)(4, 3)
    m = copy.deepcopy(cpu).to("tpu")
    xc = torch.randn(2, 1, 4, requires_grad=True)
    (gxc,) = torch.autograd.grad(cpu(xc)[0].sum(), xc, create_graph=True)
    x = xc.detach().to("tpu").requires_grad_()
    (gx,) = torch.autograd.grad(m(x)[0].sum(), x, create_graph=True)
    torch.testing.assert_close(gx.cpu(), gxc, **TOL[torch.float32])
    assert gx.requires_grad
    with pytest.raises(NotImplementedError, match="double backward"):
        torch.autograd.grad(gx.sum(), x)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_torch_func_transforms_match_cpu(kind):
    """torch.func refuses C++ autograd::Functions: under its transforms the
    layers take upstream's decomposition instead."""
    torch.manual_seed(0)
    cpu = getattr(torch.nn, kind)(4, 3)
    tpu = copy.deepcopy(cpu).to("tpu")
    x = torch.randn(5, 2, 4)

    def grads(module, inp):
        params = dict(module.named_parameters())
        loss = lambda p: torch.func.functional_call(module, p, (inp,))[0].pow(2).sum()  # noqa: E731
        return torch.func.grad(loss)(params)

    gc, gt = grads(cpu, x), grads(tpu, x.to("tpu"))
    for name in gc:
        torch.testing.assert_close(gt[name].cpu(), gc[name], **TOL[torch.float32])
    # After the transform the layer path is back (functorch's TLS outlives it).
    torch_tpu.reset_stats()
    tpu(x.to("tpu"))
    layer, cell = _layer_calls(kind)
    assert layer == {"direct": 1} and not cell
