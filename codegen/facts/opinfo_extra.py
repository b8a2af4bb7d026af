"""OpInfos for core ATen overloads that torch's op_db has none for.

The generator proves composite closures and generates tests from OpInfo
samples (codegen/proofs/closure.py, codegen/testgen/op_tests.py). A few core overloads are
reached by no OpInfo: metadata queries (sym_size.int, ...), the functional
`copy`, factories with no OpInfo of their own (rand, randperm), and the
upsample `.vec` overloads, which F.interpolate reaches only after Python
has already chosen another path (one sample function for the 1-3 d ones). These are PyTorch's own OpInfo class with
sample functions written here, each calling the aten overload itself, so
every tool that reads op_db reads them the same way. Named like their
overload ("sym_size" + variant "int"), so entries find them by default.
"""

from __future__ import annotations

import functools
import unittest
from typing import List


def extra_opinfos() -> List:
    import torch
    from torch.testing import make_tensor
    from torch.testing._internal.common_dtype import all_types_and, all_types_and_complex_and, floating_types_and
    from torch.testing._internal.opinfo.core import DecorateInfo, OpInfo, SampleInput

    aten = torch.ops.aten
    every = all_types_and_complex_and(torch.bool, torch.half, torch.bfloat16)
    random_output = (DecorateInfo(unittest.skip("output is non-deterministic"), "TestCommon", "test_compare_cpu"),)

    def maker(device, dtype):
        return functools.partial(make_tensor, device=device, dtype=dtype, low=-5, high=5)

    shapes = [(), (5,), (3, 4), (2, 0, 3), (2, 3, 4, 5)]

    def per_dim(op, device, dtype, requires_grad, **kwargs):
        make = maker(device, dtype)
        for shape in shapes:
            for d in range(-len(shape), len(shape)):
                yield SampleInput(make(shape), args=(d,))
        yield SampleInput(make((4, 6)).t(), args=(0,))  # a transposed view

    def whole(op, device, dtype, requires_grad, **kwargs):
        make = maker(device, dtype)
        for shape in shapes:
            yield SampleInput(make(shape))
        base = make((6, 5))
        yield SampleInput(base[2:, 1:])       # storage offset 11, strides (5, 1)
        yield SampleInput(base.t()[1:])       # offset 1, column-major

    def contiguity(op, device, dtype, requires_grad, **kwargs):
        make = maker(device, dtype)
        for shape in shapes:
            yield SampleInput(make(shape))
        x = make((2, 3, 4, 5))
        for fmt in (torch.contiguous_format, torch.channels_last):
            yield SampleInput(x, kwargs={"memory_format": fmt})
            yield SampleInput(x.contiguous(memory_format=torch.channels_last), kwargs={"memory_format": fmt})
        yield SampleInput(make((2, 3, 4, 5, 2)).contiguous(memory_format=torch.channels_last_3d),
                          kwargs={"memory_format": torch.channels_last_3d})

    def copy_samples(op, device, dtype, requires_grad, **kwargs):
        make = maker(device, dtype)
        for shape, src_shape in [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 3, 4), (1, 4)), ((), ()), ((5,), ())]:
            yield SampleInput(make(shape), args=(make(src_shape),))
        # src of another dtype is converted to self's
        for other in (torch.float32, torch.int64, torch.bool):
            yield SampleInput(make((3, 4)), args=(make((3, 4), dtype=other),))
        yield SampleInput(make((3, 4)), args=(make((4, 3)).t(),), kwargs={"non_blocking": True})

    def rand_samples(op, device, dtype, requires_grad, **kwargs):
        for size in [(), (0,), (5,), (3, 4), (2, 3, 65)]:
            yield SampleInput(size, kwargs={"dtype": dtype, "device": device})

    def randperm_samples(op, device, dtype, requires_grad, **kwargs):
        for n in [0, 1, 7, 100]:
            yield SampleInput(n, kwargs={"dtype": dtype, "device": device})

    def image(device, dtype):
        return make_tensor((2, 3, 5, 4), device=device, dtype=dtype, low=-3, high=3)

    def bilinear_vec(op, device, dtype, requires_grad, **kwargs):
        x = image(device, dtype)
        for size, align, scales in [([7, 9], False, None), ([3, 2], True, None), (None, False, [1.5, 2.0]),
                                    (None, True, [2.0, 0.5]), ([5, 4], False, None)]:
            yield SampleInput(x, args=(size, align, scales))

    def nearest_vec(op, device, dtype, requires_grad, **kwargs):
        x = image(device, dtype)
        for size, scales in [([7, 9], None), ([3, 2], None), (None, [1.5, 2.0]), (None, [2.0, 0.5])]:
            yield SampleInput(x, args=(size, scales))

    def resample_vec(dims, align):
        # the .vec overload of a 1-3 d upsample: (input, output_size, [align_corners,] scale_factors)
        def samples(op, device, dtype, requires_grad, **kwargs):
            x = make_tensor((2, 3) + (5, 4, 3)[:dims], device=device, dtype=dtype, low=-3, high=3)
            for size, scales in [([7, 9, 4], None), ([3, 2, 2], None), (None, [1.5, 2.0, 0.5]),
                                 (None, [2.0, 0.5, 1.5])]:
                size = size[:dims] if size else None
                scales = scales[:dims] if scales else None
                if align:
                    for corners in (False, True):
                        yield SampleInput(x, args=(size, corners, scales))
                else:
                    yield SampleInput(x, args=(size, scales))
        return samples

    def info(name, variant, op, samples, dtypes, **kw):
        return OpInfo(name, variant_test_name=variant, op=op, sample_inputs_func=samples, dtypes=dtypes,
                      supports_out=False, supports_autograd=False, **kw)

    return [
        info("sym_size", "int", aten.sym_size.int, per_dim, every),
        info("sym_stride", "int", aten.sym_stride.int, per_dim, every),
        info("sym_numel", "", aten.sym_numel.default, whole, every),
        info("sym_storage_offset", "", aten.sym_storage_offset.default, whole, every),
        info("sym_is_contiguous", "", aten.sym_is_contiguous.default, contiguity, every),
        info("copy", "", aten.copy.default, copy_samples, every),
        info("rand", "", aten.rand.default, rand_samples, floating_types_and(torch.half, torch.bfloat16),
             decorators=random_output),
        info("randperm", "", aten.randperm.default, randperm_samples, all_types_and(torch.half, torch.bfloat16),
             decorators=random_output),
        info("upsample_bilinear2d", "vec", aten.upsample_bilinear2d.vec, bilinear_vec,
             floating_types_and(torch.half, torch.bfloat16)),
        info("upsample_nearest2d", "vec", aten.upsample_nearest2d.vec, nearest_vec,
             floating_types_and(torch.half, torch.bfloat16)),
    ] + [
        info(name, "vec", getattr(aten, name).vec, resample_vec(dims, align), dtypes)
        for name, dims, align, dtypes in [
            ("upsample_nearest1d", 1, False, floating_types_and(torch.half, torch.bfloat16)),
            ("upsample_nearest3d", 3, False, floating_types_and(torch.half, torch.bfloat16)),
            ("_upsample_nearest_exact1d", 1, False, floating_types_and(torch.half, torch.bfloat16)),
            ("_upsample_nearest_exact2d", 2, False, floating_types_and(torch.half, torch.bfloat16)),
            ("_upsample_nearest_exact3d", 3, False, floating_types_and(torch.half, torch.bfloat16)),
            ("upsample_linear1d", 1, True, floating_types_and(torch.half, torch.bfloat16)),
            ("upsample_trilinear3d", 3, True, floating_types_and(torch.half, torch.bfloat16)),
            ("upsample_bicubic2d", 2, True, floating_types_and(torch.half, torch.bfloat16)),
            ("_upsample_bilinear2d_aa", 2, True, floating_types_and()),
            ("_upsample_bicubic2d_aa", 2, True, floating_types_and()),
        ]
    ]
