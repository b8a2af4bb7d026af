"""torch.tpu.amp: CUDA's deprecated AMP names (torch.cuda.amp.autocast,
GradScaler, custom_fwd, custom_bwd) with "cuda" changed to "tpu" train as the
torch.amp names do, and warn as CUDA's do."""

import pytest
import torch

import torch_tpu  # noqa: F401


def _steps(old_names: bool):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1)).to("tpu")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.tpu.amp.GradScaler(init_scale=2.0**10) if old_names else torch.amp.GradScaler(
        "tpu", init_scale=2.0**10)
    g = torch.Generator().manual_seed(1)
    losses = []
    for _ in range(3):
        x = torch.randn(4, 8, generator=g).to("tpu")
        with (torch.tpu.amp.autocast() if old_names else torch.autocast("tpu", dtype=torch.float16)):
            out = model(x)
            assert out.dtype == torch.float16  # CUDA's default autocast dtype
            loss = out.float().pow(2).mean()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
        losses.append(loss.item())
    return losses, scaler.get_scale(), [p.detach().cpu() for p in model.parameters()]


def test_old_autocast_and_grad_scaler_train_as_torch_amp():
    with pytest.warns(FutureWarning) as record:
        old = _steps(old_names=True)
    messages = {str(w.message) for w in record}
    assert any("torch.amp.GradScaler('tpu'" in m for m in messages), messages
    assert any("torch.amp.autocast('tpu'" in m for m in messages), messages
    new = _steps(old_names=False)
    assert old[0] == new[0] and old[1] == new[1]
    for a, b in zip(old[2], new[2]):
        assert torch.equal(a, b)
    with pytest.warns(FutureWarning, match=r"torch.amp.autocast\('tpu'"):
        torch.tpu.amp.autocast(dtype=torch.bfloat16)


def test_old_custom_fwd_casts_inputs_under_tpu_autocast():
    with pytest.warns(FutureWarning):
        class Square(torch.autograd.Function):
            @staticmethod
            @torch.tpu.amp.custom_fwd(cast_inputs=torch.float32)
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            @torch.tpu.amp.custom_bwd
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                return 2 * x * grad

    x = torch.tensor([1.5, -2.0], device="tpu", dtype=torch.float16, requires_grad=True)
    with torch.autocast("tpu", dtype=torch.float16):
        y = Square.apply(x)
    assert y.dtype == torch.float32  # cast_inputs ran the forward in float32 on tpu
    y.sum().backward()
    assert torch.equal(x.grad.cpu(), torch.tensor([3.0, -4.0], dtype=torch.float16))
