"""convolution and convolution_backward on tpu against CPU eager: 1d/2d/3d,
stride, padding, dilation, groups, transposed with output_padding, bias or
none, every floating dtype and uint8..int64 (forward, exact), empty batches, non-contiguous and channels-last
inputs, each output_mask, and the errors ATen raises for bad arguments.
The generated OpInfo tests cover convolution's forward samples; this file
covers its backward, which autograd reaches through convolution_backward."""

import pytest
import torch
import torch.nn.functional as F

import torch_tpu

TOL = {torch.float32: dict(atol=1e-4, rtol=1e-4), torch.float64: dict(atol=1e-10, rtol=1e-10),
       torch.float16: dict(atol=1e-2, rtol=1e-2), torch.bfloat16: dict(atol=8e-2, rtol=5e-2)}


def rand(shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)


def close(tpu, cpu, dtype):
    torch.testing.assert_close(tpu.cpu(), cpu, **TOL[dtype])


# (input shape, weight shape, stride, padding, dilation, groups, transposed, output_padding)
CASES = [
    ((2, 3, 9), (4, 3, 3), [1], [0], [1], 1, False, [0]),
    ((2, 4, 10), (6, 2, 4), [2], [1], [2], 2, False, [0]),
    ((2, 3, 8, 7), (5, 3, 3, 3), [1, 1], [1, 1], [1, 1], 1, False, [0, 0]),
    ((1, 4, 9, 11), (4, 1, 3, 2), [2, 3], [1, 0], [1, 2], 4, False, [0, 0]),
    ((3, 8, 6, 6), (16, 8, 1, 1), [1, 1], [0, 0], [1, 1], 1, False, [0, 0]),  # 1x1: no im2col
    ((2, 6, 5, 5), (6, 3, 1, 1), [2, 2], [0, 0], [1, 1], 2, False, [0, 0]),   # strided 1x1
    ((1, 2, 5, 6, 4), (3, 2, 2, 3, 2), [1, 2, 1], [1, 0, 1], [1, 1, 2], 1, False, [0, 0, 0]),
    ((2, 3, 7), (3, 2, 3), [2], [1], [1], 1, True, [1]),
    ((2, 4, 5, 4), (4, 3, 3, 3), [2, 1], [1, 0], [1, 2], 2, True, [1, 0]),
    ((1, 3, 4, 4), (3, 2, 2, 2), [2, 2], [0, 0], [1, 1], 1, True, [0, 0]),
    ((1, 2, 3, 4, 3), (2, 2, 2, 2, 2), [1, 2, 2], [0, 1, 0], [1, 1, 1], 1, True, [0, 1, 1]),
    # 1-d and 2-d im2col/col2im read a padded copy of each plane (conv.cpp,
    # PaddedPlane): padding past the kernel (windows wholly in the border),
    # the small images' fixed-width rows, odd widths, dilation with stride.
    ((2, 3, 4, 4), (2, 3, 3, 3), [1, 1], [3, 2], [1, 1], 1, False, [0, 0]),
    ((3, 4, 8, 8), (5, 4, 3, 3), [1, 1], [1, 1], [1, 1], 1, False, [0, 0]),
    ((2, 2, 7), (3, 2, 2), [3], [4], [3], 1, False, [0]),
    ((2, 4, 6, 5), (4, 2, 3, 3), [2, 2], [2, 1], [2, 1], 2, True, [1, 0]),
]

# Column buffers of over a million elements: the images go through in
# passes (conv.cpp, images_per_pass), here of 3 and then 2 images.
PASS_CASES = [
    ((5, 16, 48, 48), (4, 16, 3, 3), [1, 1], [1, 1], [1, 1], 1, False, [0, 0]),
    ((5, 16, 48, 48), (8, 8, 3, 3), [1, 1], [1, 1], [1, 1], 2, False, [0, 0]),
    ((5, 16, 32, 32), (16, 32, 3, 3), [1, 1], [1, 1], [1, 1], 1, True, [0, 0]),
]
EPS = {torch.float32: 1e-5, torch.float64: 1e-12, torch.float16: 2e-3, torch.bfloat16: 1.6e-2}


def conv_args(case):
    _, _, stride, padding, dilation, groups, transposed, output_padding = case
    return stride, padding, dilation, transposed, output_padding, groups


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("case", CASES, ids=[str(i) for i in range(len(CASES))])
def test_forward_and_backward_match_cpu(case, dtype, bias):
    shape, wshape = case[0], case[1]
    out_channels = wshape[1] * case[5] if case[6] else wshape[0]
    x, w = rand(shape, dtype), rand(wshape, dtype, seed=1)
    b = rand((out_channels,), dtype, seed=2) if bias else None
    args = conv_args(case)
    leaves_cpu = [t.clone().requires_grad_() for t in (x, w, b) if t is not None]
    leaves_tpu = [t.to("tpu").requires_grad_() for t in (x, w, b) if t is not None]

    def run(leaves):
        bb = leaves[2] if bias else None
        return torch.convolution(leaves[0], leaves[1], bb, *args)

    y_cpu = run(leaves_cpu)
    with torch_tpu.no_fallback():
        y_tpu = run(leaves_tpu)
    close(y_tpu, y_cpu.detach(), dtype)
    assert y_tpu.is_contiguous()
    g = rand(y_cpu.shape, dtype, seed=3)
    grads_cpu = torch.autograd.grad(y_cpu, leaves_cpu, g)
    with torch_tpu.no_fallback():
        grads_tpu = torch.autograd.grad(y_tpu, leaves_tpu, g.to("tpu"))
    for a, e in zip(grads_tpu, grads_cpu):
        assert a.dtype == e.dtype and a.shape == e.shape
        close(a, e, dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("case", PASS_CASES, ids=["groups1", "groups2", "transposed"])
def test_passes_of_images_match_float64(case, dtype):
    # Sums of 144-288 products: CPU's own float16 result is itself a few
    # units off there, so both are held to the float64 result of the same
    # inputs, within the dtype's rounding of the largest value.
    x, w = rand(case[0], dtype), rand(case[1], dtype, seed=1)
    args = conv_args(case)
    xd, wd = x.double().requires_grad_(), w.double().requires_grad_()
    ref = torch.convolution(xd, wd, None, *args)
    g = rand(ref.shape, dtype, seed=3)
    ref_grads = torch.autograd.grad(ref, (xd, wd), g.double())
    xt, wt = x.to("tpu").requires_grad_(), w.to("tpu").requires_grad_()
    with torch_tpu.no_fallback():
        y = torch.convolution(xt, wt, None, *args)
        grads = torch.autograd.grad(y, (xt, wt), g.to("tpu"))
    for got, want in zip((y, *grads), (ref, *ref_grads)):
        assert got.dtype == dtype and got.shape == want.shape
        scale = want.abs().max().item()
        torch.testing.assert_close(got.detach().cpu().double(), want.detach(), rtol=EPS[dtype],
                                   atol=EPS[dtype] * scale)


@pytest.mark.parametrize("mask", [(True, False, False), (False, True, False), (False, False, True),
                                  (True, True, True)])
def test_backward_output_mask(mask):
    x, w, gy = rand((2, 3, 6, 6)), rand((4, 3, 3, 3), seed=1), rand((2, 4, 4, 4), seed=2)
    args = ([4], [1, 1], [0, 0], [1, 1], False, [0, 0], 1, list(mask))
    expected = torch.ops.aten.convolution_backward(gy, x, w, *args)
    with torch_tpu.no_fallback():
        got = torch.ops.aten.convolution_backward(gy.to("tpu"), x.to("tpu"), w.to("tpu"), *args)
    for m, a, e in zip(mask, got, expected):
        assert (a is None) == (not m)
        if m:
            close(a, e, torch.float32)


def test_gradcheck_grouped_strided():
    x = rand((1, 4, 5, 6), torch.float64).to("tpu").requires_grad_()
    w = rand((4, 2, 2, 3), torch.float64, seed=1).to("tpu").requires_grad_()
    b = rand((4,), torch.float64, seed=2).to("tpu").requires_grad_()
    fn = lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=2)
    assert torch.autograd.gradcheck(fn, (x, w, b))
    fn_t = lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2)
    wt = rand((4, 2, 3, 3), torch.float64, seed=4).to("tpu").requires_grad_()
    assert torch.autograd.gradcheck(fn_t, (x, wt, b))


def test_layouts_and_empty_batch():
    x = rand((2, 3, 8, 8))
    w = rand((5, 3, 3, 3), seed=1)
    xt = x.to("tpu")
    cl = xt.contiguous(memory_format=torch.channels_last)
    strided = xt.transpose(2, 3)
    with torch_tpu.no_fallback():
        y_cl = F.conv2d(cl, w.to("tpu"), padding=1)
        y_strided = F.conv2d(strided, w.to("tpu"))
        empty = F.conv2d(xt[:0], w.to("tpu"))
    close(y_cl, F.conv2d(x, w, padding=1), torch.float32)
    close(y_strided, F.conv2d(x.transpose(2, 3), w), torch.float32)
    assert empty.shape == (0, 5, 6, 6)
    # Contiguous whatever the input layout: what FakeTensor predicts for tpu.
    assert y_cl.is_contiguous()
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode(allow_non_fake_inputs=True) as mode:
        fake = F.conv2d(mode.from_tensor(cl), mode.from_tensor(w.to("tpu")), padding=1)
    assert fake.stride() == y_cl.stride()


def test_nn_modules_train_on_tpu():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(),
                                torch.nn.Conv2d(8, 4, 3, stride=2, groups=4, bias=False))
    x = rand((4, 3, 10, 10))
    ref = [p.detach().clone() for p in model.parameters()]
    y_cpu = model(x).square().sum()
    y_cpu.backward()
    grads_cpu = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    model.to("tpu")
    with torch_tpu.no_fallback():
        y = model(x.to("tpu")).square().sum()
        y.backward()
    torch.testing.assert_close(y.cpu(), y_cpu.detach(), atol=1e-3, rtol=1e-4)
    for p, g, r in zip(model.parameters(), grads_cpu, ref):
        torch.testing.assert_close(p.detach().cpu(), r)
        torch.testing.assert_close(p.grad.cpu(), g, atol=1e-3, rtol=1e-4)


@pytest.mark.parametrize("wdtype,call,match", [
    (None, lambda x, w: F.conv2d(x, w[:, :2]), "expected input.* to have 2 channels, but got 4"),
    (None, lambda x, w: F.conv2d(x, w, stride=0), "non-positive stride"),
    (None, lambda x, w: F.conv2d(x, w, padding=-1), "negative padding"),
    (None, lambda x, w: F.conv2d(x[..., :2, :2], w), "Kernel size can't be greater than actual input size"),
    (torch.float64, lambda x, w: F.conv2d(x, w), "should be the same"),
    (None, lambda x, w: F.conv2d(x, w, groups=3), "to have 12 channels, but got 4"),
    (None, lambda x, w: F.conv_transpose2d(x, w[:4], groups=3), "divisible by 3 at dimension 0"),
    (None, lambda x, w: torch.convolution(x, w[..., 0], None, [1], [0], [1], False, [0], 1), "-dimensional input"),
])
def test_bad_arguments_raise_like_cpu(wdtype, call, match):
    x, w = rand((2, 4, 5, 5)), rand((6, 4, 3, 3), wdtype or torch.float32, seed=1)
    with pytest.raises(RuntimeError, match=match):
        call(x, w)
    xt, wt = x.to("tpu"), w.to("tpu")
    before = torch_tpu.stats()["launches"]
    with pytest.raises(RuntimeError, match=match):
        call(xt, wt)
    assert torch_tpu.stats()["launches"] == before  # rejected before anything ran


def test_wrong_device_and_unsupported_dtypes_are_rejected():
    x, w = rand((1, 2, 4, 4)), rand((3, 2, 3, 3), seed=1)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        torch.convolution(x.to("tpu"), w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)
    with pytest.raises(NotImplementedError):  # CPU has no bool kernel either
        F.conv2d(x.to(torch.bool).to("tpu"), w.to(torch.bool).to("tpu"))
    # Complex: aten::convolution itself has no complex kernel on CPU either;
    # F.conv2d splits complex input into real convolutions first (ATen's
    # complex_convolution), on tpu as on CPU.
    xc, wc = torch.complex(x, x.flip(-1)), torch.complex(w, -w)
    args = (None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)
    with pytest.raises(NotImplementedError):
        torch.convolution(xc, wc, *args)
    with pytest.raises(NotImplementedError):
        torch.convolution(xc.to("tpu"), wc.to("tpu"), *args)
    with torch_tpu.no_fallback():
        torch.testing.assert_close(F.conv2d(xc.to("tpu"), wc.to("tpu")).cpu(), F.conv2d(xc, wc))


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("case", CASES, ids=[str(i) for i in range(len(CASES))])
def test_int64_forward_matches_cpu_exactly(case, bias):
    # CPU's slow int64 path (im2col + integer GEMM): exact, wrapping modulo 2^64.
    shape, wshape = case[0], case[1]
    out_channels = wshape[1] * case[5] if case[6] else wshape[0]
    g = torch.Generator().manual_seed(0)
    x = torch.randint(-50, 50, shape, generator=g)
    w = torch.randint(-50, 50, wshape, generator=g)
    b = torch.randint(-1000, 1000, (out_channels,), generator=g) if bias else None
    args = conv_args(case)
    expected = torch.convolution(x, w, b, *args)
    with torch_tpu.no_fallback():
        actual = torch.convolution(x.to("tpu"), w.to("tpu"), None if b is None else b.to("tpu"), *args)
    assert actual.dtype == torch.int64 and torch.equal(actual.cpu(), expected)


SMALL_INTS = [torch.uint8, torch.int8, torch.int16, torch.int32]


@pytest.mark.parametrize("dtype", SMALL_INTS, ids=str)
@pytest.mark.parametrize("case", [c for c in CASES if not c[6]], ids=lambda c: f"{len(c[0]) - 2}d")
def test_small_int_forward_matches_cpu_exactly(case, dtype):
    # CPU's slow path in the type itself: products and sums wrap modulo
    # 2^bits (values up to +-100 overflow int8/int16 sums); tpu's integer GEMM
    # computes the same residues. CPU's dilated path (slow_conv_dilated) has
    # no kernel for these dtypes: NotImplementedError on both, nothing launched.
    shape, wshape = case[0], case[1]
    g = torch.Generator().manual_seed(1)
    lo = 0 if dtype == torch.uint8 else -100
    x = torch.randint(lo, 100, shape, generator=g).to(dtype)
    w = torch.randint(lo, 100, wshape, generator=g).to(dtype)
    args = conv_args(case)
    if any(d != 1 for d in case[4]):
        with pytest.raises(NotImplementedError):
            torch.convolution(x, w, None, *args)
        before = torch_tpu.stats()["launches"]
        with pytest.raises(NotImplementedError, match="dilated convolution is not implemented"):
            torch.convolution(x.to("tpu"), w.to("tpu"), None, *args)
        assert torch_tpu.stats()["launches"] == before
        return
    for b in (None, torch.randint(lo, 100, (wshape[0],), generator=g).to(dtype)):
        expected = torch.convolution(x, w, b, *args)
        with torch_tpu.no_fallback():
            actual = torch.convolution(x.to("tpu"), w.to("tpu"), None if b is None else b.to("tpu"), *args)
        assert actual.dtype == dtype and torch.equal(actual.cpu(), expected)


@pytest.mark.parametrize("dtype", SMALL_INTS, ids=str)
def test_small_int_transposed_is_not_implemented_like_cpu(dtype):
    x, w = torch.ones((1, 2, 4, 4), dtype=dtype), torch.ones((2, 3, 2, 2), dtype=dtype)
    with pytest.raises(NotImplementedError):
        F.conv_transpose2d(x, w)
    before = torch_tpu.stats()["launches"]
    with pytest.raises(NotImplementedError, match="transposed convolution is not implemented"):
        F.conv_transpose2d(x.to("tpu"), w.to("tpu"))
    assert torch_tpu.stats()["launches"] == before


def test_int64_wraps_like_cpu():
    x = torch.full((1, 1, 3, 3), 2**62)
    w = torch.full((1, 1, 2, 2), 3)
    b = torch.tensor([2**62])
    for transposed in (False, True):
        args = ([1, 1], [0, 0], [1, 1], transposed, [0, 0], 1)
        expected = torch.convolution(x, w, b, *args)
        with torch_tpu.no_fallback():
            actual = torch.convolution(x.to("tpu"), w.to("tpu"), b.to("tpu"), *args)
        assert torch.equal(actual.cpu(), expected)
