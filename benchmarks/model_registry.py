"""Real architectures at realistic sizes, randomly initialised: forward, one
training step and (for the language models) greedy decoding, on tpu in
eager, compiled and reduce-overhead modes against CPU eager and CPU-Inductor
in the same run. Reports first-step time (compilation included), the
post-warm-up step time and tpu's peak device memory.

    python benchmarks/model_registry.py [--models llama-0.3b resnet50 ...] [--modes ...] [--steps 3]

Sizes are chosen so the whole registry fits 24 GiB and runs in about ten
minutes on 2 cores: batch and sequence sizes are in MODELS. Timing only, no
assertions; the table goes to benchmarks/results/model_registry.json and,
by hand, to docs/performance.md.
"""

from __future__ import annotations

import argparse
import copy
import gc
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Callable, Dict, List

os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", tempfile.mkdtemp(prefix="model_registry_"))

from common import print_table, save, tpu_sync  # noqa: E402  (imports this checkout's torch_tpu)

import torch  # noqa: E402
import torch._dynamo  # noqa: E402


@dataclass
class Spec:
    build: Callable[[], torch.nn.Module]
    batch: Callable[[torch.Generator], tuple]
    loss: Callable[[torch.nn.Module, tuple], torch.Tensor]
    lm: bool = False  # also greedy decoding
    what: str = ""


def _llama():
    import transformers as T

    # ~0.29B parameters: 16 layers of width 1024, a 50k vocabulary.
    cfg = T.LlamaConfig(vocab_size=50_000, hidden_size=1024, intermediate_size=2816, num_hidden_layers=16,
                        num_attention_heads=16, num_key_value_heads=8, max_position_embeddings=512)
    return T.LlamaForCausalLM(cfg)


def _tokens(vocab, batch, seq):
    return lambda g: (torch.randint(0, vocab, (batch, seq), generator=g),)


def _lm_loss(model, batch):
    (ids,) = batch
    logits = model(input_ids=ids).logits
    return torch.nn.functional.cross_entropy(logits[:, :-1].flatten(0, 1), ids[:, 1:].flatten())


def _timm(name, **kw):
    def build():
        import timm

        return timm.create_model(name, pretrained=False, num_classes=1000, **kw)
    return build


def _images(batch, size=224):
    return lambda g: (torch.randn(batch, 3, size, size, generator=g), torch.randint(0, 1000, (batch,), generator=g))


def _classifier_loss(model, batch):
    x, y = batch
    return torch.nn.functional.cross_entropy(model(x), y)


class LSTMLanguageModel(torch.nn.Module):
    def __init__(self, vocab=10_000, width=512, hidden=1024, layers=2):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, width)
        self.lstm = torch.nn.LSTM(width, hidden, num_layers=layers, batch_first=True)
        self.head = torch.nn.Linear(hidden, vocab)

    def forward(self, tokens):
        return self.head(self.lstm(self.embed(tokens))[0])


def _lstm_loss(model, batch):
    (ids,) = batch
    logits = model(ids[:, :-1])
    return torch.nn.functional.cross_entropy(logits.flatten(0, 1), ids[:, 1:].flatten())


MODELS: Dict[str, Spec] = {
    "llama-0.3b": Spec(_llama, _tokens(50_000, 1, 128), _lm_loss, lm=True, what="Llama 0.29B, batch 1 x 128"),
    "resnet50": Spec(_timm("resnet50"), _images(8), _classifier_loss, what="timm ResNet-50, batch 8 x 224^2"),
    "vit-b16": Spec(_timm("vit_base_patch16_224"), _images(4), _classifier_loss,
                    what="timm ViT-B/16, batch 4 x 224^2"),
    "lstm-lm": Spec(LSTMLanguageModel, _tokens(10_000, 16, 65), _lstm_loss,
                    what="2-layer LSTM LM (1024), batch 16 x 64"),
}
MODES = ["cpu-eager", "cpu-inductor", "tpu-eager", "tpu-compiled", "tpu-reduce-overhead"]


def _mode(mode):
    device, how = mode.split("-", 1)
    compile_mode = {"eager": None, "inductor": "default", "compiled": "default",
                    "reduce-overhead": "reduce-overhead"}[how]
    return device, compile_mode


def _timed(fn, sync, steps):
    """(first call seconds, median of `steps` calls after one warm-up)."""
    t0 = time.perf_counter()
    fn()
    sync()
    first = time.perf_counter() - t0
    fn()
    sync()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return first, statistics.median(times)


def _case(spec: Spec, ref: torch.nn.Module, mode: str, steps: int) -> dict:
    device, compile_mode = _mode(mode)
    sync = tpu_sync if device == "tpu" else (lambda: None)
    torch._dynamo.reset()
    model = copy.deepcopy(ref).to(device).train()
    fwd = model if compile_mode is None else torch.compile(model, mode=compile_mode)
    batch = tuple(t.to(device) for t in spec.batch(torch.Generator().manual_seed(0)))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)

    def forward():
        with torch.no_grad():
            spec.loss(fwd, batch)

    def train_step():
        loss = spec.loss(fwd, batch)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    if device == "tpu":
        torch.tpu.reset_peak_memory_stats()
    row = {}
    row["fwd first s"], row["fwd ms"] = _timed(forward, sync, steps)
    row["fwd ms"] *= 1e3
    row["step first s"], row["step ms"] = _timed(train_step, sync, steps)
    row["step ms"] *= 1e3
    row["peak GiB"] = torch.tpu.max_memory_allocated() / 2**30 if device == "tpu" else float("nan")
    if spec.lm:
        row["decode tok/s"] = _decode(model, batch[0][:, :16], compile_mode, sync)
    del model, fwd, opt
    gc.collect()
    return row


def _decode(model, prompt, compile_mode, sync, new_tokens=32):
    """Greedy tokens per second with a static cache; compiled modes let
    transformers compile the decoding step itself (backend "tpu" on tpu)."""
    model.eval()
    kwargs = dict(max_new_tokens=new_tokens, do_sample=False, pad_token_id=0, cache_implementation="static")
    if compile_mode is None:
        kwargs["disable_compile"] = True
    with torch.no_grad():
        model.generate(prompt, **kwargs)  # compiles, if it does
        sync()
        t0 = time.perf_counter()
        model.generate(prompt, **kwargs)
        sync()
    return new_tokens * prompt.shape[0] / (time.perf_counter() - t0)


def run(models: List[str], modes: List[str], steps: int) -> List[dict]:
    rows = []
    for name in models:
        spec = MODELS[name]
        torch.manual_seed(0)
        ref = spec.build()
        base = {}
        for mode in modes:
            row = _case(spec, ref, mode, steps)
            base.setdefault(mode, row)
            out = {"model": spec.what, "mode": mode, **row}
            for ref_mode in ("cpu-eager", "cpu-inductor"):
                if ref_mode in base and mode.startswith("tpu"):
                    out[f"step / {ref_mode}"] = row["step ms"] / base[ref_mode]["step ms"]
            rows.append(out)
            print({k: (round(v, 4) if isinstance(v, float) else v) for k, v in out.items()}, flush=True)
        del ref
        gc.collect()
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    p.add_argument("--modes", nargs="+", default=MODES, choices=MODES)
    p.add_argument("--steps", type=int, default=3)
    a = p.parse_args(argv)
    rows = run(a.models, a.modes, a.steps)
    print_table("Model registry (ratios in the same run)", rows)
    save("model_registry", rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
