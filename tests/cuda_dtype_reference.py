"""References for the dtypes an OpInfo supports on CUDA and not on CPU.

A CUDA program with "cuda" changed to "tpu" runs unchanged, so tpu supports
CUDA's dtypes where CPU's are narrower (float16 FFTs, integer histc, abs of
bool, ...). CPU eager cannot compute those dtypes itself; the reference runs
the op on CPU with the inputs of that dtype widened (float16/bfloat16 to
float32, float32 to float64, bool to uint8, the integers to int64; complex
to complex128), then rounds every result of the wide dtype (or of its complex
or real counterpart: a float16 FFT's complex64 result) back to the narrow one.
The comparison then uses the narrow dtype's tolerances: the wide result
rounded once is what a kernel computing in a wider type (as CUDA's do, in
their opmath type) returns, up to one rounding of the narrow dtype.

Where CPU refuses the wide dtype too (nansum of complex), the OpInfo's NumPy
reference (`op.ref`) computes it; where CUDA's semantics are not the wide
computation's, a reference written here emulates CUDA (histc of integers).
Used by tests/opinfo_harness.py (generated checks) and tools/opdb_sweep.py.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Dict, Optional, Tuple

import torch
from torch.utils import _pytree as pytree

WIDER = {
    torch.float16: torch.float32, torch.bfloat16: torch.float32,
    torch.float32: torch.float64, torch.float64: torch.float64,
    torch.complex64: torch.complex128, torch.complex128: torch.complex128,
    torch.complex32: torch.complex64,  # CUDA computes complex32 in complex64 (opmath)
    torch.bool: torch.uint8,
    torch.uint8: torch.int64, torch.int8: torch.int64, torch.int16: torch.int64,
    torch.int32: torch.int64, torch.int64: torch.float64,
}
_COMPLEX = {torch.float16: torch.complex32, torch.float32: torch.complex64, torch.float64: torch.complex128}
_REAL = {v: k for k, v in _COMPLEX.items()}


def cpu_lacks(op, dtype: torch.dtype) -> bool:
    """Whether the OpInfo supports dtype on CUDA and not on CPU."""
    return dtype in op.supported_dtypes("cuda") and dtype not in op.supported_dtypes("cpu")


def _narrowing(narrow: torch.dtype) -> Dict[torch.dtype, torch.dtype]:
    """Result dtype of the wide computation -> the narrow result's dtype."""
    wide = WIDER[narrow]
    out = {wide: narrow}
    if wide in _COMPLEX and narrow in _COMPLEX:
        out[_COMPLEX[wide]] = _COMPLEX[narrow]
    if wide in _REAL and narrow in _REAL:
        out[_REAL[wide]] = _REAL[narrow]
    return out


def widen(sample, narrow: torch.dtype):
    """The CPU sample with every tensor of dtype `narrow` widened (a copy
    that keeps requires_grad off: references are values only), and a
    `dtype=narrow` keyword (prod(x, dtype=...)) asking for the wide dtype."""
    wide = WIDER[narrow]
    out = sample.transform(lambda t: t.to(wide) if isinstance(t, torch.Tensor) and t.dtype == narrow else t)
    if out.kwargs.get("dtype") == narrow:
        out.kwargs = {**out.kwargs, "dtype": wide}
    return out


def narrowed(result, narrow: torch.dtype):
    """Each result tensor of the wide dtype (or its complex/real counterpart)
    rounded to the narrow dtype; others (indices, counts) as they are."""
    to = _narrowing(narrow)

    def narrow_one(t):
        if not isinstance(t, torch.Tensor) or t.dtype not in to:
            return t
        return t.conj().to(to[t.dtype]).conj() if t.is_conj() else t.to(to[t.dtype])  # a conjugate view stays one

    with warnings.catch_warnings():  # "ComplexHalf support is experimental"
        warnings.simplefilter("ignore", UserWarning)
        return pytree.tree_map(narrow_one, result)


# --- CUDA's semantics where the wide computation is not them -------------------

def _histc_integer(input, bins=100, min=0, max=0, *, out=None):
    """CUDA's histc of an integer tensor (ATen's cuda/SummaryOps.cu): the
    bounds truncated to int64 and then to the element type; a range of
    min == max is the data's, and an empty one widened by one on each side
    (in the element type); bin = (x - min) * bins / (max - min) in int64,
    the last bin including max; counts in the element type."""
    dtype = input.dtype

    def narrow(v: int) -> int:
        return torch.tensor(v, dtype=torch.int64).to(dtype).item()

    if bins <= 0:
        raise RuntimeError("bins must be > 0")
    lo_s, hi_s = int(min), int(max)  # Scalar::to<int64_t>: toward zero
    lo, hi = narrow(lo_s), narrow(hi_s)
    if lo_s == hi_s and input.numel() > 0:
        lo, hi = input.min().item(), input.max().item()
    if lo == hi:
        lo, hi = narrow(lo - 1), narrow(hi + 1)
    if not lo < hi:
        raise RuntimeError("max must be larger than min")
    v = input.reshape(-1).to(torch.int64)
    v = v[(v >= lo) & (v <= hi)]
    b = torch.div((v - lo) * bins, hi - lo, rounding_mode="trunc")
    b[b == bins] = bins - 1
    hist = torch.bincount(b, minlength=bins).to(dtype)  # wraps as the element type's adds do
    if out is not None:
        out.resize_(hist.shape).copy_(hist)
        return out
    return hist


# (OpInfo name, variant) -> (which narrow dtypes, reference)
SPECIAL: Dict[Tuple[str, str], Tuple[Callable[[torch.dtype], bool], Callable]] = {
    ("histc", ""): (lambda d: not d.is_floating_point and not d.is_complex and d != torch.bool, _histc_integer),
}


def _numpy_ref(op, sample, narrow: torch.dtype):
    """The OpInfo's NumPy reference on the widened sample."""
    import numpy as np

    s = widen(sample, narrow)
    to_np = lambda t: t.numpy() if isinstance(t, torch.Tensor) else t  # noqa: E731
    r = op.ref(*pytree.tree_map(to_np, (s.input, *s.args)), **pytree.tree_map(to_np, s.kwargs))
    r = pytree.tree_map(lambda x: torch.from_numpy(np.asarray(x)) if isinstance(x, (np.ndarray, np.generic)) else x, r)
    return narrowed(r, narrow)


def abs_on_cpu_as_cuda(x: torch.Tensor) -> torch.Tensor:
    """torch.abs, with CUDA's value where CPU refuses the dtype: a CPU bool
    tensor is returned unchanged (tpu takes CUDA's dtypes). Tensors on other
    devices go through torch.abs, so the device under test computes its own."""
    return x.clone() if x.dtype == torch.bool and x.device.type == "cpu" else torch.abs(x)


def _special(op, narrow: torch.dtype) -> Optional[Callable]:
    special = SPECIAL.get((op.name, op.variant_test_name))
    return special[1] if special is not None and special[0](narrow) else None


def retyped(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """t's values in dtype with t's exact layout (sizes, strides, storage
    offset and length): an out= tensor's twin in another dtype."""
    n = t.untyped_storage().nbytes() // t.element_size()
    flat = torch.empty(0, dtype=t.dtype).set_(t.untyped_storage(), 0, (n,), (1,))
    return flat.to(dtype).as_strided(t.size(), t.stride(), t.storage_offset())


def out_twins(op, out, narrow: torch.dtype):
    """The CPU out= tensors reference() writes for `out` (the narrow
    dtype's): their wide twins, or `out` itself for a reference of CUDA's
    semantics (which computes in the narrow dtype)."""
    if _special(op, narrow) is not None:
        return out
    wide = {v: k for k, v in _narrowing(narrow).items()}
    return pytree.tree_map(lambda t: retyped(t, wide[t.dtype]) if isinstance(t, torch.Tensor) and t.dtype in wide
                           else t, out)


def reference(op, sample, narrow: torch.dtype, post: Optional[Callable] = None, out=None) -> Any:
    """The op's result on CPU for a sample of a dtype CPU lacks (the CPU
    sample in the narrow dtype), through post (the sample's
    output_process_fn_grad) before rounding. With out (out_twins()), the
    op's out= form writes into it."""
    post = post or (lambda r: r)
    extra = {} if out is None else {"out": out}

    def call(f, s):
        return post(f(s.input, *s.args, **s.kwargs, **extra))

    special = _special(op, narrow)
    if special is not None:
        return call(special, sample)
    try:
        result = call(op, widen(sample, narrow))
    except Exception:
        if op.ref is None:
            raise
        result = post(_numpy_ref(op, sample, narrow))
        if out is None:
            return result
        # out=: ATen's resize_output and copy_
        for t, r in zip(pytree.tree_leaves(out), pytree.tree_leaves(result)):
            if t.shape != r.shape:
                t.resize_(r.shape)
            t.copy_(r)
        return out
    return result if out is not None else narrowed(result, narrow)
