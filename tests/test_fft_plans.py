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


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
@pytest.mark.parametrize("n", [1, 2, 8, 12, 64, 97, 1024, 4098, 4099])
def test_lanes_and_strided_axes(n, dtype):
    """8 lines at a time, in the data's precision: 11 lines (a full block of
    contiguous lines, moved as transposed tiles plus an element-wise tail,
    then a partial block), along the last axis and along a strided one (11
    columns: a block of lines side by side, then a partial one);
    rfft/ihfft/rfft2 and irfft of even lengths (the half-length real
    transforms) and odd ones, and irfft of a longer signal than the
    spectrum gives (missing coefficients are 0). Tolerance: float rounding
    grows with log(n) and |x|."""
    g = torch.Generator().manual_seed(n)
    x = torch.randn(11, n, dtype=dtype, generator=g)
    eps = 2e-5 if dtype == torch.complex64 else 1e-12
    tol = dict(atol=eps * max(1.0, n ** 0.5), rtol=5 * eps)
    for dim in (-1, 0):
        torch.testing.assert_close(torch.fft.fft(x.to("tpu"), dim=dim).cpu(), torch.fft.fft(x, dim=dim), **tol)
        torch.testing.assert_close(torch.fft.ifft(x.to("tpu"), dim=dim).cpu(), torch.fft.ifft(x, dim=dim), **tol)
    real = x.real.contiguous()
    for fn in (torch.fft.rfft, torch.fft.ihfft):  # even n: the half-length real-input transform
        torch.testing.assert_close(fn(real.to("tpu")).cpu(), fn(real), **tol)
    torch.testing.assert_close(torch.fft.rfft2(real.to("tpu")).cpu(), torch.fft.rfft2(real), **tol)
    torch.testing.assert_close(torch.fft.rfft(real.to("tpu"), dim=0).cpu(), torch.fft.rfft(real, dim=0), **tol)
    spectrum = torch.fft.rfft(real)
    for length in (n, n + 1, 2 * n + 2):
        torch.testing.assert_close(torch.fft.irfft(spectrum.to("tpu"), n=length).cpu(),
                                   torch.fft.irfft(spectrum, n=length), **tol)


@pytest.mark.parametrize("n", [16, 4099])
def test_transform_of_a_strided_input_leaves_it_alone(n):
    """The first transform reads the input in place when it is contiguous
    (and writes a new tensor); later dims run in place on that tensor."""
    g = torch.Generator().manual_seed(1)
    x = torch.randn(24, n, dtype=torch.complex64, generator=g)
    xt = x.to("tpu")
    before = xt.cpu()
    for fn in (torch.fft.fft, torch.fft.ifft, torch.fft.fft2):
        torch.testing.assert_close(fn(xt).cpu(), fn(x), atol=1e-3, rtol=1e-4)
        torch.testing.assert_close(fn(xt.t()).cpu(), fn(x.t()), atol=1e-3, rtol=1e-4)
    assert torch.equal(xt.cpu(), before)
