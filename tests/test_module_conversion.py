"""nn.Module conversions keep Parameter objects, as on CUDA: .to("tpu"),
.cpu(), .to(dtype), .half(), to_empty(), so weights tied by identity (an LM
head and its embedding) stay one tensor, optimizers built before the move
keep stepping the model's parameters, and parametrizations and weight norm
move with their module. (_has_compatible_shallow_copy_type in ops.yaml.)"""

import copy

import pytest
import torch
import torch.nn as nn

import torch_tpu


class TiedLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(11, 6)
        self.body = nn.Linear(6, 6)
        self.head = nn.Linear(6, 11, bias=False)
        self.head.weight = self.embed.weight  # tied, as GPT-2's lm_head

    def forward(self, tokens):
        return self.head(torch.tanh(self.body(self.embed(tokens))))


def _ids(m):
    return {n: id(p) for n, p in m.named_parameters(remove_duplicate=False)}


def test_shallow_copy_type_is_compatible_between_cpu_and_tpu():
    cpu, tpu = torch.ones(2), torch.ones(2, device="tpu")
    assert torch._has_compatible_shallow_copy_type(cpu, tpu)
    assert torch._has_compatible_shallow_copy_type(tpu, cpu)
    assert torch._has_compatible_shallow_copy_type(tpu, tpu.half())
    assert torch._has_compatible_shallow_copy_type(tpu, torch.ones(2, device="tpu:1"))
    # Other layouts keep c10's answer: a sparse tensor's impl is not a dense one.
    assert not torch._has_compatible_shallow_copy_type(tpu, torch.ones(2).to_sparse())
    assert not torch._has_compatible_shallow_copy_type(torch.ones(2).to_sparse(), tpu)
    # `.data =` across devices is what nn.Module relies on.
    p = nn.Parameter(torch.arange(3.0))
    p.data = p.data.to("tpu")
    assert p.device.type == "tpu" and isinstance(p, nn.Parameter)
    assert p.cpu().tolist() == [0.0, 1.0, 2.0]


@pytest.mark.parametrize("convert", [
    lambda m: m.to("tpu"),
    lambda m: m.to("tpu").cpu(),
    lambda m: m.to("tpu").to(torch.float16),
    lambda m: m.to("tpu").half(),
    lambda m: m.to("tpu").double(),
    lambda m: m.to("tpu", torch.bfloat16),
    lambda m: m.to_empty(device="tpu"),
    lambda m: m.to("tpu:1"),
], ids=["to_tpu", "back_to_cpu", "to_float16", "half", "double", "to_tpu_bfloat16", "to_empty", "to_tpu1"])
def test_conversion_keeps_parameter_objects_and_ties(convert):
    m = TiedLM()
    ids = _ids(m)
    out = convert(m)
    assert out is m
    assert _ids(m) == ids
    assert m.head.weight is m.embed.weight
    assert len(list(m.parameters())) == len(set(ids.values()))


def test_tied_weights_train_as_one_on_tpu_like_cpu():
    torch.manual_seed(0)
    cpu = TiedLM()
    tpu = copy.deepcopy(cpu).to("tpu")
    tokens = torch.randint(0, 11, (4, 5))
    for m, dev in ((cpu, "cpu"), (tpu, "tpu")):
        opt = torch.optim.SGD(m.parameters(), lr=0.1)
        for _ in range(3):
            out = m(tokens.to(dev))
            loss = nn.functional.cross_entropy(out.view(-1, 11), tokens.to(dev).view(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
    assert tpu.head.weight is tpu.embed.weight
    torch.testing.assert_close(tpu.embed.weight.cpu(), cpu.embed.weight, rtol=1e-5, atol=1e-6)


def test_optimizer_built_before_the_move_steps_the_moved_parameters():
    torch.manual_seed(0)
    m = nn.Linear(3, 2)
    opt = torch.optim.SGD(m.parameters(), lr=0.5)
    before = m.weight.detach().clone()
    m.to("tpu")
    m(torch.ones(1, 3, device="tpu")).sum().backward()
    opt.step()
    assert m.weight.device.type == "tpu"
    torch.testing.assert_close(m.weight.cpu(), before - 0.5, rtol=0, atol=0)


def test_optimizer_state_follows_its_parameters_through_load_state_dict():
    torch.manual_seed(0)
    m = nn.Linear(3, 2)
    opt = torch.optim.Adam(m.parameters(), lr=0.1)
    m(torch.ones(1, 3)).sum().backward()
    opt.step()
    m.to("tpu")
    opt.load_state_dict(opt.state_dict())  # casts the state to each parameter's device
    assert {s["exp_avg"].device.type for s in opt.state.values()} == {"tpu"}
    assert all(p in opt.state for p in m.parameters())
    m(torch.ones(1, 3, device="tpu")).sum().backward()
    opt.step()


def test_gradients_move_with_their_parameters():
    m = nn.Linear(3, 2)
    m(torch.ones(1, 3)).sum().backward()
    grad_id = id(m.weight.grad)
    m.to("tpu")
    assert m.weight.grad.device.type == "tpu"
    assert id(m.weight.grad) == grad_id
    torch.testing.assert_close(m.weight.grad.cpu(), torch.ones(2, 3))


def test_load_state_dict_assign_takes_tpu_tensors():
    src = TiedLM().to("tpu")
    dst = TiedLM()
    dst.load_state_dict(src.state_dict(), assign=True)
    assert dst.body.weight.device.type == "tpu" and isinstance(dst.body.weight, nn.Parameter)
    assert dst.body.weight.requires_grad
    torch.testing.assert_close(dst.body.weight.cpu(), src.body.weight.cpu())


def test_parametrized_module_moves_and_trains():
    class Symmetric(nn.Module):
        def forward(self, x):
            return x.triu() + x.triu(1).transpose(0, 1)

    torch.manual_seed(0)
    cpu = nn.Linear(4, 4)
    nn.utils.parametrize.register_parametrization(cpu, "weight", Symmetric())
    tpu = copy.deepcopy(cpu)
    original = tpu.parametrizations.weight.original
    tpu.to("tpu")
    assert tpu.parametrizations.weight.original is original
    x = torch.randn(2, 4)
    for m, dev in ((cpu, "cpu"), (tpu, "tpu")):
        m(x.to(dev)).pow(2).sum().backward()
    torch.testing.assert_close(tpu.weight.cpu(), cpu.weight)
    torch.testing.assert_close(original.grad.cpu(), cpu.parametrizations.weight.original.grad)


def test_weight_norm_moves_and_trains():
    torch.manual_seed(0)
    cpu = nn.utils.parametrizations.weight_norm(nn.Linear(4, 3))
    tpu = copy.deepcopy(cpu).to("tpu")
    x = torch.randn(5, 4)
    for m, dev in ((cpu, "cpu"), (tpu, "tpu")):
        m(x.to(dev)).sum().backward()
    for (name, a), (_, e) in zip(tpu.named_parameters(), cpu.named_parameters()):
        assert a.device.type == "tpu", name
        torch.testing.assert_close(a.grad.cpu(), e.grad, msg=name)
