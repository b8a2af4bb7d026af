"""Indexing and shape ops: tpu against CPU eager in the same process
(ratio = tpu time / CPU time; the tpu time includes the synchronisation).
Indicative only on a shared machine."""

from __future__ import annotations

import torch

from common import compare, print_table, save


def _row(what, fn_tpu, fn_cpu):
    t_tpu, t_cpu = compare(fn_tpu, fn_cpu)
    return {"what": what, "tpu ms": t_tpu * 1e3, "cpu ms": t_cpu * 1e3, "ratio": t_tpu / t_cpu}


def run() -> list:
    rows = []
    g = torch.Generator().manual_seed(0)
    # GPT-2 sized embedding lookup: 50k x 768 table, 8k token ids.
    table = torch.randn(50257, 768, generator=g)
    ids = torch.randint(0, 50257, (8192,), generator=g)
    table_t, ids_t = table.to("tpu"), ids.to("tpu")
    rows.append(_row("index_select 50257x768, 8192 ids",
                     lambda: torch.index_select(table_t, 0, ids_t), lambda: torch.index_select(table, 0, ids)))
    # cat of 4 tensors of 4M floats.
    parts = [torch.randn(4 << 20, generator=g) for _ in range(4)]
    parts_t = [p.to("tpu") for p in parts]
    rows.append(_row("cat 4 x 4M float32", lambda: torch.cat(parts_t), lambda: torch.cat(parts)))
    parts2 = [p.view(1024, 4096) for p in parts]
    parts2_t = [p.view(1024, 4096) for p in parts_t]
    rows.append(_row("cat 4 x (1024,4096) dim=1", lambda: torch.cat(parts2_t, 1), lambda: torch.cat(parts2, 1)))
    # Causal mask pieces of a GPT step.
    att = torch.randn(8, 12, 256, 256, generator=g)
    att_t = att.to("tpu")
    mask = torch.ones(256, 256).tril() == 0
    mask_t = mask.to("tpu")
    rows.append(_row("masked_fill (8,12,256,256) causal", lambda: att_t.masked_fill(mask_t, float("-inf")),
                     lambda: att.masked_fill(mask, float("-inf"))))
    ones = torch.ones(1024, 1024)
    ones_t = ones.to("tpu")
    rows.append(_row("tril 1024x1024", lambda: torch.tril(ones_t), lambda: torch.tril(ones)))
    # Cross-entropy style gather and advanced indexing.
    logits = torch.randn(8192, 1024, generator=g)
    tgt = torch.randint(0, 1024, (8192, 1), generator=g)
    logits_t, tgt_t = logits.to("tpu"), tgt.to("tpu")
    rows.append(_row("gather (8192,1024) dim=1", lambda: logits_t.gather(1, tgt_t), lambda: logits.gather(1, tgt)))
    rows_idx = torch.arange(8192)
    rows_idx_t = rows_idx.to("tpu")
    tgt1, tgt1_t = tgt.view(-1), tgt_t.view(-1)
    rows.append(_row("logits[arange, target] (8192,1024)", lambda: logits_t[rows_idx_t, tgt1_t],
                     lambda: logits[rows_idx, tgt1]))
    grad = torch.zeros(50257, 768)
    grad_t = grad.to("tpu")
    upd = torch.randn(8192, 768, generator=g)
    upd_t = upd.to("tpu")
    rows.append(_row("index_put_ accumulate 8192 rows of 768", lambda: grad_t.index_put_((ids_t,), upd_t, True),
                     lambda: grad.index_put_((ids,), upd, True)))
    rows.append(_row("scatter_add (8192,768) into 50257 rows",
                     lambda: grad_t.scatter_add_(0, ids_t.view(-1, 1).expand(-1, 768), upd_t),
                     lambda: grad.scatter_add_(0, ids.view(-1, 1).expand(-1, 768), upd)))
    rows.append(_row("index_add_ 8192 rows of 768 into 50257",
                     lambda: grad_t.index_add_(0, ids_t, upd_t), lambda: grad.index_add_(0, ids, upd)))
    cols = torch.randint(0, 1024, (256,), generator=g)
    cols_t = cols.to("tpu")
    rows.append(_row("index_copy_ 256 columns of (8192,1024)",
                     lambda: logits_t.index_copy_(1, cols_t, logits_t[:, :256].clone()),
                     lambda: logits.index_copy_(1, cols, logits[:, :256].clone())))
    rows.append(_row("index_fill_ 256 columns of (8192,1024)",
                     lambda: logits_t.index_fill_(1, cols_t, 0.0), lambda: logits.index_fill_(1, cols, 0.0)))
    flat = torch.randint(0, 8192 * 1024, (1 << 20,), generator=g)
    flat_t = flat.to("tpu")
    rows.append(_row("take 1M of (8192,1024)", lambda: logits_t.take(flat_t), lambda: logits.take(flat)))
    rows.append(_row("arange 1M", lambda: torch.arange(1 << 20, device="tpu"), lambda: torch.arange(1 << 20)))
    return rows


if __name__ == "__main__":
    rows = run()
    print_table("Indexing and shape (ratio = tpu / cpu)", rows)
    save("index", rows)
