"""timm and torchvision models on tpu as a user runs them: tiny random CNNs
and a ViT train on tpu like CPU with no host fallback
(examples/compare_training.py's error model), and torchvision's
pure-PyTorch ops (box operations and losses, roi_align) give CPU's values.

torchvision's PyPI wheel here is a CUDA build whose C++ extension cannot
load beside the CPU torch: torch_tpu.torchvision_compat keeps `import
torchvision` (and so timm and transformers) working, and its C++ operators
(nms, the compiled roi ops) raise torchvision's own error on every device.
roi_align then takes torchvision's pure-PyTorch path, which it compiles."""

import pytest
import torch

import torch_tpu

timm = pytest.importorskip("timm")
torchvision = pytest.importorskip("torchvision")
from model_zoo import classifier_loss, compare_training, example, images  # noqa: E402


def _images(g):
    # Batch 4 of 64x64: the last stage's batch norm still sees 16 values
    # (over 2 its input gradient is 0 in exact arithmetic, rounding noise).
    return images(g, batch=4, size=64), torch.randint(0, 10, (4,), generator=g)


def _timm(name, **kwargs):
    return lambda: timm.create_model(name, pretrained=False, num_classes=10, **kwargs)


def _torchvision(name, **kwargs):
    return lambda: getattr(torchvision.models, name)(weights=None, num_classes=10, **kwargs)


EXAMPLES = {
    "timm_resnet18": example("timm_resnet18", _timm("resnet18"), _images, classifier_loss()),
    "timm_mobilenetv3": example("timm_mobilenetv3", _timm("mobilenetv3_small_050"), _images, classifier_loss()),
    "timm_convnext": example("timm_convnext", _timm("convnext_atto"), _images, classifier_loss()),
    "timm_vit": example("timm_vit", _timm("vit_tiny_patch16_224", img_size=32, patch_size=8),
                        lambda g: (images(g), torch.randint(0, 10, (2,), generator=g)), classifier_loss()),
    "torchvision_resnet18": example("torchvision_resnet18", _torchvision("resnet18"), _images, classifier_loss()),
    "torchvision_mobilenet_v3": example("torchvision_mobilenet_v3",
                                        _torchvision("mobilenet_v3_small", dropout=0.0), _images,
                                        classifier_loss()),
}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_trains_on_tpu_like_cpu_without_fallback(name):
    with torch_tpu.no_fallback():
        report = compare_training.compare(EXAMPLES[name], 3)
    assert report.ok, report.text()


def _boxes(g, n):
    xy = torch.rand(n, 2, generator=g) * 20
    return torch.cat([xy, xy + torch.rand(n, 2, generator=g) * 10 + 0.5], 1)


@pytest.mark.parametrize("op", ["box_iou", "generalized_box_iou", "distance_box_iou", "complete_box_iou",
                                "box_area", "generalized_box_iou_loss", "complete_box_iou_loss",
                                "distance_box_iou_loss", "sigmoid_focal_loss", "box_convert", "clip_boxes_to_image",
                                "remove_small_boxes", "masks_to_boxes"])
def test_box_ops_match_cpu(op):
    ops = torchvision.ops
    g = torch.Generator().manual_seed(0)
    a, b = _boxes(g, 5), _boxes(g, 5)
    masks = torch.rand(3, 16, 16, generator=g) > 0.7
    calls = {
        "box_iou": lambda a, b: ops.box_iou(a, b),
        "generalized_box_iou": lambda a, b: ops.generalized_box_iou(a, b),
        "distance_box_iou": lambda a, b: ops.distance_box_iou(a, b),
        "complete_box_iou": lambda a, b: ops.complete_box_iou(a, b),
        "box_area": lambda a, b: ops.box_area(a),
        "generalized_box_iou_loss": lambda a, b: ops.generalized_box_iou_loss(a, b),
        "complete_box_iou_loss": lambda a, b: ops.complete_box_iou_loss(a, b),
        "distance_box_iou_loss": lambda a, b: ops.distance_box_iou_loss(a, b),
        "sigmoid_focal_loss": lambda a, b: ops.sigmoid_focal_loss(a / 10, (b > 15).float(), reduction="mean"),
        "box_convert": lambda a, b: ops.box_convert(a, "xyxy", "cxcywh"),
        "clip_boxes_to_image": lambda a, b: ops.clip_boxes_to_image(a, (18, 22)),
        "remove_small_boxes": lambda a, b: ops.remove_small_boxes(a, 6.0),
        "masks_to_boxes": lambda a, b: ops.masks_to_boxes(masks.to(a.device)),
    }
    with torch_tpu.no_fallback():
        out = calls[op](a.to("tpu"), b.to("tpu"))
    torch.testing.assert_close(out.cpu(), calls[op](a, b))


def test_roi_align_takes_the_compiled_pure_pytorch_path(fresh_dynamo):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 3, 16, 16, generator=g)
    rois = torch.tensor([[0, 1.0, 1, 9, 9], [1, 0, 2, 12, 15.5], [0, 3.2, 0.5, 7.7, 14]])
    args = dict(output_size=(4, 4), spatial_scale=0.5, sampling_ratio=2, aligned=True)
    ref = torchvision.ops.roi_align(x, rois, **args)
    with torch_tpu.no_fallback():
        out = torchvision.ops.roi_align(x.to("tpu"), rois.to("tpu"), **args)
    torch.testing.assert_close(out.cpu(), ref)


def test_cpp_ops_raise_torchvisions_own_error():
    with pytest.raises(RuntimeError, match="Couldn't load custom C[+][+] ops"):
        torchvision.ops.nms(torch.rand(3, 4, device="tpu"), torch.rand(3, device="tpu"), 0.5)
