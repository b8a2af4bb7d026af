"""torchvision without its C++ extension: importable, its pure-PyTorch parts
working.

torchvision's wheel on PyPI is built for CUDA; beside a CPU torch its C++
extension does not load, and `import torchvision` then fails outright
(torchvision/_meta_registrations.py registers fake kernels for its nms and
qnms operators whether or not the extension defined them: "operator
torchvision::nms does not exist"). transformers imports torchvision when it
is installed, and timm depends on it, so one broken import stops them all.

When, and only when, torchvision's extension has failed to load, this
declares the two operators' schemas (as torchvision's C++ code would) before
those registrations run. torchvision then imports; its models, transforms and
pure-PyTorch ops work, and a C++ operator (nms, roi_align, ...) raises
torchvision's own "Couldn't load custom C++ ops" error when called. With a
torchvision whose extension loads, nothing here runs.
"""

from __future__ import annotations

from ._after_import import after_import

# Their schemas in torchvision's csrc/ops (nms.cpp, quantized/qnms).
_SCHEMAS = {
    "nms": "nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    "qnms": "qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
}
_library = None  # kept alive: the definitions last as long as it does


def _declare_missing_ops(extension) -> None:
    global _library
    import torch

    if extension._has_ops() or _library is not None:
        return
    _library = torch.library.Library("torchvision", "FRAGMENT")
    for name, schema in _SCHEMAS.items():
        if not hasattr(torch.ops.torchvision, name):
            _library.define(schema)


def install() -> None:
    after_import("torchvision.extension", _declare_missing_ops)
