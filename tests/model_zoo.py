"""Small, randomly initialised models from transformers, timm and
torchvision as examples for examples/compare_training.py (model(),
optimizer(), train_step(), batches()), and greedy decoding compared under
an error model. Sizes are tiny (hidden 32, 2 layers, images 32x32): the
point is every op and every code path of the architecture, not speed."""

from __future__ import annotations

import os
import sys
import types

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))
import compare_training  # noqa: E402,F401  (re-exported for the tests)

VOCAB = 128


def example(name, make_model, make_batch, loss_of, f64_rtol=None, lr=0.01):
    """A compare_training example: loss_of(model, *batch) is trained with
    SGD and momentum, whose update is linear in the gradient (Adam's divides
    by it, which turns the rounding noise of a gradient that is 0 in exact
    arithmetic into a full step). f64_rtol: for a model that computes some
    parts in float32 whatever its dtype (RMSNorm variances, rotary angles),
    the float64 step's tolerance is float32's."""

    def train_step(model, opt, *batch):
        loss = loss_of(model, *batch)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss.item()

    def batches(steps):
        g = torch.Generator().manual_seed(0)
        for _ in range(steps):
            yield make_batch(g)

    return types.SimpleNamespace(
        __name__=name, model=lambda: make_model().train(), train_step=train_step, batches=batches,
        optimizer=lambda m: torch.optim.SGD(m.parameters(), lr=lr, momentum=0.9, foreach=True),
        f64_rtol=f64_rtol)


def _ce(logits, labels):
    return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1))


# The losses are computed here, in the model's dtype: transformers' own loss
# functions upcast logits with .float(), which would make a float64 step
# float32 at its last op.
# Relative to a tensor's largest value: a few float32 roundings, grown by
# the layers after them.
FLOAT32_ISLANDS = 1e-5


def causal_lm_loss(model, input_ids):
    out = model(input_ids=input_ids)
    loss = _ce(out.logits[:, :-1], input_ids[:, 1:])
    aux = getattr(out, "aux_loss", None)  # MoE load balancing
    return loss if aux is None else loss + model.config.router_aux_loss_coef * aux.to(loss.dtype)


def moe_causal_lm_loss(model, input_ids):
    """causal_lm_loss of a mixture of experts in its default experts
    implementation (grouped_mm), except for the float64 reference on CPU,
    whose _grouped_mm refuses float64: there transformers' eager experts do
    the same arithmetic."""
    p = next(model.parameters())
    if p.device.type == "cpu" and p.dtype == torch.float64:
        model.set_experts_implementation("eager")
    return causal_lm_loss(model, input_ids)


def seq2seq_loss(source_key):
    def loss(model, source, labels):
        return _ce(model(**{source_key: source}, labels=labels).logits, labels)

    return loss


def classifier_loss(source_key=None):
    """transformers models take the images or tokens by keyword and return
    .logits; timm and torchvision models take them positionally."""

    def loss(model, source, labels):
        out = model(**{source_key: source}).logits if source_key else model(source)
        return _ce(out, labels)

    return loss


def tokens(g, batch=2, length=12):
    return torch.randint(0, VOCAB, (batch, length), generator=g)


def images(g, batch=2, size=32, channels=3):
    return torch.randn(batch, channels, size, size, generator=g)


def first_token_divergence(a: torch.Tensor, b: torch.Tensor):
    """(row, position) of the first differing token, or None."""
    diff = (a != b).nonzero()
    return None if diff.numel() == 0 else tuple(diff[diff[:, 1].argmin()].tolist())


def assert_same_greedy_decoding(model_cpu, model_tpu, inputs: dict, max_new_tokens=8, **kwargs):
    """Greedy decoding on tpu gives CPU's tokens; where it does not, the two
    candidates must have been a near-tie in CPU's own scores (within float32
    rounding of the logits), which is a legitimate different choice: from
    there the sequences are different continuations and are not compared."""
    args = dict(max_new_tokens=max_new_tokens, do_sample=False, output_scores=True,
                return_dict_in_generate=True, **kwargs)
    ref = model_cpu.generate(**inputs, **args)
    out = model_tpu.generate(**{k: v.to("tpu") for k, v in inputs.items()}, **args)
    seq, ref_seq = out.sequences.cpu(), ref.sequences
    assert seq.shape == ref_seq.shape
    where = first_token_divergence(seq, ref_seq)
    if where is None:
        return
    row, pos = where
    step = pos - (ref_seq.shape[1] - len(ref.scores))
    scores = ref.scores[step][row]
    gap = float(scores[ref_seq[row, pos]] - scores[seq[row, pos]])
    bound = 64 * torch.finfo(torch.float32).eps * float(scores.abs().max())
    assert gap <= bound, (f"tpu chose token {int(seq[row, pos])} at row {row} position {pos}, CPU "
                          f"{int(ref_seq[row, pos])}, whose score is higher by {gap:.3e} (> {bound:.1e})")
