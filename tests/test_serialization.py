"""torch.save / torch.load of tpu tensors and modules."""

import io

import torch

from conftest import ALL_DTYPES, make_tensor


def _round_trip(obj, **load_kwargs):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf, **load_kwargs)


def test_tensors_keep_device_dtype_and_views():
    tensors = {str(d): make_tensor((3, 5), d).to("tpu") for d in ALL_DTYPES}
    base = torch.arange(12.0).to("tpu:1")
    tensors["view"] = base[2:10].view(2, 4).t()
    tensors["base"] = base
    loaded = _round_trip(tensors)
    for k, v in tensors.items():
        assert loaded[k].device == v.device and loaded[k].dtype == v.dtype, k
        assert loaded[k].stride() == v.stride() and torch.equal(loaded[k].cpu(), v.cpu()), k
    # views still share storage after loading
    assert loaded["view"].untyped_storage().data_ptr() == loaded["base"].untyped_storage().data_ptr()


def test_map_location():
    x = make_tensor((4, 4), torch.float32).to("tpu:1")
    assert _round_trip(x, map_location="tpu").device == torch.device("tpu:0")
    assert _round_trip(x, map_location="tpu:1").device == torch.device("tpu:1")
    assert _round_trip(x, map_location=torch.device("cpu")).device.type == "cpu"
    y = make_tensor((4, 4), torch.float32)
    moved = _round_trip(y, map_location="tpu")
    assert moved.device == torch.device("tpu:0") and torch.equal(moved.cpu(), y)


def test_module_state_dict():
    torch.manual_seed(0)
    m = torch.nn.Linear(4, 3).tpu()
    state = _round_trip(m.state_dict())
    assert all(v.is_tpu for v in state.values())
    m2 = torch.nn.Linear(4, 3)
    m2.load_state_dict(_round_trip(m.state_dict(), map_location="cpu"))
    assert torch.equal(m2.weight, m.weight.cpu())
