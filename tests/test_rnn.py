"""nn.LSTM, nn.GRU and their cells on tpu against CPU: forward and backward
(inputs, states and every parameter's gradient), multi-layer, bidirectional,
batch_first and packed sequences. On tpu they run the fused cells
(_thnn_fused_lstm_cell / _thnn_fused_gru_cell and their backwards, as on
CUDA); on CPU ATen composes the cell from matmuls and pointwise ops."""

import copy

import pytest
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

import torch_tpu  # noqa: F401

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
