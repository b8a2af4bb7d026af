"""The FFT's plan cache (kernels/fft/fft.cpp): plans are kept per length and
the oldest half dropped past 64 lengths, so transforms of many lengths, and
of a length again after its plan was dropped, must keep CPU's values.
Lengths 1..100 cover radix-2 and Bluestein plans."""

import pytest
import torch

torch_tpu = pytest.importorskip("torch_tpu")


def test_many_lengths_and_evicted_plans_agree_with_cpu():
    g = torch.Generator().manual_seed(0)
    signals = {n: torch.randn(3, n, dtype=torch.complex128, generator=g) for n in range(1, 101)}
    for n in list(range(1, 101)) + [1, 7, 64, 97]:  # the first lengths' plans were dropped by then
        x = signals[n]
        torch.testing.assert_close(torch.fft.fft(x.to("tpu")).cpu(), torch.fft.fft(x), atol=1e-10, rtol=1e-10)
        torch.testing.assert_close(torch.fft.ifft(x.to("tpu")).cpu(), torch.fft.ifft(x), atol=1e-10, rtol=1e-10)
