"""The sections of docs/coverage.md. codegen/report/coverage.py gathers the facts
(Facts) and calls document(); everything here only formats them.

Layout, for a reader who opens the file cold: a summary table, a table of
contents, the manifest entries split by op family, the other sections, and
last the reason codes. Three rules keep the file readable:

  - a reason text that recurs (REPEATS_FOR_CODE times or more) is shown as a
    short code (R1, R2, ...) and defined once in the "Reason codes" table;
    codes are numbered by first appearance, so two runs give the same bytes;
  - prose is wrapped at WIDTH columns and long lists go into tables, so no
    line is long;
  - everything is sorted; nothing depends on test results, timings or dates.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from ..facts import autocast, autograd, upstream
from ..facts.dtypes import DTYPES
from ..model.manifest import ROUTES, Route
from ..proofs import closure, stub_check
from ..testgen import contracts, custom_op_tests, out_rules
from . import coverage

DASH = coverage.DASH
WIDTH = 100               # prose is wrapped at this column
REPEATS_FOR_CODE = 3      # a reason seen this often is printed as a code
REASON_CODES = "Reason codes"
OPINFO_CHECKS = ("values", "meta", "out", "reference", "grad", "errors", "autocast")


@dataclass(frozen=True)
class Facts:
    """Everything docs/coverage.md shows, computed by coverage.render()."""
    torch_version: str
    entries: List                          # manifest.Entry, sorted by op
    customs: List                          # custom_ops.CustomOp, sorted by qualname
    proofs: Dict[str, "closure.Proof"]
    findings: List["stub_check.Finding"]
    analyses: Dict[str, "stub_check.Analysis"]
    skip_reason: Optional[str]             # why the stub check could not run
    plans: Optional[Dict[str, object]]     # op -> op_tests.Plan; None: tests_emit missing
    outs: List                             # contracts.OutPlan
    promos: List                           # contracts.PromotionPlan
    core: List["coverage.CoreRow"]
    modules: Optional[Dict[str, int]] = None   # module_tests.counts(); None: not computed
    declared: Tuple = ()                   # manifest.Declared: overloads without an entry, sorted
    optim_xfails: Optional[List] = None    # optim_tests.xfails(); None: tests/test_optim_db.py missing
    device_generic: Optional[object] = None  # device_generic_tests.tables(); None: a file missing


# --------------------------------------------------------------------------
# Text helpers


def wrap(text: str, indent: str = "", first: str = "") -> str:
    """Greedy word wrap at WIDTH. Markdown joins the lines again; a word that
    would start a list, heading or quote at the start of a line is kept on
    the previous line."""
    lines, line, fresh = [], first, True
    for word in text.split():
        starts_block = re.fullmatch(r"[-+*>#|]+|\d+[.)]", word) is not None
        if not fresh and len(line) + 1 + len(word) > WIDTH and not starts_block:
            lines.append(line)
            line = indent + word
        else:
            line = line + word if fresh else f"{line} {word}"
        fresh = False
    lines.append(line)
    return "\n".join(lines)


def anchor(title: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes."""
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")


def link(title: str, text: str = "") -> str:
    return f"[{text or title}](#{anchor(title)})"


def row(*cells) -> str:
    return "| " + " | ".join(coverage._cell(c) for c in cells) + " |"


def header(*names) -> List[str]:
    return ["| " + " | ".join(names) + " |", "|" + "---|" * len(names)]


def count(n: int, one: str, many: str) -> str:
    """"1 entry", "2 entries"."""
    return f"{n} {one if n == 1 else many}"


def code_list(ops: Sequence[str]) -> str:
    return ", ".join(f"`{op}`" for op in ops)


# --------------------------------------------------------------------------
# Reason codes


class Reasons:
    """Recurring reason texts become short codes. Sections call ref(text)
    while rendering, which leaves a placeholder; finish() counts the
    placeholders in the finished text, codes the recurring ones in order of
    first appearance and puts the plain text back for the others."""

    _PLACEHOLDER = re.compile("\x00(\\d+)\x00")

    def __init__(self):
        self._ids: Dict[str, int] = {}

    def ref(self, text: str) -> str:
        return f"\x00{self._ids.setdefault(text, len(self._ids))}\x00"

    def finish(self, doc: str) -> Tuple[str, List[Tuple[str, str]]]:
        """The text with codes or reasons in place, and the (code, reason) pairs."""
        texts = {i: t for t, i in self._ids.items()}
        found = [int(i) for i in self._PLACEHOLDER.findall(doc)]
        counts = Counter(found)
        codes: Dict[int, str] = {}
        for i in found:
            if counts[i] >= REPEATS_FOR_CODE and i not in codes:
                codes[i] = f"R{len(codes) + 1}"
        doc = self._PLACEHOLDER.sub(
            lambda m: codes.get(int(m.group(1))) or coverage._cell(texts[int(m.group(1))]), doc)
        return doc, [(code, texts[i]) for i, code in codes.items()]


def codes_section(codes: List[Tuple[str, str]]) -> str:
    lines = [f"## {REASON_CODES}", "",
             wrap(f"A reason that appears {REPEATS_FOR_CODE} times or more in the tables above is "
                  "printed as its code; codes are numbered in order of first appearance."), ""]
    if not codes:
        return "\n".join(lines + ["None.", ""])
    lines += header("code", "reason")
    lines += [row(code, text) for code, text in codes]
    return "\n".join(lines + [""])


# --------------------------------------------------------------------------
# Op families (the entries table is split by them)

# (family, names): an entry belongs to the first family one of whose names
# its op name starts with (leading underscores and the overload dropped).
# Ops matching none are placed by torch's tags (native_functions.yaml):
# pointwise ops in the elementwise families, reduction ops in reductions.
_NAMED = (
    ("Creation, storage and copies",
     ("arange", "clone", "copy", "empty", "fill", "full", "linspace", "local_scalar_dense",
      "ones", "record_stream", "resize", "scalar_tensor", "set_", "sym_", "to_copy", "zero")),
    ("Shape and views",
     ("alias", "as_strided", "cat", "diagonal", "expand", "flip", "permute", "repeat",
      "reshape_alias", "select.", "slice.", "split", "squeeze", "stack", "tril", "triu",
      "unfold", "unsqueeze", "view")),
    ("Indexing and sorting",
     ("gather", "index", "masked_", "nonzero", "scatter", "select_scatter", "slice_scatter",
      "sort", "topk")),
    ("Reductions and scans", ("cumprod", "cumsum")),
    ("Elementwise binary and ternary", ("floor_divide",)),
    ("Matrix products and attention",
     ("addmm", "addmv", "baddbmm", "bilinear", "bmm", "dot", "fused_sdp", "linalg_multi_dot",
      "linalg_vecdot", "linear", "matmul", "mm", "mv", "scaled_dot_product", "vdot")),
    ("nn: activations and softmax",
     ("elu", "gelu", "hardtanh", "leaky_relu", "log_softmax", "relu", "sigmoid_backward",
      "silu", "softmax", "tanh_backward", "threshold")),
    ("nn: layers",
     ("adaptive_", "avg_pool", "col2im", "constant_pad", "conv", "cosine_similarity",
      "embedding", "grid_sampler", "im2col", "layer_norm", "max_pool", "native_batch_norm",
      "native_group_norm", "native_layer_norm", "reflection_pad", "replication_pad",
      "rms_norm", "upsample")),
    ("nn: losses", ("cosine_embedding_loss", "hinge_embedding_loss", "l1_loss",
                    "margin_ranking_loss", "nll_loss", "poisson_nll_loss", "soft_margin_loss")),
    ("Random", ("bernoulli", "cauchy", "exponential", "geometric", "log_normal", "multinomial",
                "native_dropout", "normal", "rand", "uniform")),
    ("Foreach (optimizers)", ("foreach_",)),
)
_UNARY, _BINARY, _REDUCTIONS, _OTHER = (
    "Elementwise unary", "Elementwise binary and ternary", "Reductions and scans", "Other")
# Display order.
FAMILIES = ("Creation, storage and copies", "Shape and views", "Indexing and sorting",
            _UNARY, _BINARY, _REDUCTIONS, "Matrix products and attention",
            "nn: activations and softmax", "nn: layers", "nn: losses", "Random",
            "Foreach (optimizers)", _OTHER)
FAMILY_RULE = ("Families: by op name (creation, views, indexing, matrix products, nn, random, "
               "foreach), else by torch's tags: `reduction` ops are reductions, `pointwise` ops "
               "are binary when some overload of theirs takes two tensors and unary otherwise; "
               "the rest is *Other*.")


def family(op: str) -> str:
    """The family of an entry's op (FAMILIES)."""
    name = op.lstrip("_")
    dotted = name if "." in name else name + "."
    for fam, prefixes in _NAMED:
        if any(dotted.startswith(p) for p in prefixes):
            return fam

    up = upstream.lookup(op)
    tags = up.tags if up is not None else ()
    if "reduction" in tags:
        return _REDUCTIONS
    if "pointwise" in tags:
        return _BINARY if up.base in _two_tensor_bases() else _UNARY
    return _OTHER


@functools.lru_cache(maxsize=1)
def _two_tensor_bases() -> frozenset:
    """Base names of which some overload takes two or more tensors (positional)."""

    return frozenset(u.base for u in upstream.upstream_ops().values()
                     if sum(a.type.is_tensor_like() for a in u.func.arguments.flat_positional) >= 2)


# --------------------------------------------------------------------------
# Counts for the summary


def _by_hand(p) -> str:
    """The handwritten test file of an entry no OpInfo reaches (tests_emit's
    reason for it says only that; the file is what a reader wants), or ""."""
    e = p.entry
    return e.tests.handwritten if p.untested and e.tests.handwritten and not e.tests.opinfo else ""


def dtype_gaps(f: Facts) -> List[Tuple[str, Tuple[str, ...], List[str]]]:
    """(op, declared dtypes, dtypes CPU supports that the entry does not
    declare) for each registering entry (not composite) with declared
    dtypes whose tests use OpInfos:
    the OpInfos' CPU dtypes are what a user can call the op with on CPU."""
    out = []
    for op, p in sorted((f.plans or {}).items()):
        e = p.entry
        # A composite entry registers no wrapper: its dtypes only narrow its tests.
        if not e.dtypes or not p.opinfos or e.route == Route.COMPOSITE:
            continue
        cpu = [d for d in DTYPES if any(d in o.dtypes for o in p.opinfos)]
        missing = [d for d in cpu if d not in e.dtypes]
        if missing:
            out.append((op, e.dtypes, missing))
    return out


def dtype_gap_section(f: Facts) -> str:
    gaps = dtype_gaps(f)
    lines = ["## Dtypes CPU has and tpu rejects", "",
             wrap("Entries whose declared `dtypes` leave out dtypes that CPU supports for the "
                  "OpInfos their tests use: the union over those OpInfos, so a dtype only one "
                  "variant has counts, and an OpInfo whose function converts its input before "
                  "calling the op (softmax's dtype=, the FFTs' real input) lists dtypes the op "
                  "itself never sees. The rest raise NotImplementedError on tpu, naming the op "
                  "and dtype: each is a kernel to write, or a reason to give in the entry's "
                  "notes (shown here)."),
             "", f"{count(len(gaps), 'entry', 'entries')}, "
             f"{sum(len(g[2]) for g in gaps)} (entry, dtype) pairs.", ""]
    if gaps:
        notes = {op: p.entry.notes for op, p in (f.plans or {}).items()}
        lines += header("op", "declared", "CPU also supports", "notes")
        lines += [row(f"`{op}`", ", ".join(declared), ", ".join(missing), notes.get(op) or "—")
                  for op, declared, missing in gaps]
    return "\n".join(lines + [""])


CUDA_GAPS = "Dtypes CUDA has and tpu rejects"


def cuda_dtype_gaps(f: Facts) -> List[Tuple[str, Tuple[str, ...], List[str]]]:
    """(op, declared dtypes, dtypes CUDA supports and CPU does not for the
    entry's OpInfos that the entry does not declare), as dtype_gaps: a CUDA
    program that calls the op in such a dtype gets NotImplementedError on tpu."""
    out = []
    for op, p in sorted((f.plans or {}).items()):
        e = p.entry
        if not e.dtypes or not p.opinfos or e.route == Route.COMPOSITE:
            continue
        cuda = [d for d in DTYPES if any(d in o.cuda_dtypes for o in p.opinfos)
                and not any(d in o.dtypes for o in p.opinfos)]
        missing = [d for d in cuda if d not in e.dtypes]
        if missing:
            out.append((op, e.dtypes, missing))
    return out


def cuda_dtype_gap_section(f: Facts) -> str:
    gaps = cuda_dtype_gaps(f)
    cases = [c for p in (f.plans or {}).values() for c in p.cases if c.cpu_lacks]
    lines = [f"## {CUDA_GAPS}", "",
             wrap("tpu runs CUDA's dtypes where CPU's are narrower, so that a CUDA program runs "
                  "with \"cuda\" changed to \"tpu\". The generated tests check a dtype an "
                  "OpInfo supports on CUDA and not on CPU against CPU computing in a wider dtype "
                  "and rounding back (`tests/cuda_dtype_reference.py`): "
                  f"{count(len(cases), 'check', 'checks')} over "
                  f"{count(len({c.opinfo.full_name + ' ' + c.dtype for c in cases}), '(OpInfo, dtype) pair', '(OpInfo, dtype) pairs')}. "
                  "Listed here: entries whose declared `dtypes` leave out such a dtype of the "
                  "OpInfos their tests use (complex32, which tpu does not store, is not counted). "
                  "CUDA-library entry points are excluded with their reason in "
                  f"{link(WITHOUT_ENTRY)}."),
             "", f"{count(len(gaps), 'entry', 'entries')}, "
             f"{sum(len(g[2]) for g in gaps)} (entry, dtype) pairs.", ""]
    if gaps:
        notes = {op: p.entry.notes for op, p in (f.plans or {}).items()}
        lines += header("op", "declared", "CUDA also supports", "notes")
        lines += [row(f"`{op}`", ", ".join(declared), ", ".join(missing), notes.get(op) or "—")
                  for op, declared, missing in gaps]
    return "\n".join(lines + [""])


def _opinfo_counts(f: Facts) -> Dict[str, int]:
    """Entries with generated OpInfo checks, their checks (xfailed or not),
    and the entries no OpInfo reaches (tested by hand, or not at all)."""
    plans = list((f.plans or {}).values())
    tested = [p for p in plans if p.cases and not p.untested]
    unreached = [p for p in plans if p.untested or not p.cases]
    cases = [c for p in tested for c in p.cases]
    return {"tested": len(tested), "cases": len(cases),
            "xfail": sum(1 for c in cases if c.xfail),
            "unreached": len(unreached),
            "handwritten": sum(1 for p in unreached if _by_hand(p))}


def _check_counts(f: Facts) -> List[Tuple[str, int, int, int]]:
    """Per OpInfo check kind: (check, cases, strict xfails, entries with it)."""
    plans = [p for p in (f.plans or {}).values() if p.cases and not p.untested]
    out = []
    for check in OPINFO_CHECKS:
        cases = [c for p in plans for c in p.cases if c.check == check]
        entries = sum(1 for p in plans if any(c.check == check for c in p.cases))
        out.append((check, len(cases), sum(1 for c in cases if c.xfail), entries))
    return out


def handwritten(f: Facts) -> Dict[str, List[str]]:
    """Handwritten test file -> the entries only it tests (no OpInfo case)."""
    files: Dict[str, List[str]] = {}
    for op, p in sorted((f.plans or {}).items()):
        if _by_hand(p):
            files.setdefault(_by_hand(p), []).append(op)
    return dict(sorted(files.items()))


def _autocast_counts(f: Facts) -> Dict[str, int]:

    by_op = {e.op: e for e in f.entries}
    ref = autocast.reference_rows()
    declared = [(op, policy) for op, policy in ref if op in by_op]
    same = sum(1 for op, policy in declared if by_op[op].autocast == policy)
    extra = [e for e in f.entries if e.autocast and autocast.reference_policy(e.op) == "none"]
    return {"cuda": len(ref), "declared": len(declared), "same": same,
            "differ": len(declared) - same, "extra": len(extra)}


def _out_xfails(f: Facts) -> List[Tuple[str, str, str]]:
    """(entry, rule, reason) of every out= contract check declared xfail."""

    return [(p.entry.op, r, why) for p in sorted(f.outs, key=lambda p: p.entry.op)
            for r in p.rules for why in [contracts._xfail(p.entry, "out_contract", r)] if why]


def _promotion_counts(f: Facts) -> Dict[str, int]:

    matrices = [p for p in f.promos if p.kinds]
    return {"tests": sum(len(p.kinds) for p in matrices), "entries": len(matrices),
            "xfail": sum(len(p.kinds) for p in matrices if contracts._xfail(p.entry, "promotion"))}


def _custom_checks(f: Facts) -> int:

    return sum(len(custom_op_tests.checks(c, f.customs)) for c in f.customs)


# --------------------------------------------------------------------------
# The document


def document(f: Facts) -> str:
    """The whole of docs/coverage.md."""
    reasons = Reasons()
    body = "\n".join([entries_section(f, reasons), declared_section(f), dtype_gap_section(f),
                      cuda_dtype_gap_section(f), custom_section(f),
                      autocast_section(f),
                      contracts_section(f, reasons), promotion_section(f), optim_section(f),
                      device_generic_section(f), core_section(f)])
    body, codes = reasons.finish(body)
    body += "\n" + codes_section(codes)
    head = ["# Operator coverage", "",
            wrap(f"Generated by `python -m codegen coverage` from `ops.yaml` against torch "
                 f"{f.torch_version}; do not edit (`python -m codegen check` fails when it is "
                 "stale). Everything here is derived from the manifest and static facts about "
                 "the installed torch: no test results, no timings."), "",
            headline_section(f), summary_section(f), contents(body)]
    return ("\n".join(head) + "\n" + body).rstrip("\n") + "\n"


def headline_section(f: Facts) -> str:
    """At most ten short rows: what a user asks first. The Summary below
    holds the details, each row pointing at its section."""
    entries = f.entries
    routes = ", ".join(f"{sum(1 for e in entries if e.route == r)} {r}" for r in ROUTES)
    counts = coverage.core_counts(f.core)
    rows = [("operator entries", f"{len(entries)} ({routes})"),
            ("Core ATen IR covered", f"{len(f.core) - counts[coverage.NONE]} of {len(f.core)}"),
            ("overloads excluded", f"{_declared_count(f, 'exclude')} (each with its reason)")]
    if f.plans is not None:
        o = _opinfo_counts(f)
        rows.append(("generated OpInfo checks", f"{o['cases'] - o['xfail']} pass, {o['xfail']} strict xfails"))
        rows.append(("dtype gaps (entry, dtype)", f"{sum(len(g[2]) for g in dtype_gaps(f))} of CPU's, "
                     f"{sum(len(g[2]) for g in cuda_dtype_gaps(f))} of CUDA's"))
    if f.modules is not None:
        rows.append(("modules (module_db)", f"{f.modules['tested']} of {f.modules['modules']}"))
    tested = [p for p in f.outs if p.rules]
    rows.append(("out= and promotion checks", f"{sum(len(p.rules) for p in tested)} and "
                 f"{_promotion_counts(f)['tests']}"))
    rows.append(("custom operators", str(len(f.customs))))
    assert len(rows) <= 10, "the headline is at most ten rows"
    return "\n".join(["## Headline", ""] + header("what", "how many") + [row(k, v) for k, v in rows] + [""])


def summary_section(f: Facts) -> str:
    """One table with the headline numbers in detail, each row pointing at its section."""
    entries = f.entries
    lines = ["## Summary", ""] + header("area", "count", "details")
    lines.append(row(link("Manifest entries"), len(entries),
                     f"{sum(len(e.variants) for e in entries)} registered overloads"))
    for r in ROUTES:
        mine = [e for e in entries if e.route == r]
        detail = f"{sum(len(e.variants) for e in mine)} registered overloads"
        if r == "composite" and _composites(f):
            detail += " (they decompose; their closures: " + link("Composite closures") + ")"
        lines.append(row(f"route: {r}", len(mine), detail))
    counts = coverage.core_counts(f.core)
    covered = len(f.core) - counts[coverage.NONE]
    lines.append(row(link("Core ATen IR") + " overloads covered", f"{covered} of {len(f.core)}",
                     "; ".join(f"{c}: {counts[c]}" for c in coverage.CATEGORIES)))
    if f.plans is None:
        lines.append(row("entries with generated OpInfo tests", "?",
                         "codegen/testgen/op_tests.py not available"))
    else:
        o = _opinfo_counts(f)
        lines.append(row("entries with generated OpInfo tests", f"{o['tested']} of {len(entries)}",
                         f"{o['cases']} checks planned: {o['cases'] - o['xfail']} expected to "
                         f"pass, {o['xfail']} strict xfails (ops.yaml `tests.xfail`)"))
        lines.append(row("generated OpInfo checks by kind", f"{len(OPINFO_CHECKS)} kinds", "; ".join(
            f"{check}: {n} over {count(k, 'entry', 'entries')}, {x} strict xfails"
            for check, n, x, k in _check_counts(f))))
        lines.append(row("entries without generated OpInfo tests", o["unreached"],
                         f"{o['handwritten']} tested by hand only, "
                         f"{o['unreached'] - o['handwritten']} with no test (why: their "
                         "family's table)"))
    lines.append(row(link(WITHOUT_ENTRY), len(f.declared),
                     f"{_declared_count(f, 'exclude')} excluded (tpu raises NotImplementedError), "
                     f"{_declared_count(f, 'upstream_kernel')} run by ATen's own composite kernel; "
                     "each with its reason (ops.yaml `exclude:` / `upstream_kernel:`)"))
    if f.plans is not None:
        gaps = dtype_gaps(f)
        lines.append(row(link("Dtypes CPU has and tpu rejects"), len(gaps),
                         f"entries declaring fewer dtypes than CPU supports for their OpInfos: "
                         f"{sum(len(g[2]) for g in gaps)} (entry, dtype) pairs, an upper bound "
                         "on the dtypes that raise NotImplementedError on tpu"))
        cuda_gaps = cuda_dtype_gaps(f)
        cuda_cases = [c for p in f.plans.values() for c in p.cases if c.cpu_lacks]
        lines.append(row(link(CUDA_GAPS), len(cuda_gaps),
                         f"generated checks in dtypes only CUDA has (against a widened CPU "
                         f"reference): {len(cuda_cases)}; entries declaring fewer of them than "
                         f"their OpInfos: {sum(len(g[2]) for g in cuda_gaps)} (entry, dtype) pairs"))
    if f.modules is not None:
        m = f.modules
        lines.append(row("ModuleInfo tests", f"{m['tested']} of {m['modules']} modules",
                         f"`tests/generated/test_modules.py`: {m['cases']} cases planned "
                         f"(module, dtype, mode; first {m['max_inputs']} ModuleInputs each): "
                         f"{m['cases'] - m['xfail']} expected to pass, {m['xfail']} strict xfails "
                         f"over {m['xfail_modules']} modules (`tests/module_xfails.yaml`); "
                         f"{m['unreached']} modules not reached (no float32/float64 on CPU, "
                         "no ModuleInput)"))
    if f.optim_xfails is not None:
        lines.append(row(link(OPTIMIZERS), "optim_db", "`tests/test_optim_db.py`: every OptimizerInfo, "
                         "each configuration of its optim_inputs_func, for-loop / foreach / fused, "
                         "float32, float64 and complex64 (LBFGS: float64 and complex128), against CPU; "
                         f"{count(len(f.optim_xfails), 'strict xfail row', 'strict xfail rows')} "
                         "(its `XFAILS` table)"))
    if f.device_generic is not None:
        d = f.device_generic
        lines.append(row(link(DEVICE_GENERIC), "op_db, module_db, optim_db",
                         "PyTorch's `instantiate_device_type_tests` on tpu: TestCommon-style checks "
                         "(variant consistency, non-standard bools, dtypes) over the OpInfos of the "
                         "generated tests, TestModule- and TestOptim-style checks over module_db and "
                         f"optim_db; {count(len(d.xfails), 'strict xfail row', 'strict xfail rows')}, "
                         f"{sum(len(g.dtypes.split()) for g in d.gaps)} (OpInfo, dtype) pairs where tpu "
                         f"and CPU differ over {len({g.name for g in d.gaps})} OpInfos"))
    a = _autocast_counts(f)
    lines.append(row(link("Autocast") + ": CUDA's overloads with an entry",
                     f"{a['declared']} of {a['cuda']}",
                     f"{a['same']} with CUDA's policy, {a['differ']} differing on purpose; "
                     f"{a['extra']} policies on ops CUDA's lists do not name"))
    tested = [p for p in f.outs if p.rules]
    untested = [p for p in f.outs if not p.rules and p.entry.family.get("out")]
    lines.append(row(link("The out= contract") + " checks", sum(len(p.rules) for p in tested),
                     f"over {count(len(tested), 'entry', 'entries')}; "
                     f"{len(_out_xfails(f))} strict xfails; "
                     f"none for {count(len(untested), 'entry', 'entries')} with an out= overload"))
    pc = _promotion_counts(f)
    lines.append(row(link("Type promotion") + " checks", pc["tests"],
                     f"over {count(pc['entries'], 'entry', 'entries')}; "
                     f"{pc['xfail']} strict xfails"))
    lines.append(row(link("Custom operators"), len(f.customs),
                     f"`torch.ops.tpu.*`; {_custom_checks(f)} generated checks"))
    files = handwritten(f)
    lines.append(row(link("Tested by hand", "entries tested only by hand"),
                     sum(len(ops) for ops in files.values()),
                     "in " + count(len(files), "handwritten test file", "handwritten test files")))
    return "\n".join(lines + [""])


WITHOUT_ENTRY = "Overloads without an entry"
OPTIMIZERS = "Optimizers (optim_db)"


DEVICE_GENERIC = "Device-generic tests"


def device_generic_section(f: Facts) -> str:
    """The known failures of the device-generic test files, from their tables."""
    if f.device_generic is None:
        return ""
    d = f.device_generic
    lines = [f"## {DEVICE_GENERIC}", "",
             wrap("tests/test_device_generic_ops.py and tests/test_device_generic_modules.py run "
                  "PyTorch's own device-generic machinery (`instantiate_device_type_tests(..., "
                  "only_for=\"tpu\")`, PrivateUse1TestBase, the @ops, @modules and @optims "
                  "decorators). Their known failures, from their tables: "
                  f"{count(len(d.xfails), 'strict xfail row', 'strict xfail rows')} (`XFAILS`) and "
                  f"the dtypes where tpu and CPU differ (`DTYPE_GAPS`: test_dtypes fails unless "
                  "exactly these differ)."), ""]
    if d.xfails:
        lines += header("file", "test", "name", "dtype", "raises", "reason")
        lines += [row(x.file, x.test, x.name, x.dtype, x.raises, x.reason) for x in d.xfails]
        lines.append("")
    if d.gaps:
        lines += header("OpInfo", "dtypes where tpu and CPU differ", "reason")
        lines += [row(g.name, g.dtypes, g.reason) for g in d.gaps]
    return "\n".join(lines + [""])


def optim_section(f: Facts) -> str:
    """The strict xfails of tests/test_optim_db.py, one row each."""
    if f.optim_xfails is None:
        return ""
    lines = [f"## {OPTIMIZERS}", "",
             wrap("tests/test_optim_db.py runs every optimizer of torch.optim's optim_db on tpu "
                  "against CPU (parameters and state after 5 steps, no host fallback). Its known "
                  f"failures, strict xfails from its `XFAILS` table: {len(f.optim_xfails)}."
                  " `*` matches every configuration or dtype."), ""]
    if f.optim_xfails:
        lines += header("optimizer", "implementation", "configuration", "dtype", "raises", "reason")
        lines += [row(x.optimizer, x.impl, x.config, x.dtype, x.raises, x.reason) for x in f.optim_xfails]
    return "\n".join(lines + [""])


def _declared_count(f: Facts, kind: str) -> int:
    return sum(1 for d in f.declared if d.kind == kind)


def declared_section(f: Facts) -> str:
    """The overloads ops.yaml declares on purpose without an entry."""
    lines = [f"## {WITHOUT_ENTRY}", "",
             wrap("Overloads that op_db or module_db reach and that have no entry on purpose, each "
                  "declared in ops.yaml with its reason. `exclude`: tpu does not run it and raises "
                  "NotImplementedError. "
                  "`upstream_kernel`: ATen's own composite kernel (e.g. torchgen's autogen out= "
                  "kernel) runs it on tpu over covered entries; the generator checks that the "
                  "kernel exists, and the test file named runs it."), ""]
    lines += header("overload", "declared", "reason", "test")
    for d in f.declared:
        lines.append(row(f"`{d.op}`", d.kind, d.reason, f"`{d.handwritten}`" if d.handwritten else DASH))
    return "\n".join(lines + [""])


def contents(body: str) -> str:
    """Links to every ## and ### heading of the body."""
    lines = ["## Contents", ""]
    for line in body.split("\n"):
        if line.startswith("## "):
            lines.append(f"- {link(line[3:])}")
        elif line.startswith("### "):
            lines.append(f"  - {link(line[4:])}")
    return "\n".join(lines + [""])


# --------------------------------------------------------------------------
# Manifest entries


def tests_cells(p, reasons: Reasons) -> Tuple[str, str, str]:
    """What the generated OpInfo tests do for one entry (its plan): the
    checks, the expected failures, the checks left out and why."""
    if _by_hand(p):
        return f"by hand only: `{_by_hand(p)}`", DASH, DASH
    if p.untested or not p.cases:
        return "none: " + reasons.ref(p.untested or "no cases"), DASH, DASH
    checks = [c for c in OPINFO_CHECKS if any(k.check == c for k in p.cases)]
    xfails = [k for k in p.cases if k.xfail]
    xfail = DASH
    if xfails:
        xfail = f"{len(xfails)}: " + "; ".join(
            reasons.ref(r) for r in sorted({k.xfail for k in xfails}))
    # Checks left out for the same reason share it: "meta, values (why)".
    gaps: Dict[str, List[str]] = {}
    for check, why in sorted(p.gaps.items()):
        if check != "out" or "out" not in checks:
            gaps.setdefault(why, []).append(check)
    missing = "; ".join(f"{', '.join(names)} ({reasons.ref(why)})"
                        for why, names in sorted(gaps.items(), key=lambda g: g[1]))
    return f"{', '.join(checks)} ({len(p.cases)} cases)", xfail, missing or DASH


def entries_section(f: Facts, reasons: Reasons) -> str:
    entries = f.entries
    routes = {r: sum(1 for e in entries if e.route == r) for r in ROUTES}
    lines = ["## Manifest entries", "",
             f"{len(entries)} entries registering {sum(len(e.variants) for e in entries)} "
             "overloads: " + ", ".join(f"{n} {r}" for r, n in routes.items()) + ".", ""]
    if f.skip_reason and any(e.route == Route.STUB for e in entries):
        lines += [wrap("Stub claims were not checked against libtorch_cpu.so: "
                       f"{f.skip_reason}."), ""]
    lines += [wrap(
        "Columns: *stub check* = the native code the stub route reuses references the stub and "
        "passes it the tensors' device (libtorch_cpu.so, `codegen/proofs/stub_check.py`); *meta* = how "
        "torch computes output metadata without data (FakeTensor, meta device); *autograd* = "
        "where libtorch's backward comes from; *tests* = generated checks "
        "(`codegen/testgen/op_tests.py`); *proof* = composite closure on fake tpu tensors "
        "(`codegen/proofs/closure.py`). Each family has two tables with the same rows: how the entries "
        "reach the device, then what the generated OpInfo tests check (*expected failures*: "
        "strict xfails from ops.yaml `tests.xfail`, with their count). Codes such as R1 are "
        f"reasons defined in {link(REASON_CODES)}."),
        "", wrap(FAMILY_RULE), ""]
    by_family: Dict[str, List] = {}
    for e in entries:
        by_family.setdefault(family(e.op), []).append(e)
    for fam in FAMILIES:
        if fam in by_family:
            lines.append(_family_table(fam, by_family[fam], f, reasons))
    lines.append(_handwritten_table(f))
    lines.append(_closures(f))
    return "\n".join(lines)


def _family_table(fam: str, entries: List, f: Facts, reasons: Reasons) -> str:
    """Two tables with the same rows: how each entry reaches the device, and
    what its generated tests check (one table would give very long lines)."""
    by_entry: Dict[str, List] = {}
    for finding in f.findings:
        by_entry.setdefault(finding.op, []).append(finding)
    lines = [f"### {fam}", "", count(len(entries), "entry", "entries") + ".", ""]
    lines += header("op", "registered overloads", "route", "kernel / stub", "stub check",
                    "dtypes", "meta", "autocast", "autograd", "proof", "notes")
    for e in entries:
        check = stub_check.summary(by_entry.get(e.op, [])) if e.route == Route.STUB else DASH
        proof = f.proofs[e.op].summary() if e.route == Route.COMPOSITE and e.op in f.proofs else DASH
        lines.append(row(f"`{e.op}`", code_list(v.op for v in e.variants) or DASH, e.route,
                         coverage._kernel(e), check, coverage._dtypes(e.dtypes),
                         coverage.meta_kind(e.op), coverage.autocast_policy(e),
                         "tpu composition (replaces_decomposition: " + e.replaces_decomposition + ")"
                         if e.replaces_decomposition else autograd.autograd_source(e.op), proof, e.notes))
    lines.append("")
    if f.plans is None:
        return "\n".join(lines + ["Tests: codegen/testgen/op_tests.py is not available.", ""])
    lines += header("op", "tests", "expected failures", "not generated")
    for e in entries:
        cells = tests_cells(f.plans[e.op], reasons) if e.op in f.plans else (DASH, DASH, DASH)
        lines.append(row(f"`{e.op}`", *cells))
    return "\n".join(lines + [""])


def _handwritten_table(f: Facts) -> str:
    files = handwritten(f)
    lines = ["### Tested by hand", "",
             wrap("Entries no OpInfo reaches, by the handwritten test file that covers them "
                  "(ops.yaml `tests.handwritten`)."), ""]
    if not files:
        return "\n".join(lines + ["None.", ""])
    lines += header("test file", "entries")
    lines += [row(f"`{path}`", len(ops)) for path, ops in files.items()]
    return "\n".join(lines + [""])


def _composites(f: Facts) -> List:
    """The composite entries with a closure proof."""
    return [e for e in f.entries if e.route == Route.COMPOSITE and e.op in f.proofs]


def _closures(f: Facts) -> str:
    """Every overload a composite entry reached on fake tpu tensors, grouped
    by how it is covered."""
    composites = _composites(f)
    if not composites:
        return ""
    exempt = "; ".join(f"`{op}` ({why})" for op, why in sorted(closure.EXEMPT.items()))
    lines = ["### Composite closures", "",
             wrap("Every overload the composite reached on fake tpu tensors, grouped by how it is "
                  f"covered. *exempt* overloads need no kernel: {exempt}."), ""]
    for e in composites:
        p = f.proofs[e.op]
        lines.append(wrap(f"{p.summary()}; OpInfos: {', '.join(p.opinfos) or DASH}; dtypes: "
                          f"{', '.join(p.dtypes) or DASH}", "  ", f"- `{e.op}`: "))
        groups: Dict[str, List[str]] = {}
        for name, how in p.traced:
            groups.setdefault("exempt" if name in closure.EXEMPT else how, []).append(name)
        for how, names in sorted(groups.items()):
            lines.append(wrap(code_list(names), "    ", f"  - {how}: "))
    return "\n".join(lines + [""])


# --------------------------------------------------------------------------
# Custom operators, autocast


def custom_section(f: Facts) -> str:
    """The custom operators: every registration ops.yaml makes for them."""

    customs = f.customs
    lines = ["## Custom operators", "", wrap(
        f"{len(customs)} operators in the `tpu` namespace (`torch.ops.tpu.*`), each declared by "
        "one ops.yaml entry (`codegen/model/custom_ops.py`) and registered from it "
        "(`csrc/generated/register_custom_ops.cpp`): the schema with its tags; the device kernel "
        "(PrivateUse1; `csrc/aten/native/fused/custom_ops.cpp`, `csrc/kernels/fused/`); the fake "
        "implementation (Meta: FakeTensor, torch.compile, torch.export, the meta device); "
        "autograd from the entry's derivatives; the autocast policy. References with aten ops: "
        "`torch_tpu/reference.py`; samples and error inputs: `tests/custom_op_samples.py`; "
        "checks: `tests/custom_op_harness.py`."), ""]
    if not customs:
        return "\n".join(lines + ["None.", ""])
    lines += header("operator", "schema", "tags", "kernel / fake", "autograd", "autocast",
                    "dtypes", "generated checks")
    for c in customs:
        if c.kind == "out":
            grad = "not differentiable (out=: an input that requires grad is rejected)"
        elif c.not_differentiable:
            grad = "not implemented (backward raises)"
        else:
            grad = "; ".join(f"{', '.join(d.inputs)}: `{d.formula}`" for d in c.derivatives)
        checks = sorted({check for check, _ in custom_op_tests.checks(c, customs)})
        lines.append(row(f"`{c.qualname}`", f"`{c.schema}`", ", ".join(c.tags) or DASH,
                         f"`{c.impl}` / `{c.meta}`", grad, c.autocast or DASH,
                         coverage._dtypes(c.dtypes), ", ".join(checks)))
    return "\n".join(lines + [""])


def autocast_section(f: Facts) -> str:
    """CUDA's autocast lists (ATen/autocast_mode.h) against the manifest."""

    by_op = {e.op: e for e in f.entries}
    ref = autocast.reference_rows()
    a = _autocast_counts(f)
    lines = ["## Autocast", "", wrap(
        "`torch.autocast(\"tpu\")` registers a policy (AutocastPrivateUse1, "
        "`csrc/generated/register_autocast.cpp`) for every entry with an `autocast:` key; every "
        "other op falls through unchanged. The reference is CUDA's op lists in the installed "
        "`ATen/autocast_mode.h`: an entry for an op on them must declare the same policy (or say "
        "why not), which `python -m codegen` checks."), "", wrap(
        f"{a['declared']} of the {a['cuda']} overloads on CUDA's lists have an entry, all with a "
        f"policy ({a['same']} the same as CUDA's, {a['differ']} different on purpose); the "
        "others have no entry yet (\"upstream\" says how torch implements them)."), ""]
    lines += header("overload", "CUDA policy", "tpu")
    for op, policy in ref:
        e = by_op.get(op)
        if e is not None:
            tpu = coverage.autocast_policy(e) + f" ({e.route} entry)"
        else:
            tpu = f"no entry (upstream: {coverage.upstream_kind(op)})"
        lines.append(row(f"`{op}`", policy, tpu))
    lines.append("")
    extra = [e for e in f.entries if e.autocast and autocast.reference_policy(e.op) == "none"]
    if extra:
        lines += [wrap("Policies on ops CUDA's lists do not name: " + ", ".join(
            f"`{e.op}` ({coverage.autocast_policy(e)})" for e in extra) + "."), ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------
# The out= contract and type promotion


def contracts_section(f: Facts, reasons: Reasons) -> str:
    """What the out= contract suite covers per entry (codegen/testgen/contracts.py;
    the rules: codegen/testgen/out_rules.py)."""

    tested = sorted((p for p in f.outs if p.rules), key=lambda p: p.entry.op)
    xfails = _out_xfails(f)
    lines = ["## The out= contract", "", wrap(
        f"`tests/generated/test_out_contract.py`: {sum(len(p.rules) for p in tested)} tests over "
        f"{len(tested)} entries with an out= overload, one per rule (`codegen/testgen/out_rules.py`): " +
        "; ".join(f"*{r}*" for r in out_rules.RULES) + ". Each case runs on CPU and tpu with the "
        "same layouts and must end the same way; a wrong device or dtype must be rejected before "
        "anything reaches the device. A rule is generated only where the op's OpInfo samples can "
        "express it (the generator runs them on CPU); the others are listed with the reason."), "",
        f"Expected failures (strict xfails): {len(xfails)}.", ""]
    if xfails:
        lines += header("entry", "rule", "reason")
        lines += [row(f"`{op}`", r, reasons.ref(why)) for op, r, why in xfails] + [""]
    lines += header("entry", "out= overload", "OpInfo, dtype", "rules tested", "not applicable")
    for p in tested:
        na = "; ".join(f"{r}: {reasons.ref(why)}" for r, why in sorted(p.skipped.items()))
        lines.append(row(f"`{p.entry.op}`", f"`{p.out}`", f"{p.opinfo.full_name}, {p.dtype}",
                         len(p.rules), na))
    untested = sorted((p for p in f.outs if not p.rules and p.entry.family.get("out")),
                      key=lambda p: p.entry.op)
    lines += ["", "### Entries without an out= contract test", "",
              count(len(untested), "entry", "entries") + " whose family has an out= overload.",
              ""]
    lines += header("entry", "why no test")
    for p in untested:
        plan = (f.plans or {}).get(p.entry.op)
        why = f"by hand only: `{_by_hand(plan)}`" if plan and _by_hand(plan) else \
            reasons.ref(p.why_none)
        lines.append(row(f"`{p.entry.op}`", why))
    return "\n".join(lines + [""])


def promotion_section(f: Facts) -> str:

    matrices = sorted((p for p in f.promos if p.kinds), key=lambda p: p.entry.op)
    c = _promotion_counts(f)
    lines = ["## Type promotion", "", wrap(
        f"`tests/generated/test_type_promotion.py`: {c['tests']} tests over the {c['entries']} "
        "entries whose OpInfo is a binary ufunc. Each runs every pair of operands of its kinds "
        "(1-d tensors, 0-dim tensors, Python scalars; 15 dtypes from bool to complex128; explicit "
        "out= of every dtype) on CPU and tpu: same error type, or same dtype and values, and the "
        "dtype PyTorch's rule gives (`torch.result_type`, bool for comparisons, the default "
        "float for integer true division)."), "",
        f"Expected failures (strict xfails): {c['xfail']}.", ""]
    xfails = [(p, contracts._xfail(p.entry, "promotion")) for p in matrices]
    if any(why for _, why in xfails):
        lines += header("entry", "checks", "reason")
        lines += [row(f"`{p.entry.op}`", len(p.kinds), why) for p, why in xfails if why] + [""]
    lines += header("entry", "OpInfo", "operand kinds")
    lines += [row(f"`{p.entry.op}`", p.opinfo.full_name, ", ".join(p.kinds)) for p in matrices]
    return "\n".join(lines + [""])


# --------------------------------------------------------------------------
# Core ATen IR


def core_section(f: Facts) -> str:
    rows = f.core
    counts = coverage.core_counts(rows)
    none = counts[coverage.NONE]
    lines = ["## Core ATen IR", "",
             wrap(f"The installed torch tags {len(rows)} overloads `torch.Tag.core` (enumerated "
                  "with `torch._C._jit_get_all_schemas()`)."), "", wrap(
                 "An overload counts under a route when an entry registers it, or when it is in an "
                 "entry's family, not registered itself, and its upstream composite kernel's "
                 "closure is proven (`abs` for a stub entry registering `abs.out`)."), ""]
    lines += header("reaches tpu through", "overloads")
    lines += [row(c, counts[c]) for c in coverage.CATEGORIES]
    lines += [f"| **total** | **{len(rows)}** |", ""]
    if not none:
        fallback = counts[coverage.FALLBACK]
        return "\n".join(lines + ["Every core overload is claimed by an entry" + (
            "; none runs on the host fallback." if not fallback else "."), ""])
    works = [r.op for r in rows if r.works_without_entry]
    lines += [wrap(
        f"Of the {none} not covered, {len(works)} would already work through their upstream "
        "composite kernel: their closure was traced over OpInfo samples on fake tpu tensors and "
        "is covered (not counted above, since no entry claims them" +
        (": " + code_list(works) if works else "") + ")."), ""]
    if f.skip_reason:
        lines += [wrap(f"The stub-route column is static only: {f.skip_reason}."), ""]
    lines += ["### Core overloads not covered", "", wrap(
        "*upstream*: how torch implements it (structured/plain *generic* = one kernel for CPU and "
        "CUDA, so it takes the device from its tensors; *cpu-only*; CIA/CEA/CEA-NF = "
        "CompositeImplicit/Explicit/ExplicitNonFunctional). *stub route*: could a `route: stub` "
        "entry reuse the CPU implementation, and which stubs it reaches (libtorch_cpu.so). "
        "*composite trace*: the closure proof of its upstream composite, when it has one."), ""]
    lines += header("overload", "upstream", "stub route", "composite trace")
    for r in rows:
        if r.category != coverage.NONE:
            continue
        proof = f.proofs.get(r.op)
        lines.append(row(f"`{r.op}`", coverage.upstream_kind(r.op),
                         coverage.stub_route(r.op, f.analyses, f.skip_reason),
                         proof.summary() if proof is not None else DASH))
    return "\n".join(lines + [""])
