"""transformers models on tpu as a user runs them, unchanged: tiny random
configurations of several families train on tpu like CPU with no host
fallback (examples/compare_training.py's error model), tied weights stay
tied, greedy generate() decodes CPU's tokens, and a static cache compiles
through transformers' own auto-compile (torch.compile(backend="tpu"))."""

import pytest
import torch

import torch_tpu

transformers = pytest.importorskip("transformers")
import model_zoo  # noqa: E402
from model_zoo import (FLOAT32_ISLANDS, VOCAB, causal_lm_loss, classifier_loss, compare_training, example, images,  # noqa: E402
                       moe_causal_lm_loss, seq2seq_loss, tokens)

T = transformers
NO_DROPOUT = dict(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)


def gpt2():
    return T.GPT2LMHeadModel(T.GPT2Config(vocab_size=VOCAB, n_positions=64, n_embd=32, n_layer=2, n_head=4,
                                          resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0))


def llama():
    return T.LlamaForCausalLM(T.LlamaConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64,
                                            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                                            max_position_embeddings=64, tie_word_embeddings=True))


def t5():
    return T.T5ForConditionalGeneration(T.T5Config(vocab_size=VOCAB, d_model=32, d_kv=8, d_ff=64, num_layers=2,
                                                   num_heads=4, dropout_rate=0.0, decoder_start_token_id=0))


def whisper():
    return T.WhisperForConditionalGeneration(T.WhisperConfig(
        vocab_size=VOCAB, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
        decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, num_mel_bins=16,
        max_source_positions=32, max_target_positions=32, dropout=0.0, decoder_start_token_id=1,
        pad_token_id=0, bos_token_id=1, eos_token_id=2))


def bert():
    return T.BertForSequenceClassification(T.BertConfig(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2,
                                                        num_attention_heads=4, intermediate_size=64,
                                                        num_labels=3, **NO_DROPOUT))


def vit():
    return T.ViTForImageClassification(T.ViTConfig(image_size=32, patch_size=8, hidden_size=32,
                                                   num_hidden_layers=2, num_attention_heads=4,
                                                   intermediate_size=64, num_labels=5, **NO_DROPOUT))


def mixtral():
    # The default experts implementation: on tpu, transformers routes tokens
    # with torch.histc on int32 and runs the experts through grouped_mm.
    return T.MixtralForCausalLM(T.MixtralConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64,
                                                num_hidden_layers=2, num_attention_heads=4,
                                                num_key_value_heads=2, num_local_experts=4,
                                                num_experts_per_tok=2, max_position_embeddings=64,
                                                output_router_logits=True))


def _lm(g):
    return (tokens(g),)


EXAMPLES = {
    "gpt2": example("gpt2", gpt2, _lm, causal_lm_loss),
    # RMSNorm's variance and the rotary angles are float32 in any dtype.
    "llama": example("llama", llama, _lm, causal_lm_loss, FLOAT32_ISLANDS),
    "mixtral": example("mixtral", mixtral, _lm, moe_causal_lm_loss, FLOAT32_ISLANDS),
    # T5's layer norm computes its variance in float32.
    "t5": example("t5", t5, lambda g: (tokens(g), tokens(g, length=6)), seq2seq_loss("input_ids"),
                  FLOAT32_ISLANDS),
    "whisper": example("whisper", whisper,
                       lambda g: (torch.randn(2, 16, 64, generator=g), torch.randint(3, VOCAB, (2, 6), generator=g)),
                       seq2seq_loss("input_features")),
    "bert": example("bert", bert, lambda g: (tokens(g), torch.randint(0, 3, (2,), generator=g)),
                    classifier_loss("input_ids")),
    "vit": example("vit", vit, lambda g: (images(g), torch.randint(0, 5, (2,), generator=g)),
                   classifier_loss("pixel_values")),
}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_trains_on_tpu_like_cpu_without_fallback(name):
    with torch_tpu.no_fallback():
        report = compare_training.compare(EXAMPLES[name], 3)
    assert report.ok, report.text()


@pytest.mark.parametrize("make,tied", [
    (gpt2, ("lm_head.weight", "transformer.wte.weight")),
    (t5, ("lm_head.weight", "shared.weight")),
    (whisper, ("proj_out.weight", "model.decoder.embed_tokens.weight")),
    (llama, ("lm_head.weight", "model.embed_tokens.weight")),
], ids=lambda v: getattr(v, "__name__", ""))
def test_tied_weights_stay_tied_on_tpu(make, tied):
    model = make()
    head, embedding = (model.get_parameter(n) for n in tied)
    assert head is embedding
    model.to("tpu")
    assert model.get_parameter(tied[0]) is model.get_parameter(tied[1]) is head
    assert head.device.type == "tpu"


def _generate_inputs(name, g):
    if name == "t5":
        return {"input_ids": tokens(g, length=7)}
    return {"input_ids": tokens(g, length=6), "attention_mask": torch.ones(2, 6, dtype=torch.int64)}


@pytest.mark.parametrize("make", [gpt2, llama, t5, mixtral], ids=lambda f: f.__name__)
def test_greedy_generate_decodes_cpus_tokens(make):
    torch.manual_seed(0)
    cpu = make().eval()
    tpu = make().eval()
    tpu.load_state_dict(cpu.state_dict())
    tpu.to("tpu")
    inputs = _generate_inputs(make.__name__, torch.Generator().manual_seed(1))
    with torch_tpu.no_fallback():
        model_zoo.assert_same_greedy_decoding(cpu, tpu, inputs, pad_token_id=0)


def test_static_cache_generate_compiles_with_backend_tpu(fresh_dynamo):
    # transformers compiles the decoding step itself for a static cache:
    # torch.compile(backend="tpu") for a model on device "tpu".
    from torch._dynamo.utils import counters

    torch.manual_seed(0)
    cpu = llama().eval()
    tpu = llama().eval()
    tpu.load_state_dict(cpu.state_dict())
    tpu.to("tpu")
    inputs = _generate_inputs("llama", torch.Generator().manual_seed(1))
    with torch_tpu.no_fallback():
        model_zoo.assert_same_greedy_decoding(cpu, tpu, inputs, pad_token_id=0, cache_implementation="static")
    assert counters["stats"]["unique_graphs"] >= 1  # the decoding step was compiled
    assert counters["inductor"]["fxgraph_cache_miss"] + counters["inductor"]["fxgraph_cache_hit"] >= 1
