"""A smoke run of an installed torch_tpu, outside the checkout
(tests/test_packaging.py copies it to a temporary folder and runs it with
`python -I`): one call into each part of the wheel that a source checkout
could hide a missing file from. The suite tests each part in depth; this only
proves the installed copy has it: the registrations of every generated
shard (elementwise stubs, reductions, matrix products, indexing, nn), the
ISA-dispatched kernels, the device LAPACK (scipy-openblas32, loaded at run
time), autograd, a fused optimizer, autocast, a custom operator, streams and
events across two devices, torch.save / torch.load, and the Python package's
torch.tpu module. Prints one line per check; exits non-zero on the first
failure."""

import io
import sys

import torch

import torch_tpu


def close(a, b, **kw):
    torch.testing.assert_close(a.cpu(), b, **kw)


def operators():
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(64, 48, generator=g), torch.randn(48, 32, generator=g)
    tx, ty = x.to("tpu"), y.to("tpu")
    close(tx @ ty, x @ y, atol=1e-4, rtol=1e-4)                        # GEMM (ISA dispatch)
    close((tx.exp() + 1).log().sum(1), (x.exp() + 1).log().sum(1))     # elementwise, reduction
    close(tx.sort(1).values, x.sort(1).values)                         # sorting
    close(tx[tx > 0], x[x > 0])                                        # indexing (data-dependent)
    close(torch.softmax(tx, 1), torch.softmax(x, 1))                   # nn
    a = torch.randn(8, 8, generator=g, dtype=torch.float64) + 8 * torch.eye(8, dtype=torch.float64)
    b = torch.randn(8, 3, generator=g, dtype=torch.float64)
    close(torch.linalg.solve(a.to("tpu"), b.to("tpu")), torch.linalg.solve(a, b))  # device LAPACK


def training():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 4)).to("tpu")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, fused=True)
    x, target = torch.randn(8, 16, device="tpu"), torch.randn(8, 4, device="tpu")
    losses = []
    with torch_tpu.no_fallback():
        for _ in range(3):
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), target)
            loss.backward()
            opt.step()
            losses.append(loss.item())
    assert losses[-1] < losses[0], losses
    with torch.autocast("tpu", dtype=torch.bfloat16):
        assert model(x).dtype == torch.bfloat16


def custom_operator():
    x, w = torch.randn(4, 16), torch.randn(16)
    expected = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
    close(torch.ops.tpu.rms_norm(x.to("tpu"), w.to("tpu"), 1e-6), expected, atol=1e-5, rtol=1e-5)


def streams_and_devices():
    assert torch.tpu.is_available() and torch.tpu.device_count() >= 2
    x = torch.arange(1000.0, device="tpu:1")
    side = torch.tpu.Stream(device=1)
    side.wait_stream(torch.tpu.current_stream(1))
    with torch.tpu.stream(side):
        y = x * 2
    done = torch.tpu.Event()
    done.record(side)
    torch.tpu.current_stream(1).wait_event(done)
    close(y.to("tpu:0"), torch.arange(1000.0) * 2)


def serialization():
    buf = io.BytesIO()
    torch.save({"a": torch.arange(6.0, device="tpu:1").view(2, 3).t()}, buf)
    buf.seek(0)
    loaded = torch.load(buf)["a"]
    assert loaded.device == torch.device("tpu:1") and loaded.stride() == (1, 3)
    close(loaded, torch.arange(6.0).view(2, 3).t())


CHECKS = [operators, training, custom_operator, streams_and_devices, serialization]


def main() -> int:
    print(f"torch_tpu from {torch_tpu.__file__}")
    for check in CHECKS:
        check()
        print(f"{check.__name__}: ok")
    assert torch_tpu.telemetry.fallback_calls() == {}, torch_tpu.telemetry.fallback_calls()
    print(f"installed smoke: {len(CHECKS)} checks ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
