"""Autocast policies: what the manifest's `autocast:` key may say, and the
reference it is checked against.

The reference is CUDA's: ATen registers its AutocastCUDA kernels from the op
lists in the installed `ATen/autocast_mode.h` (AT_FORALL_LOWER_PRECISION_FP,
AT_FORALL_FP32, AT_FORALL_FP32_SET_OPT_DTYPE, AT_FORALL_PROMOTE and
AT_FORALL_DIFFERENT_REDISPATCH_SIGNATURE), the lists ATen keeps "to make sure
other backends can reuse the policy op list". They are read from the header
of the torch being built against, so the reference cannot drift from it.

An aten op's entry must declare CUDA's policy for it (none when it is on no
list), or `{policy: ..., reason: ...}` to differ on purpose, so that code
written for torch.autocast("cuda") gets the same dtypes on tpu. Nothing else
is registered: every other op falls through AutocastPrivateUse1 unchanged,
as on CUDA.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from typing import Dict, List, Tuple

# The policies, named as ATen's at::autocast::CastPolicy, plus "none": run in
# the dtypes the op is given (the fallthrough).
POLICIES = {
    "lower_precision_fp": "cast floating inputs on tpu to the autocast dtype (bfloat16/float16)",
    "fp32": "cast floating inputs on tpu to float32",
    "fp32_set_opt_dtype": "run in float32 by setting the op's optional dtype argument, unless given",
    "fp32_append_dtype": "redispatch to the overload that takes a dtype, with float32",
    "promote": "cast floating inputs on tpu to the widest floating dtype among them",
    "none": "no cast: the op runs in the dtypes it is given (what every undeclared op does)",
}

# Header macro -> the policy every op on it gets.
_LISTS = {
    "AT_FORALL_LOWER_PRECISION_FP": "lower_precision_fp",
    "AT_FORALL_FP32": "fp32",
    "AT_FORALL_FP32_SET_OPT_DTYPE": "fp32_set_opt_dtype",
    "AT_FORALL_PROMOTE": "promote",
}
_REDISPATCH_LIST = "AT_FORALL_DIFFERENT_REDISPATCH_SIGNATURE"
HEADER = os.path.join("ATen", "autocast_mode.h")


@dataclass(frozen=True)
class Redispatch:
    """An entry of AT_FORALL_DIFFERENT_REDISPATCH_SIGNATURE: the op is
    registered with one signature and redispatches to another overload."""
    function: str            # "at::norm"
    register_signature: str  # "Tensor(const Tensor&, const Scalar&)"
    redispatch_signature: str


@dataclass(frozen=True)
class Reference:
    policies: Dict[str, str]              # "pow.Tensor_Scalar" -> "fp32"
    redispatch: Dict[str, Redispatch]     # "norm.Scalar" -> how to append the dtype
    path: str                             # the header read


def header_path() -> str:
    import torch

    return os.path.join(os.path.dirname(torch.__file__), "include", HEADER)


def _macro_body(text: str, name: str) -> str:
    """The body of `#define name(_) ...` with its line continuations."""
    m = re.search(r"^#define\s+" + name + r"\(_\)(.*?)(?<!\\)\n", text, re.M | re.S)
    if m is None:
        raise LookupError(f"{name} is not defined in {HEADER}")
    return m.group(1).replace("\\\n", " ")


def _groups(body: str) -> List[str]:
    """The argument text of every top-level `_(...)` in a macro body."""
    out, depth, start = [], 0, None
    i = 0
    while i < len(body):
        c = body[i]
        if depth == 0 and body.startswith("_(", i):
            depth, start, i = 1, i + 2, i + 2
            continue
        if depth:
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth == 0:
                    out.append(" ".join(body[start:i].split()))
        i += 1
    return out


def _split_args(text: str) -> List[str]:
    """Split at the commas that are not inside parentheses."""
    parts, depth, cur = [], 0, []
    for c in text:
        if c == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
            continue
        depth += c == "("
        depth -= c == ")"
        cur.append(c)
    parts.append("".join(cur).strip())
    return parts


def parse_reference(text: str, path: str = HEADER) -> Reference:
    policies: Dict[str, str] = {}
    for macro, policy in _LISTS.items():
        for group in _groups(_macro_body(text, macro)):
            args = _split_args(group)
            name = args[0] if len(args) == 1 else f"{args[0]}.{args[1]}"
            policies[name] = policy
    redispatch: Dict[str, Redispatch] = {}
    for group in _groups(_macro_body(text, _REDISPATCH_LIST)):
        func, name, reg_sig, red_sig, policy = _split_args(group)
        func = re.sub(r"^ADD_NS\((\w+)\)$", r"at::\1", func)
        name = name.strip('"')
        policies[name] = policy
        redispatch[name] = Redispatch(func, reg_sig, red_sig)
    return Reference(policies, redispatch, path)


@functools.lru_cache(maxsize=1)
def reference() -> Reference:
    """CUDA's autocast lists, from the installed torch's header."""
    path = header_path()
    with open(path) as f:
        return parse_reference(f.read(), path)


def reference_policy(op: str) -> str:
    """The policy CUDA registers for the overload ("none" if it is on no list)."""
    return reference().policies.get(op, "none")


# The dtypes torch.autocast("tpu", dtype=...) accepts (torch.tpu.get_amp_supported_dtype).
AUTOCAST_DTYPES = ("bfloat16", "float16")


def input_dtype(policy: str, autocast_dtype: str) -> str:
    """The sample dtype a generated autocast test uses, chosen so that the
    policy changes the result dtype: float32 inputs for lower_precision_fp
    (they must come out in the autocast dtype) and promote (mixed with
    autocast-dtype copies by the test), inputs in the autocast dtype for the
    float32 policies (they must come out in float32)."""
    return "float32" if policy in ("lower_precision_fp", "promote") else autocast_dtype


def reference_rows() -> List[Tuple[str, str]]:
    return sorted(reference().policies.items())
