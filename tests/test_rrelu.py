"""rrelu beyond OpInfo's samples, against CPU: its in-place and out= forms in
eval (leaky_relu with the mean slope), and in training the slopes it draws
(tpu generator) and the backward that multiplies by them."""

import torch
import torch.nn.functional as F

import torch_tpu  # noqa: F401

aten = torch.ops.aten


def test_rrelu_eval_in_place_and_out_match_cpu():
    x = torch.randn(64)
    expected = F.rrelu(x, 0.1, 0.3, training=False)
    y = x.to("tpu")
    F.rrelu(y, 0.1, 0.3, training=False, inplace=True)
    torch.testing.assert_close(y.cpu(), expected)
    noise = torch.empty(64, device="tpu")
    out = torch.empty(64, device="tpu")
    aten.rrelu_with_noise.out(x.to("tpu"), noise, 0.1, 0.3, False, out=out)
    torch.testing.assert_close(out.cpu(), expected)


def test_rrelu_training_draws_slopes_in_range():
    x = torch.randn(10000, device="tpu")
    noise = torch.empty_like(x)
    out = aten.rrelu_with_noise(x, noise, 0.1, 0.3, True)
    x, noise, out = x.cpu(), noise.cpu(), out.cpu()
    negative = x <= 0
    assert torch.all(noise[~negative] == 1)
    slopes = noise[negative]
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3
    assert 0.19 < slopes.mean() < 0.21  # uniform on [0.1, 0.3]
    torch.testing.assert_close(out, x * noise)
    # The backward multiplies by the recorded slopes.
    xg = x.to("tpu").requires_grad_()
    y = F.rrelu(xg, 0.1, 0.3, training=True)
    y.sum().backward()
    slope = (y.detach().cpu() / x).where(x != 0, torch.ones(()))
    torch.testing.assert_close(xg.grad.cpu(), slope)
