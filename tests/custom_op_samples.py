"""Sample and error inputs of the custom operators (torch.ops.tpu.*), as
OpInfo writes them: ops.yaml names a function here per operator (tests.samples,
default: the op's name). A samples function takes (device, dtype,
requires_grad) and yields SampleInputs in the argument order of the op's
schema; its `<name>_errors(device)` yields ErrorInputs (the sample, the
error type and a regex of the message) that every device must raise alike.
"""

from functools import partial

import torch
from torch.testing import make_tensor
from torch.testing._internal.opinfo.core import ErrorInput, SampleInput


def _maker(device, dtype, requires_grad=False):
    return partial(make_tensor, device=device, dtype=dtype, requires_grad=requires_grad,
                   low=-2, high=2)


def rms_norm(device, dtype, requires_grad=False):
    make = _maker(device, dtype, requires_grad)
    yield SampleInput(make(4, 8), args=(make(8),), kwargs={"eps": 1e-6})
    yield SampleInput(make(2, 3, 16), args=(make(16),), kwargs={"eps": 1e-5})
    yield SampleInput(make(5, 7))                                   # no weight
    yield SampleInput(make(3, 8, noncontiguous=True), args=(make(8, noncontiguous=True),))
    yield SampleInput(make(6, 4).t(), args=(make(6),))                # transposed input
    yield SampleInput(make(1, 1), args=(make(1),), kwargs={"eps": 0.5})
    yield SampleInput(make(0, 8), args=(make(8),))                    # no rows


def rms_norm_errors(device):
    make = _maker(device, torch.float32)
    yield ErrorInput(SampleInput(make(4, 8), args=(make(7),)), error_type=RuntimeError,
                     error_regex="weight of the size of input's last dimension")
    yield ErrorInput(SampleInput(make(4, 8), args=(make(8, dtype=torch.float64),)),
                     error_type=RuntimeError, error_regex="expected weight to have the dtype of input")
    yield ErrorInput(SampleInput(make(4, 8), args=(make(2, 4),)), error_type=RuntimeError,
                     error_regex="1-dimensional weight")
    yield ErrorInput(SampleInput(make(())), error_type=RuntimeError,
                     error_regex="at least one dimension")
    yield ErrorInput(SampleInput(make(4, 8), kwargs={"eps": -1.0}), error_type=RuntimeError,
                     error_regex="eps >= 0")
    yield ErrorInput(SampleInput(make(4, 8, dtype=torch.int64)), error_type=NotImplementedError,
                     error_regex="not implemented for 'Long'")


def rms_norm_backward(device, dtype, requires_grad=False):
    make = _maker(device, dtype)
    for x, w in ((make(4, 8), make(8)), (make(2, 3, 16), make(16)), (make(5, 7), None),
                 (make(0, 8), make(8))):
        for mask in ([True, True], [True, False], [False, True]):
            yield SampleInput(make(x.shape), args=(x, w, 1e-6, mask))


def rms_norm_backward_errors(device):
    make = _maker(device, torch.float32)
    yield ErrorInput(SampleInput(make(4, 7), args=(make(4, 8), make(8), 1e-6, [True, True])),
                     error_type=RuntimeError, error_regex="expected grad of input's shape")


def rotary_embedding(device, dtype, requires_grad=False):
    make = _maker(device, dtype, requires_grad)
    # (batch, heads, seq, head_dim) with tables of (seq, head_dim), as in attention.
    yield SampleInput(make(2, 3, 5, 8), args=(make(5, 8), make(5, 8)))
    # (batch, seq, heads, head_dim), tables of (seq, 1, head_dim).
    yield SampleInput(make(2, 5, 3, 8), args=(make(5, 1, 8), make(5, 1, 8)))
    # Tables with a batch dimension; a non-contiguous x.
    yield SampleInput(make(2, 4, 6, noncontiguous=True), args=(make(2, 4, 6), make(2, 4, 6)))
    yield SampleInput(make(3, 4), args=(make(4), make(4)))
    yield SampleInput(make(0, 4), args=(make(4), make(4)))


def rotary_embedding_errors(device):
    make = _maker(device, torch.float32)
    yield ErrorInput(SampleInput(make(2, 5), args=(make(5), make(5))), error_type=RuntimeError,
                     error_regex="even last dimension")
    yield ErrorInput(SampleInput(make(2, 6), args=(make(4), make(4))), error_type=RuntimeError,
                     error_regex="x's last dimension")
    yield ErrorInput(SampleInput(make(2, 6), args=(make(6), make(3, 6))), error_type=RuntimeError,
                     error_regex="cos and sin of one shape")
    yield ErrorInput(SampleInput(make(2, 6), args=(make(3, 6), make(3, 6))), error_type=RuntimeError,
                     error_regex="must match the size of tensor")
    yield ErrorInput(SampleInput(make(1, 6), args=(make(2, 6), make(2, 6))),
                     error_type=RuntimeError, error_regex="broadcast beyond x's shape")
    yield ErrorInput(SampleInput(make(2, 6), args=(make(6, dtype=torch.float64), make(6))),
                     error_type=RuntimeError, error_regex="expected cos to have the dtype of x")


def bias_gelu(device, dtype, requires_grad=False):
    make = _maker(device, dtype, requires_grad)
    yield SampleInput(make(4, 8), args=(make(8),))
    yield SampleInput(make(2, 3, 16), args=(make(16),), kwargs={"approximate": "tanh"})
    yield SampleInput(make(5, 6, noncontiguous=True), args=(make(6),))
    yield SampleInput(make(6, 4).t(), args=(make(6),), kwargs={"approximate": "tanh"})
    yield SampleInput(make(0, 8), args=(make(8),))


def bias_gelu_errors(device):
    make = _maker(device, torch.float32)
    yield ErrorInput(SampleInput(make(4, 8), args=(make(7),)), error_type=RuntimeError,
                     error_regex="bias of the size of x's last dimension")
    yield ErrorInput(SampleInput(make(4, 8), args=(make(8),), kwargs={"approximate": "erf"}),
                     error_type=RuntimeError, error_regex="approximate argument must be either")
    yield ErrorInput(SampleInput(make(4, 8), args=(make(1, 8),)), error_type=RuntimeError,
                     error_regex="1-dimensional bias")
    yield ErrorInput(SampleInput(make(4, 8, dtype=torch.int32), args=(make(8, dtype=torch.int32),)),
                     error_type=NotImplementedError, error_regex="not implemented for 'Int'")
