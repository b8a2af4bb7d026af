"""csrc/aten/README.md: "No device checks or guards by hand." The generated
wrappers check that an op's tensors share a device and set the device guard
(as torchgen does for CUDA); handwritten glue that does it again is dead
code that drifts from the generated check. This scans csrc/aten (generated
code lives in csrc/generated, outside it) for device guards and for
TORCH_CHECKs on a tensor's device, and holds every file to its allow-list
row: how many it may have and why. A new guard or check fails here; a row
whose count drops must be lowered (so a removed one cannot come back).
"""

from __future__ import annotations

import glob
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ATEN = os.path.join(ROOT, "csrc", "aten")

GUARD = re.compile(r"\b(?:Optional)?DeviceGuard\b(?!\.h)")
CHECK = re.compile(r"\bTORCH_CHECK\w*\(")
# a device comparison in a check's condition (before its message strings)
DEVICE_TEST = re.compile(r"device\(\)\s*[!=]=|[!=]=\s*[\w>.-]+(?:\.|->)device\(\)|device\(\)\.(?:type|is_)")

# path under csrc/aten -> (guards, device checks, why they are not the generated wrapper's)
ALLOWED = {
    "structured_wrappers.h": (1, 0, "the generated structured wrappers' own helper (their guard)"),
    "structured_wrappers.cpp": (0, 2, "the generated structured wrappers' own helper: "
                                "out= and in-place device checks with ATen's messages"),
    "device/composite_out_check.cpp": (1, 0, "the out= device check of composite overloads, which "
                                       "have no generated wrapper (the machinery itself)"),
    "device/fallback.cpp": (1, 1, "the host fallback: ops without a tpu kernel have no generated "
                            "wrapper"),
    "device/generator.cpp": (0, 1, "Generator.set_state: the state must be a CPU tensor (an "
                             "argument check, not an op's tensors)"),
    "device/hooks.cpp": (1, 0, "PrivateUse1 hooks (e.g. the default generator of a device): no op"),
    "native/copy/copy.cpp": (5, 0, "copy_ takes tensors on two devices (device_check NoCheck in "
                             "ops.yaml): each side runs under its own device"),
    "native/tensor/storage.cpp": (2, 0, "resize_ and set_.source_Storage_storage_offset: "
                                  "device_guard: False upstream, so no generated guard"),
    "native/tensor/factory.cpp": (2, 0, "factories take a `device` argument, not a tensor: no "
                                  "generated guard to derive"),
    "native/fused/custom_ops.cpp": (0, 2, "the custom ops' fake (Meta) functions: FakeTensor runs "
                                    "them without a tpu wrapper, so they check devices themselves"),
    "native/index/index.cpp": (0, 1, "masked_fill_: device_check NoCheck upstream (a 0-dim CPU "
                               "value is allowed); CPU's message for a mask elsewhere"),
    "native/random/random.cpp": (0, 1, "bernoulli_.Tensor: device_check NoCheck upstream"),
    "native/reduce/logsumexp.cpp": (0, 1, "logsumexp.out: device_check NoCheck upstream"),
}
# Found by this test and not yet removed: each duplicates a generated
# common-device check (the wrapper checks the same tensors first) or a guard
# the wrapper already set. Lower the counts as they go.
TO_REMOVE = {
    "native/index/glue.cpp": (0, 1),
    "native/index/index.cpp": (0, 3),          # nonzero_out, masked_select_out, masked_scatter_
    "native/index/index_dim.cpp": (3, 0),
    "native/index/scatter_gather.cpp": (2, 0),
    "native/nn/batch_norm.cpp": (0, 2),
    "native/nn/embedding_bag.cpp": (0, 1),
    "native/nn/group_norm.cpp": (0, 2),
    "native/nn/layer_norm.cpp": (0, 1),
    "native/nn/loss.cpp": (0, 1),
    "native/nn/rnn_layers.cpp": (2, 0),
    "native/optim/amp.cpp": (0, 1),
    "native/optim/optim_slots.cpp": (0, 5),
    "native/random/sampling.cpp": (0, 2),
    "native/reduce/reduce.cpp": (0, 1),
    "native/shape/shape.cpp": (0, 1),
    "native/sort/select.cpp": (0, 2),
}


def _code(text: str) -> str:
    """text without // comments and string literals' contents."""
    token = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])+\'|//[^\n]*|/\*.*?\*/', re.S)
    return token.sub(lambda m: '""' if m.group(0)[0] in "\"'" else "", text)


def _condition(code: str, start: int) -> str:
    """The parenthesised arguments of the call opening at `start`, up to
    the first string (the message)."""
    depth, i = 1, start
    while depth and i < len(code):
        depth += {"(": 1, ")": -1}.get(code[i], 0)
        i += 1
    return code[start:i - 1].split('""')[0]


def count(text: str) -> tuple:
    """(device guards, TORCH_CHECKs on a device) in C++ source text."""
    code = _code(text)
    guards = sum(1 for line in code.splitlines() if GUARD.search(line) and "#include" not in line)
    checks = sum(1 for m in CHECK.finditer(code) if DEVICE_TEST.search(_condition(code, m.end())))
    return guards, checks


def found() -> dict:
    out = {}
    for path in sorted(glob.glob(os.path.join(ATEN, "**", "*.cpp"), recursive=True) +
                       glob.glob(os.path.join(ATEN, "**", "*.h"), recursive=True)):
        with open(path) as f:
            n = count(f.read())
        if any(n):
            out[os.path.relpath(path, ATEN)] = n
    return out


def test_no_device_guards_or_checks_by_hand_beyond_the_allow_list():
    allowed = {p: (g, c) for p, (g, c, _) in ALLOWED.items()}
    for p, (g, c) in TO_REMOVE.items():
        a = allowed.get(p, (0, 0))
        allowed[p] = (a[0] + g, a[1] + c)
    problems = []
    for path, (guards, checks) in found().items():
        g, c = allowed.pop(path, (0, 0))
        if (guards, checks) != (g, c):
            problems.append(f"csrc/aten/{path}: {guards} guard(s) and {checks} device check(s), "
                            f"the allow-list says {g} and {c}")
    problems += [f"csrc/aten/{p}: allow-listed but has none" for p in allowed]
    assert not problems, ("device guards and checks by hand (csrc/aten/README.md: the generated "
                          "wrappers do it); remove them, or allow-list a justified one with its "
                          "reason:\n" + "\n".join(problems))


def test_the_scan_sees_guards_and_device_checks():
    src = """
#include <c10/core/DeviceGuard.h>
// c10::DeviceGuard guard(x.device());  (a comment)
void f(const at::Tensor& a, const at::Tensor& b) {
  c10::DeviceGuard guard(a.device());
  const c10::OptionalDeviceGuard other(b.device());
  TORCH_CHECK(a.device() == b.device(), "expected a.device() == b.device()");
  TORCH_CHECK(a.sizes() == b.sizes(), "on ", a.device());
  TORCH_CHECK(t->device() != out.device(), "x");
  TORCH_CHECK_NOT_IMPLEMENTED(a.device().type() == c10::kCPU, "x");
}
"""
    assert count(src) == (2, 3)


def test_every_row_has_a_reason():
    assert all(why.strip() for _, _, why in ALLOWED.values())
