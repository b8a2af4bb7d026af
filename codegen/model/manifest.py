"""ops.yaml: the operator manifest. Loading and validation against the installed
torch. Every problem becomes a ManifestError with file:line, op, key and fix.

The model (what the rest of the generator reads):
  Entry      one manifest entry: an op family and how it reaches the device
  Variant    one registered overload of that family, with its C++ signature
"""

from __future__ import annotations

import enum
import os
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple, Union

from torchgen.model import BaseTy, BaseType, OptionalType, SchemaKind

from .. import paths
from ..errors import ManifestError, did_you_mean
from ..facts import autocast, stubs, upstream
from ..facts.dtypes import DTYPES, parse_dtypes
from . import cpp, custom_ops, kernel_ops
from .custom_ops import CustomOp
from .yaml_lines import LINE_KEY, load_with_lines



class Route(enum.StrEnum):
    """How an entry reaches the device (design.md, "The routes")."""
    DIRECT = "direct"           # a handwritten function registered for the overload
    STUB = "stub"               # ATen's native wrapper, calling our DispatchStub kernel
    COMPOSITE = "composite"     # no registration: upstream's decomposition, proven to reach tpu
    FALLBACK = "fallback"       # the host fallback, counted


class Kind(enum.StrEnum):
    """An overload's place in its family (torchgen's SchemaKind, by name)."""
    FUNCTIONAL = "functional"
    INPLACE = "inplace"
    OUT = "out"
    OTHER = "other"


class Via(enum.StrEnum):
    """How a generated wrapper reaches the kernel."""
    IMPL = "impl"                       # call the entry's impl function
    STRUCTURED = "structured"           # ATen's structured class (meta + impl calling the stub)
    STRUCTURED_IMPL = "structured_impl"  # ATen's meta() class, then the entry's structured_impl
    NATIVE = "native"                   # ATen's device-generic native function (it calls the stub)
    FALLBACK = "fallback"               # the host fallback


ROUTES = tuple(r.value for r in Route)
KEYS = {
    "op": "the aten overload naming the op, e.g. 'add.Tensor' (required)",
    "route": "one of " + ", ".join(ROUTES) + " (required)",
    "impl": "direct: the C++ function registered for exactly this overload (in "
            "torch_tpu::aten, or a qualified device-generic ATen function)",
    "structured_impl": "direct, for a structured op: the C++ function (torch_tpu::aten) that "
                       "fills the outputs after ATen's meta() has checked the arguments and "
                       "allocated or checked them; the functional, in-place and out= variants "
                       "are all registered",
    "replaces_decomposition": "direct, for a CompositeImplicitAutograd op: why tpu runs its own "
                              "composition instead of upstream's decomposition. impl is registered "
                              "for AutogradPrivateUse1 as well as PrivateUse1, so autograd records "
                              "what impl calls (covered ops, or autograd::Functions of its own)",
    "precheck": "direct or stub: 'name(arg, ...)', a handwritten C++ function (torch_tpu::aten) "
                "called with the named inputs before the generated dtype checks (after ATen's "
                "meta() for a structured op), for an argument check CPU makes before it "
                "finds no kernel for a dtype (e.g. two inputs of different dtypes)",
    "device_check": "{policy: NoCheck, reason: ...}: no generated device check and guard for "
                    "this entry (default: as upstream's device_check/device_guard say)",
    "stub": "stub: the ATen DispatchStub the op's native implementation calls",
    "kernel": "stub: the tpu function registered for the stub (torch_tpu::aten)",
    "also_stubs": "stub: {stub: kernel} for further DispatchStubs the family's ATen "
                  "implementation calls (registered and declared like stub/kernel); direct: "
                  "DispatchStubs that ATen's composite callers of the op consult for the device "
                  "(scaled_dot_product_attention asks _fused_sdp_choice_stub, not the op)",
    "elementwise": "stub: an elementwise op of the kernel library (a row of "
                   "TORCH_TPU_ELEMENTWISE_OPS in csrc/kernels/elementwise/elementwise.h, e.g. "
                   "Expm1): the generator defines `kernel`, running it over ATen's "
                   "TensorIterator in the iterator's common dtype, with the stub's scalar "
                   "arguments as the op's ScalarArgs",
    "dtypes": "dtypes the kernel supports (default: any); others raise NotImplementedError: "
              "a list for every tensor input, or {argument: list} naming each tensor input "
              "(the first names the entry's dtypes; 'all' leaves an argument unchecked)",
    "autocast": "the AutocastPrivateUse1 policy: " + ", ".join(autocast.POLICIES) +
                " (or {policy: ..., reason: ...} to differ from CUDA's on purpose)",
    "tests": "test hints: opinfo, xfail, atol, rtol (see the top of ops.yaml)",
    "notes": "free text shown in docs/coverage.md",
}
# The exceptions a strict xfail may name besides Python's builtin ones: the
# harnesses' own (tests/known_failures.py defines them).
XFAIL_RAISES = {
    "AssertionError": "a comparison with CPU failed: values, layout, dtype, error type",
    "RouteError": "the route proof failed: the entry's overloads or stub did not run on tpu",
    "NothingCompared": "the check found no sample to compare",
}
HARNESS_EXCEPTIONS = ("RouteError", "NothingCompared")


def raises_problem(name) -> str:
    """What is wrong with an xfail's `raises:` ("" when it names a builtin
    exception or one of the harnesses' own)."""
    import builtins

    if name is None or name == "":
        return "the xfail does not name the exception it expects ('raises')"
    if not isinstance(name, str):
        return f"'raises' must be an exception name, got {name!r}"
    if name in HARNESS_EXCEPTIONS:
        return ""
    cls = getattr(builtins, name, None)
    if isinstance(cls, type) and issubclass(cls, BaseException):
        return ""
    known = [n for n in dir(builtins) if n.endswith(("Error", "Exception"))] + list(HARNESS_EXCEPTIONS)
    return f"'raises: {name}' is not an exception a test can raise{did_you_mean(name, known)}"


TEST_KEYS = {
    "opinfo": "OpInfo names to draw samples from (default: OpInfos named like the op)",
    "handwritten": "no OpInfo exercises the op: the test file (tests/...) that covers it",
    "dtypes": "test only these dtypes (default: the entry's dtypes)",
    "xfail": "known failures: a list of {reason, raises, dtypes (optional), checks (optional)}",
    "atol": "absolute tolerance against CPU: a number, or {dtype: number}",
    "rtol": "relative tolerance against CPU: a number, or {dtype: number}",
    "float32_reference": "dtypes whose CPU reference is computed from the same inputs in "
                         "float32 and rounded back, for ops whose low-precision CPU result "
                         "depends on the CPU model (say why in a comment)",
    "follows_fake": "outputs whose dtype follows FakeTensor and CUDA, not CPU: {outputs: "
                    "[index, ...], reason}; their values are compared in CPU's dtype, the meta "
                    "check holds them to FakeTensor's prediction",
}
XFAIL_KEYS = {"reason": "why it fails (required)",
              "raises": "the exception the failing check raises (required): " +
                        ", ".join(f"{k} ({v})" for k, v in XFAIL_RAISES.items()) +
                        ", or the op's own (NotImplementedError, RuntimeError, IndexError, ...)",
              "dtypes": "only for these dtypes",
              "checks": "only these generated checks: values, meta, out, reference, grad, "
                        "errors, autocast, out_contract, promotion",
              "rules": "with checks: [out_contract]: only these out= rules (codegen/testgen/out_rules.py)",
              "opinfos": "only the OpInfo checks drawing from these OpInfos (full names: "
                         "nn.functional.conv_transpose3d, std_mean.unbiased)"}
CHECKS = ("values", "meta", "out", "reference", "grad", "errors", "autocast", "out_contract",
          "promotion")
# The out= contract rules an xfail may name (what each checks:
# codegen/testgen/out_rules.py).
OUT_RULES = ("resize_empty", "wrong_device_cpu", "wrong_device_peer", "dtype_castable",
             "dtype_uncastable", "alias_input", "disjoint_views", "partial_overlap",
             "internal_overlap", "requires_grad")
_CPP_NAME = re.compile(r"^(?:[A-Za-z_]\w*::)*[A-Za-z_]\w*$")
_KIND_NAMES = {SchemaKind.functional: Kind.FUNCTIONAL, SchemaKind.inplace: Kind.INPLACE,
               SchemaKind.out: Kind.OUT}


@dataclass(frozen=True)
class Variant:
    """One overload registered for PrivateUse1."""
    op: str                     # "add.out"
    kind: Kind
    signature: cpp.Signature
    upstream: upstream.UpstreamOp
    via: Via
    native: str = ""            # at::native class or function for structured/native;
                                # the at::meta class for structured_impl


@dataclass(frozen=True)
class XFail:
    reason: str
    raises: str = ""                # the exception the failing check raises
    dtypes: Tuple[str, ...] = ()    # empty: all
    checks: Tuple[str, ...] = ()    # empty: all
    rules: Tuple[str, ...] = ()     # out_contract: the failing out= rules (empty: all)
    opinfos: Tuple[str, ...] = ()   # OpInfo checks: only these OpInfos (empty: all)


@dataclass(frozen=True)
class TestHints:
    opinfo: Tuple[str, ...] = ()
    handwritten: str = ""           # tests/<file>.py covering an op no OpInfo reaches
    dtypes: Tuple[str, ...] = ()    # empty: the entry's dtypes
    xfail: Tuple[XFail, ...] = ()
    # A number for every floating dtype, or per dtype ({"float16": 1e-3}).
    atol: Optional[Union[float, Dict[str, float]]] = None
    rtol: Optional[Union[float, Dict[str, float]]] = None
    float32_reference: Tuple[str, ...] = ()
    follows_fake: Tuple[int, ...] = ()   # output indices (tests.follows_fake)
    follows_fake_reason: str = ""


@dataclass(frozen=True)
class Entry:
    op: str                     # the overload the entry names
    route: str
    line: int
    variants: Tuple[Variant, ...]
    impl: str = ""
    structured_impl: str = ""
    device_check_reason: str = ""   # set: the entry opts out of generated device checks
    # ops.yaml precheck: the function, the inputs it is called with and
    # their C++ types (the dispatcher's)
    precheck: str = ""
    precheck_args: Tuple[str, ...] = ()
    precheck_types: Tuple[str, ...] = ()
    # set: a direct entry for a CompositeImplicitAutograd op, registered for
    # AutogradPrivateUse1 too (why: this text)
    replaces_decomposition: str = ""
    stub: str = ""
    stub_header: str = ""
    kernel: str = ""
    # (stub, header, kernel) of further stubs the family's implementation calls
    also_stubs: Tuple[Tuple[str, str, str], ...] = ()
    elementwise: str = ""           # set: the generator defines `kernel` (ElementwiseOp::k<it>)
    dtypes: Tuple[str, ...] = ()    # empty: any
    # Per tensor input, when ops.yaml gives {argument: dtypes}: (name, dtypes)
    # in the manifest's order; then `dtypes` is the first one's.
    arg_dtypes: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    tests: TestHints = field(default_factory=TestHints)
    notes: str = ""
    autocast: str = ""              # a policy of codegen/facts/autocast.py; "": not declared
    autocast_reason: str = ""       # why it differs from CUDA's policy, if it does

    def input_dtypes(self, name: str) -> Tuple[str, ...]:
        """The dtypes tensor input `name` may have (empty: any)."""
        if self.arg_dtypes:
            return dict(self.arg_dtypes)[name]
        return self.dtypes

    @property
    def family(self) -> Dict[str, str]:
        """kind -> overload of the whole upstream family (registered or not)."""
        up = upstream.lookup(self.op)
        return {_KIND_NAMES[k]: v.name for k, v in upstream.family(up).items()}


# An overload without an entry, on purpose: ops.yaml names it with one of
# these keys, and docs/coverage.md lists it with its reason.
DECLARED_KINDS = {
    "exclude": "an overload tpu does not run (NotImplementedError): why, in 'reason'",
    "upstream_kernel": "an overload ATen's own composite kernel (CompositeExplicitAutograd or "
                       "Implicit, e.g. torchgen's autogen out= kernels) runs on tpu over "
                       "covered entries, so it needs no entry; 'handwritten' names its test",
}
DECLARED_KEYS = dict(DECLARED_KINDS, reason="why (required)",
                     handwritten="upstream_kernel: the test file (tests/...) that runs it on tpu")
_COMPOSITE_KEYS = ("CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional",
                   "CompositeImplicitAutograd")


@dataclass(frozen=True)
class Declared:
    op: str
    kind: str                   # a key of DECLARED_KINDS
    line: int
    reason: str
    handwritten: str = ""


def is_declared(item) -> bool:
    return isinstance(item, dict) and any(k in item for k in DECLARED_KINDS)


def load(path: str) -> List[Entry]:
    """The aten entries (custom operators: load_custom)."""
    return [e for e in _load_all(path) if isinstance(e, Entry)]


def load_custom(path: str) -> list:
    """The custom operators (tpu::...) of the manifest (codegen/model/custom_ops.py)."""

    return [e for e in _load_all(path) if isinstance(e, CustomOp)]


def load_declared(path: str) -> List[Declared]:
    """The overloads declared without an entry (exclude: / upstream_kernel:)."""
    return [e for e in _load_all(path) if isinstance(e, Declared)]


def _load_all(path: str) -> list:

    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise ManifestError(path, None, f"cannot read the manifest: {e.strerror}",
                            "run python -m codegen from the repository root, or pass --manifest")
    try:
        data = load_with_lines(text)
    except Exception as e:  # yaml.YAMLError and friends
        mark = getattr(e, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        raise ManifestError(path, line, f"not valid YAML: {getattr(e, 'problem', e)}",
                            "fix the YAML syntax at this line")
    if data is None:
        return []
    if not isinstance(data, list):
        raise ManifestError(path, 1, "the manifest must be a YAML list of entries",
                            "start each entry with '- op: <name>'")
    entries: List[Entry] = []
    customs: Dict[str, object] = {}
    registered: Dict[str, Tuple[int, str]] = {}  # overload -> (line, entry op)
    stub_kernels: Dict[str, str] = {}   # stub -> kernel
    kernel_stubs: Dict[str, str] = {}   # kernel -> stub
    generated: Dict[str, Tuple[str, int]] = {}  # kernel -> (its elementwise op or "", line)
    declared: Dict[str, Declared] = {}
    for item in data:
        if is_declared(item):
            d = _declared(path, item)
            if d.op in declared:
                raise ManifestError(path, d.line, f"'{d.op}' is already declared at line "
                                    f"{declared[d.op].line}", "keep one declaration", op=d.op)
            declared[d.op] = d
            continue
        if custom_ops.is_custom(item):
            op = custom_ops.parse(path, item)
            if op.qualname in customs:
                raise ManifestError(path, op.line, f"duplicate entry (first at line "
                                    f"{customs[op.qualname].line})", "keep one entry per operator",
                                    op=op.qualname)
            customs[op.qualname] = op
            continue
        entry = _entry(path, item)
        for v in entry.variants:
            if v.op in registered:
                line, other = registered[v.op]
                what = "duplicate entry" if other == entry.op else f"'{v.op}' is also registered by '{other}'"
                raise ManifestError(path, entry.line, f"{what} (first at line {line})",
                                    "keep one entry per operator family", op=entry.op)
            registered[v.op] = (entry.line, entry.op)
        _check_stub_kernels(path, entry, stub_kernels, kernel_stubs)
        _check_generated_kernels(path, entry, generated)
        entries.append(entry)
    for d in declared.values():
        if d.op in registered:
            line, other = registered[d.op]
            raise ManifestError(path, d.line, f"'{d.op}' is declared '{d.kind}' but the entry "
                                f"'{other}' (line {line}) registers it",
                                "remove the declaration or the entry", op=d.op, key=d.kind)
    return sorted(entries, key=lambda e: e.op) + sorted(customs.values(), key=lambda c: c.qualname) + \
        sorted(declared.values(), key=lambda d: d.op)


def _check_stub_kernels(path: str, entry: "Entry", stub_kernels: Dict[str, str],
                        kernel_stubs: Dict[str, str]) -> None:
    """A stub holds one kernel, and a kernel is declared with one stub's type
    (csrc/generated/stub_kernels.h)."""
    named = ([(entry.stub, entry.kernel)] if entry.stub else []) + \
        [(stub, kernel) for stub, _, kernel in entry.also_stubs]
    for stub, kernel in named:
        if stub_kernels.get(stub, kernel) != kernel:
            raise ManifestError(path, entry.line, f"{stub} already has the kernel "
                                f"{stub_kernels[stub]}", f"name {stub_kernels[stub]} here too: a "
                                "stub holds one kernel", op=entry.op, key="kernel")
        if kernel_stubs.get(kernel, stub) != stub:
            raise ManifestError(path, entry.line, f"{kernel} is already the kernel of "
                                f"{kernel_stubs[kernel]}", f"give {stub} a kernel of its own",
                                op=entry.op, key="kernel")
        stub_kernels[stub] = kernel
        kernel_stubs[kernel] = stub


def _check_generated_kernels(path: str, entry: "Entry",
                             generated: Dict[str, Tuple[str, int]]) -> None:
    """Entries sharing a stub kernel agree on whether the generator writes it
    (`elementwise`), or it would be defined twice or not at all."""
    named = ([(entry.kernel, entry.elementwise)] if entry.stub else []) + \
        [(kernel, "") for _, _, kernel in entry.also_stubs]
    for kernel, elementwise in named:
        first, line = generated.setdefault(kernel, (elementwise, entry.line))
        if first != elementwise:
            said = f"elementwise: {first}" if first else "no 'elementwise' (handwritten)"
            raise ManifestError(path, entry.line, f"{kernel} is also the kernel of the entry at "
                                f"line {line}, which says {said}",
                                "give every entry of a shared kernel the same 'elementwise'",
                                op=entry.op, key="elementwise")


class _Checker:
    """Raises ManifestErrors that point at one entry."""

    def __init__(self, path: str, line: Optional[int], op: Optional[str]):
        self.path, self.line, self.op = path, line, op

    def fail(self, message: str, fix: str, key: Optional[str] = None):
        raise ManifestError(self.path, self.line, message, fix, op=self.op, key=key)

    def unknown_keys(self, item: dict, known: Dict[str, str], where: str = "") -> None:
        for key in item:
            if key != LINE_KEY and key not in known:
                self.fail(f"unknown key{where}{did_you_mean(key, known)}",
                          "valid keys: " + "; ".join(f"{k}: {v}" for k, v in known.items()),
                          key=key)


def _entry(path: str, item) -> Entry:
    if not isinstance(item, dict):
        raise ManifestError(path, None, f"each entry must be a mapping, got {item!r}",
                            "write entries as '- op: add.Tensor' followed by indented keys")
    line = item.get(LINE_KEY)
    op = item.get("op")
    check = _Checker(path, line, op if isinstance(op, str) else None)
    check.unknown_keys(item, KEYS)
    if not isinstance(op, str) or not op:
        check.fail("missing or empty 'op'", "name the aten overload, e.g. 'op: add.Tensor'",
                   key="op")
    up = upstream.lookup(op)
    if up is None and op in upstream.autogen_ops():
        source = upstream.autogen_ops()[op]
        check.fail(f"'{op}' is generated by torchgen from the 'autogen:' list of '{source}' "
                   "and has no entry of its own",
                   f"declare it with 'upstream_kernel: {op}' (with reason and handwritten) if "
                   "ATen's generated kernel runs it on tpu, or 'exclude: {op}' with a reason",
                   key="op")
    if up is None:
        check.fail(f"no such operator in torch's native_functions.yaml"
                   f"{did_you_mean(op, upstream.upstream_ops())}",
                   "use the exact 'name.overload' from torchgen/packaged/ATen/native/"
                   "native_functions.yaml (no overload: just the name)", key="op")
    route = item.get("route")
    if route not in ROUTES:
        check.fail(f"route must be one of {', '.join(ROUTES)}, got {route!r}"
                   f"{did_you_mean(str(route), ROUTES)}",
                   "set 'route: direct' for a handwritten kernel", key="route")
    route = Route(route)
    needs = {"direct": ("impl",), "stub": ("stub", "kernel"), "composite": (), "fallback": ()}
    if route == Route.DIRECT and "structured_impl" in item:
        if "impl" in item:
            check.fail("'impl' and 'structured_impl' both given",
                       "keep 'structured_impl' (it covers the whole structured family) or "
                       "'impl' (exactly this overload)", key="impl")
        needs["direct"] = ("structured_impl",)
    optional = {"stub": ("also_stubs", "elementwise"),
                "direct": ("replaces_decomposition", "also_stubs")}.get(route, ())
    for key in ("impl", "structured_impl", "stub", "kernel", "also_stubs", "elementwise",
                "replaces_decomposition"):
        if key in item and key not in needs[route] + optional:
            check.fail(f"'{key}' does not apply to route '{route}'",
                       f"remove it (route '{route}' takes: {', '.join(needs[route]) or 'no kernel'})",
                       key=key)
    for key in needs[route]:
        value = item.get(key)
        if not isinstance(value, str) or not _CPP_NAME.match(value):
            check.fail(f"route '{route}' needs '{key}', a C++ name, got {value!r}",
                       KEYS[key], key=key)
    dtypes, arg_dtypes = _dtype_spec(check, item.get("dtypes"))
    tests = _tests(check, item.get("tests"))
    notes = item.get("notes", "")
    if not isinstance(notes, str):
        check.fail("'notes' must be a string", "write notes: \"...\"", key="notes")
    common = dict(op=op, route=route, line=line, dtypes=dtypes, arg_dtypes=arg_dtypes,
                  tests=tests, notes=notes,
                  device_check_reason=_device_check(check, route, item.get("device_check")))
    if route == Route.DIRECT and "structured_impl" in item:
        routed = dict(variants=_structured_impl_variants(check, up),
                      structured_impl=item["structured_impl"])
    elif route == Route.DIRECT:
        replaces = _replaces_decomposition(check, up, item.get("replaces_decomposition"))
        routed = dict(variants=(_direct_variant(check, up, bool(replaces)),), impl=item["impl"],
                      replaces_decomposition=replaces,
                      also_stubs=_also_stubs(check, item.get("also_stubs")))
    elif route == Route.STUB:
        stub, header = _stub(check, item["stub"])
        routed = dict(variants=_stub_variants(check, up), stub=stub, stub_header=header,
                      kernel=item["kernel"], also_stubs=_also_stubs(check, item.get("also_stubs")),
                      elementwise=_elementwise(check, item.get("elementwise"), stub, item["kernel"]))
    elif route == Route.COMPOSITE:
        _composite(check, up)
        routed = dict(variants=())
    else:
        routed = dict(variants=_fallback_variants(check, up))
    if arg_dtypes:
        _check_arg_dtypes(check, arg_dtypes, [v.upstream for v in routed["variants"]] or [up])
    if "precheck" in item:
        routed["precheck"], routed["precheck_args"], routed["precheck_types"] = _precheck(
            check, route, item["precheck"], routed["variants"])
    policy, reason = _autocast(check, up, item.get("autocast"))
    return Entry(autocast=policy, autocast_reason=reason, **common, **routed)


def _declared(path: str, item: dict) -> Declared:
    line = item.get(LINE_KEY)
    kinds = [k for k in DECLARED_KINDS if k in item]
    op = item.get(kinds[0])
    check = _Checker(path, line, op if isinstance(op, str) else None)
    check.unknown_keys(item, DECLARED_KEYS)
    if len(kinds) > 1:
        check.fail(f"'{kinds[0]}' and '{kinds[1]}' both given", "keep one", key=kinds[1])
    kind = kinds[0]
    known = {**upstream.upstream_ops(), **upstream.autogen_ops()}
    if not isinstance(op, str) or op not in known:
        check.fail(f"'{kind}' must name an overload of the installed torch, got {op!r}"
                   f"{did_you_mean(str(op), known)}",
                   "use the exact 'name.overload' (native_functions.yaml, or an autogen: name)",
                   key=kind)
    reason = item.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        check.fail("missing or empty 'reason'", 'say why, e.g. reason: "sparse layouts are out '
                   'of scope"', key="reason")
    handwritten = item.get("handwritten", "")
    if kind == "upstream_kernel":
        if not any(upstream.has_kernel(op, k) for k in _COMPOSITE_KEYS):
            check.fail(f"'{op}' has no composite kernel in the installed torch, so nothing "
                       "runs it on tpu without an entry", "give it an entry, or 'exclude:' it",
                       key=kind)
        if not isinstance(handwritten, str) or not os.path.isfile(os.path.join(paths.ROOT, handwritten)) \
                or not handwritten.startswith("tests/"):
            check.fail(f"'upstream_kernel' needs 'handwritten', an existing test file under tests/ "
                       f"that runs it on tpu, got {handwritten!r}",
                       "e.g. handwritten: tests/test_ctc_loss.py", key="handwritten")
    elif handwritten:
        check.fail("'handwritten' applies to 'upstream_kernel' only", "remove it", key="handwritten")
    return Declared(op=op, kind=kind, line=line, reason=reason.strip(), handwritten=handwritten)


def _autocast(check: _Checker, up: upstream.UpstreamOp, value) -> Tuple[str, str]:
    """The declared policy: valid for the op's schema, and CUDA's
    (ATen/autocast_mode.h) unless a reason says why not."""
    reason = ""
    if isinstance(value, dict):
        check.unknown_keys(value, {"policy": "the policy", "reason": "why it differs from CUDA's"},
                           where=" in 'autocast'")
        reason = value.get("reason", "")
        if not isinstance(reason, str) or not reason.strip():
            check.fail("'autocast' as a mapping needs a 'reason'",
                       "autocast: {policy: none, reason: \"why tpu differs from CUDA\"}",
                       key="autocast")
        value = value.get("policy")
    cuda = autocast.reference_policy(up.name)
    where = (f"CUDA's autocast runs aten::{up.name} under '{cuda}' "
             f"(ATen/autocast_mode.h of the installed torch)")
    if value is None:
        if cuda != "none":
            check.fail(f"no autocast policy: {where}",
                       f"add 'autocast: {cuda}' to the entry (or autocast: {{policy: ..., "
                       f"reason: ...}} to differ on purpose)", key="autocast")
        return "", ""
    if not isinstance(value, str) or value not in autocast.POLICIES:
        check.fail(f"unknown autocast policy {value!r}{did_you_mean(str(value), autocast.POLICIES)}",
                   "policies: " + "; ".join(f"{k}: {v}" for k, v in autocast.POLICIES.items()),
                   key="autocast")
    if value != "none":
        _check_policy_fits(check, up, value)
    if value != cuda and not reason:
        check.fail(f"autocast policy '{value}' differs from CUDA's: {where}",
                   f"use 'autocast: {cuda}', or say why with autocast: {{policy: {value}, "
                   f"reason: \"...\"}}", key="autocast")
    if value == cuda and reason:
        check.fail("'autocast.reason' is only for a policy that differs from CUDA's "
                   f"('{cuda}' here)", f"write 'autocast: {value}'", key="autocast")
    return value, reason.strip()


def _check_policy_fits(check: _Checker, up: upstream.UpstreamOp, value: str) -> None:
    func = up.func
    if up.kind in (SchemaKind.inplace, SchemaKind.out) or func.arguments.out or any(
            a.annotation is not None and a.annotation.is_write for a in func.arguments.flat_all):
        check.fail(f"autocast policy '{value}' on an op that writes to its arguments: the "
                   "cast copies would be written instead", "declare the policy on the "
                   "functional overload's entry (as CUDA does)", key="autocast")
    if not any(a.type.is_tensor_like() for a in func.arguments.flat_all):
        check.fail(f"autocast policy '{value}' on an op without tensor inputs",
                   "remove 'autocast'", key="autocast")
    if value == "fp32_set_opt_dtype" and not any(
            str(a.type) == "ScalarType?" for a in func.arguments.flat_non_out):
        check.fail("'fp32_set_opt_dtype' needs an optional dtype argument ('ScalarType? dtype'), "
                   f"which {up.name} does not have", "use 'fp32'", key="autocast")
    if value == "fp32_append_dtype" and up.name not in autocast.reference().redispatch:
        check.fail("'fp32_append_dtype' redispatches to an overload that takes a dtype; ATen "
                   "names that overload only for " +
                   ", ".join(sorted(autocast.reference().redispatch)),
                   "use 'fp32'", key="autocast")


def _signature(check: _Checker, up: upstream.UpstreamOp) -> cpp.Signature:
    try:
        return cpp.dispatcher_signature(up.schema, up.const_ref_for_mutable,
                                        structured=bool(up.structured or up.structured_delegate))
    except cpp.UnsupportedType as e:
        check.fail(f"the generator cannot map argument type '{e}' of {up.name} to C++",
                   "extend codegen/model/cpp.py for this type")


def _kind(up: upstream.UpstreamOp) -> str:
    return _KIND_NAMES.get(up.kind, Kind.OTHER)


def _direct_variant(check: _Checker, up: upstream.UpstreamOp, replaces: bool = False) -> Variant:
    if up.composite_implicit and not replaces:
        check.fail("is CompositeImplicitAutograd upstream: it decomposes into other ops, and "
                   "registering a kernel for it would bypass autograd",
                   "use 'route: composite' and cover the ops it decomposes into, or, when tpu "
                   "needs a composition of its own, say why with 'replaces_decomposition: ...'")
    return Variant(up.name, _kind(up), _signature(check, up), up, via=Via.IMPL)


def _replaces_decomposition(check: _Checker, up: upstream.UpstreamOp, value) -> str:
    if value is None:
        return ""
    if not isinstance(value, str) or not value.strip():
        check.fail("'replaces_decomposition' must say why, as a string",
                   "replaces_decomposition: \"one autograd node per layer instead of ...\"",
                   key="replaces_decomposition")
    if not up.composite_implicit:
        check.fail(f"'replaces_decomposition' is for CompositeImplicitAutograd ops; {up.name} "
                   "has kernels of its own upstream (autograd comes from derivatives.yaml)",
                   "remove 'replaces_decomposition'", key="replaces_decomposition")
    return value.strip()


def _structured_impl_variants(check: _Checker, up: upstream.UpstreamOp) -> Tuple[Variant, ...]:
    """The members of up's structured family (the out= op and the ops that
    delegate to it), each wrapped around ATen's meta() class."""
    out_op = up.structured_kernel
    if out_op is None:
        check.fail(f"{up.name} is not structured upstream (no structured meta() to reuse)",
                   "use 'impl' for a handwritten function registered for this overload",
                   key="structured_impl")
    members = upstream.family(out_op)
    if "functional" not in {_KIND_NAMES.get(k) for k in members}:
        check.fail(f"{out_op.name}'s family has no functional member, so ATen declares no "
                   "meta() class for it", "use 'impl'", key="structured_impl")
    try:
        structured_impl_params(out_op)
    except cpp.UnsupportedType as e:
        check.fail(f"the generator cannot map the precomputed or argument type '{e}' of "
                   f"{out_op.name}'s impl()", "extend codegen/model/manifest.py's "
                   "structured_impl_params for this type, or use 'impl'", key="structured_impl")
    meta = "at::meta::structured_" + members[SchemaKind.functional].name.replace(".", "_")
    variants = []
    for kind, member in sorted(members.items(), key=lambda kv: kv[1].name):
        if member is out_op or member.structured_delegate == out_op.name:
            variants.append(Variant(member.name, _kind(member), _signature(check, member), member,
                                    via=Via.STRUCTURED_IMPL, native=meta))
    return tuple(variants)


# Precomputed values' types (native_functions.yaml's `precomputed:` lines).
_PRECOMPUTED_TYPES = {"int": "int64_t", "bool": "bool", "DimVector": "at::DimVector",
                      "MemoryFormat": "at::MemoryFormat"}


def _structured_param_type(t) -> str:
    """How ATen's structured impl() takes an argument (torchgen's
    structured.argumenttype_type)."""
    if isinstance(t, OptionalType) and isinstance(t.elem, BaseType):
        if t.elem.name == BaseTy.Tensor:
            return "at::OptionalTensorRef"
        if t.elem.name == BaseTy.Scalar:
            return "at::OptionalScalarRef"
    return cpp._value_type(t, structured=True)


def structured_impl_params(out_op: upstream.UpstreamOp) -> List[cpp.Binding]:
    """The parameters of a structured_impl function: the op's inputs as
    ATen's impl() takes them (precomputed values replacing the arguments
    they derive from), then one `const at::Tensor &` per output. A
    TensorIterator meta() is ATen's impl()'s `*this`: it comes first."""
    func = out_op.func
    iterator = [cpp.Binding("at::TensorIteratorBase &", "iter")] if out_op.structured_inherits == "TensorIteratorBase" else []
    params = iterator + [cpp.Binding(_structured_param_type(a.type), a.name)
                         for a in func.arguments.flat_non_out]
    appended = []
    for replaced, values in out_op.precomputed_values:
        for typ, _ in values:
            if typ not in _PRECOMPUTED_TYPES:
                raise cpp.UnsupportedType(typ)
        bindings = [cpp.Binding(_PRECOMPUTED_TYPES[t], n) for t, n in values]
        if replaced:
            i = [p.name for p in params].index(replaced)
            params[i:i + 1] = bindings
        else:
            appended += bindings
    return params + appended + [cpp.Binding("const at::Tensor &", a.name) for a in func.arguments.out]


_PRECHECK = re.compile(r"^([A-Za-z_]\w*)\(\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*\)$")


def _precheck(check: _Checker, route: str, value, variants) -> Tuple[str, Tuple[str, ...], Tuple[str, ...]]:
    """(function, argument names, their C++ types) of `precheck: name(arg,
    ...)`: each argument an input of every overload the entry registers, of
    one C++ type in all of them."""
    if route not in (Route.DIRECT, Route.STUB):
        check.fail(f"'precheck' does not apply to route '{route}'",
                   "remove it (only direct and stub entries have a generated wrapper that calls it)",
                   key="precheck")
    m = _PRECHECK.match(value) if isinstance(value, str) else None
    if not m:
        check.fail(f"precheck must be 'name(arg, ...)', got {value!r}",
                   "e.g. precheck: mm_same_dtype(self, mat2)", key="precheck")
    args = tuple(a.strip() for a in m.group(2).split(","))
    types: Dict[str, str] = {}
    for v in variants:
        inputs = {a.name for a in v.upstream.func.arguments.flat_non_out}
        params = {p.name: p.type for p in v.signature.params}
        for a in args:
            if a not in inputs:
                check.fail(f"precheck argument {a!r} is not an input of {v.op}"
                           f"{did_you_mean(a, sorted(inputs))}",
                           f"name inputs of the schema: {', '.join(sorted(inputs))}",
                           key="precheck")
            if types.setdefault(a, params[a]) != params[a]:
                check.fail(f"precheck argument {a!r} is {types[a]} in one overload and {params[a]} "
                           f"in {v.op}", "name arguments of one type in every overload", key="precheck")
    return m.group(1), args, tuple(types[a] for a in args)


def _device_check(check: _Checker, route: str, value) -> str:
    """The reason an entry opts out of the generated device checks ('')."""
    if value is None:
        return ""
    if isinstance(value, dict):
        value = {k: v for k, v in value.items() if k != LINE_KEY}
    if not (isinstance(value, dict) and value.get("policy") == "NoCheck"
            and isinstance(value.get("reason"), str) and value["reason"].strip()
            and set(value) == {"policy", "reason"}):
        check.fail(f"device_check must be {{policy: NoCheck, reason: \"...\"}}, got {value!r}",
                   "say why the op takes tensors on several devices, e.g. "
                   "device_check: {policy: NoCheck, reason: \"copies between devices\"}",
                   key="device_check")
    if route not in ("direct", "stub"):
        check.fail(f"device_check does not apply to route '{route}' (no wrapper is generated)",
                   "remove it", key="device_check")
    return value["reason"]


def _also_stubs(check: _Checker, value) -> Tuple[Tuple[str, str, str], ...]:
    if value is None:
        return ()
    if not isinstance(value, dict):
        check.fail(f"also_stubs must be a mapping {{stub: kernel}}, got {value!r}",
                   "write also_stubs: {index_put_with_sort_stub: index_put_with_sort_kernel}",
                   key="also_stubs")
    out = []
    for stub, kernel in sorted((k, v) for k, v in value.items() if k != LINE_KEY):
        stub, header = _stub(check, stub, key="also_stubs")
        if not isinstance(kernel, str) or not _CPP_NAME.match(kernel):
            check.fail(f"also_stubs: the kernel of {stub} must be a C++ name, got {kernel!r}",
                       KEYS["kernel"], key="also_stubs")
        out.append((stub, header, kernel))
    return tuple(out)


def _stub(check: _Checker, stub: str, key: str = "stub") -> Tuple[str, str]:

    declared = stubs.declared_stubs()
    if stub not in declared:
        check.fail(f"'{stub}' is not a DispatchStub declared in the installed torch's "
                   f"ATen/native headers{did_you_mean(stub, declared)}",
                   "name a stub from a DECLARE_DISPATCH in torch/include/ATen/native", key=key)
    return stub, declared[stub]


def _elementwise(check: _Checker, value, stub: str, kernel: str) -> str:
    """The elementwise op a generated stub kernel runs ('' when the kernel is
    handwritten): a row of the kernel library's list, for a stub whose kernel
    takes only the TensorIterator."""
    if value is None:
        return ""
    known = kernel_ops.elementwise_ops()
    if value not in known:
        check.fail(f"'{value}' is not an elementwise op of the kernel library"
                   f"{did_you_mean(str(value), known)}",
                   f"name a row of TORCH_TPU_ELEMENTWISE_OPS ({kernel_ops.ELEMENTWISE_HEADER}), or "
                   "add one there with its functor", key="elementwise")
    signature = stubs.kernel_signature(stub, kernel)
    if elementwise_params(signature) is None:
        check.fail(f"{stub}'s kernel takes more than the TensorIterator and scalars "
                   f"({signature}): a generated kernel passes only Scalar, double, int64_t "
                   "and bool arguments", "remove 'elementwise' and write the kernel in "
                   "csrc/aten/native/elementwise/", key="elementwise")
    return value


# The scalar parameter types a generated elementwise kernel passes on to the
# kernel library's op (as its ScalarArgs, in order, unconverted: the op's
# functor converts each the way CPU's kernel does).
SCALAR_PARAM_TYPES = ("const c10::Scalar&", "const at::Scalar&", "double", "int64_t", "const int64_t",
                      "bool")


def elementwise_params(signature: str) -> Optional[Tuple[str, Tuple[str, ...]]]:
    """(iterator type, scalar parameter types) of a stub kernel that takes a
    TensorIterator followed only by scalars ("void k(at::TensorIteratorBase&,
    const c10::Scalar&, double);"), else None."""
    m = re.match(r"^void \w+\((.*)\);$", signature)
    if not m:
        return None
    types = []
    for param in m.group(1).split(","):
        param = " ".join(param.replace("&", "& ").split())
        for t in ("at::TensorIteratorBase&", "at::TensorIterator&") + SCALAR_PARAM_TYPES:
            if re.fullmatch(rf"{re.escape(t)}(?: \w+)?", param):
                types.append(t)
                break
        else:
            return None
    if not types[0].startswith("at::TensorIterator") or any(
            t.startswith("at::TensorIterator") for t in types[1:]):
        return None
    return types[0], tuple(types[1:])


def _stub_variants(check: _Checker, up: upstream.UpstreamOp) -> Tuple[Variant, ...]:
    """Every member of the family whose ATen implementation is shared with
    CUDA or MPS (so it calls its stubs with the tensors' device) is registered; the
    composite members reach them through the dispatcher."""
    variants = []
    members = upstream.family(up) or {up.kind: up}
    for kind, member in sorted(members.items(), key=lambda kv: kv[1].name):
        impl = upstream.lookup(member.structured_delegate) if member.structured_delegate else member
        if impl.structured:
            if not impl.generic_cpu_kernel:
                check.fail(f"{impl.name}'s CPU kernel '{impl.kernel_for('CPU')}' is CPU-only: it "
                           "may call its stub with device CPU, so a tpu stub kernel would never "
                           "run", "use 'route: direct' with a handwritten impl", key="route")
            variants.append(Variant(member.name, _kind(member), _signature(check, member), member,
                                    via=Via.STRUCTURED, native=impl.native_class))
        elif impl.generic_cpu_kernel and not member.composite_explicit:
            variants.append(Variant(member.name, _kind(member), _signature(check, member), member,
                                    via=Via.NATIVE, native=impl.kernel_for("CPU")))
    if not variants:
        check.fail(f"no member of {up.name}'s family has an ATen implementation shared by CPU "
                   "and CUDA (or MPS) that could reach a tpu stub kernel",
                   "use 'route: direct' with a handwritten impl", key="route")
    return tuple(variants)


def _composite(check: _Checker, up: upstream.UpstreamOp) -> None:
    if not (up.composite_implicit or up.composite_explicit):
        check.fail("has no composite (decomposition) kernel upstream, so nothing would run it "
                   "on tpu", "use 'route: stub', 'direct' or 'fallback'", key="route")


def _fallback_variants(check: _Checker, up: upstream.UpstreamOp) -> Tuple[Variant, ...]:
    members = upstream.family(up) or {up.kind: up}
    variants = tuple(Variant(m.name, _kind(m), _signature(check, m), m, via=Via.FALLBACK)
                     for _, m in sorted(members.items(), key=lambda kv: kv[1].name)
                     if not (m.composite_implicit or m.composite_explicit))
    if not variants:
        check.fail("every variant decomposes upstream (composite), so a host fallback would "
                   "never be reached", "use 'route: composite'", key="route")
    return variants


def _tolerance(check: _Checker, key: str, value) -> float:
    if isinstance(value, str):  # YAML 1.1 reads "1e-3" (no dot) as a string
        try:
            value = float(value)
        except ValueError:
            pass
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        check.fail(f"'tests.{key}' must be a non-negative number or {{dtype: number}}, got {value!r}",
                   f"e.g. {key}: 1e-5, or {key}: {{float16: 1e-3}}", key="tests")
    return float(value)


def is_tensor(t) -> bool:
    """A schema type that is Tensor or Tensor? (not a list)."""
    if isinstance(t, OptionalType):
        t = t.elem
    return isinstance(t, BaseType) and t.name == BaseTy.Tensor


def tensor_inputs(func) -> List[str]:
    """Names of a schema's Tensor and Tensor? inputs (out= tensors excluded):
    the arguments whose dtypes an entry declares."""
    return [a.name for a in func.arguments.flat_non_out if is_tensor(a.type)]


def _dtype_spec(check: _Checker, value):
    """ops.yaml's dtypes: a list (every tensor input) or {argument: list}."""
    if not isinstance(value, dict):
        return _dtypes(check, value), ()
    per_arg = []
    for name, names in value.items():
        if name == LINE_KEY:
            continue
        parsed = _dtypes(check, names)
        if not parsed:
            check.fail(f"'dtypes.{name}' is empty", f"list its dtypes, or 'all' to leave {name} "
                       "unchecked", key="dtypes")
        per_arg.append((str(name), parsed))
    if not per_arg:
        check.fail("'dtypes' is an empty mapping", "write {argument: [dtypes]} for each tensor "
                   "input, or a plain list", key="dtypes")
    return per_arg[0][1], tuple(per_arg)


def _check_arg_dtypes(check: _Checker, arg_dtypes, funcs) -> None:
    """{argument: dtypes} must name every tensor input of every overload the
    entry registers, and nothing else: the generator refuses to guess which
    inputs hold the op's data and which hold positions or flags."""
    named = [name for name, _ in arg_dtypes]
    inputs: List[str] = []
    for up in funcs:
        inputs += [n for n in tensor_inputs(up.func) if n not in inputs]
    unknown = [n for n in named if n not in inputs]
    if unknown:
        check.fail(f"'dtypes' names {', '.join(unknown)}, not a tensor input of "
                   f"{', '.join(up.name for up in funcs)}{did_you_mean(unknown[0], inputs)}",
                   "name the tensor inputs: " + ", ".join(inputs), key="dtypes")
    missing = [n for n in inputs if n not in named]
    if missing:
        check.fail(f"'dtypes' does not classify tensor input(s) {', '.join(missing)}",
                   "add " + ", ".join(f"{n}: [...]" for n in missing) +
                   " (or 'all' to leave an input unchecked, e.g. an index)", key="dtypes")


def _dtypes(check: _Checker, value) -> Tuple[str, ...]:
    if value is None:
        return ()
    try:
        return parse_dtypes(value)
    except ValueError as e:
        check.fail(str(e), "list dtype names: " + ", ".join(DTYPES), key="dtypes")


def _tests(check: _Checker, value) -> TestHints:
    if value is None:
        return TestHints()
    if not isinstance(value, dict):
        check.fail("'tests' must be a mapping", "e.g. tests: {opinfo: [add]}", key="tests")
    check.unknown_keys(value, TEST_KEYS, where=" in 'tests'")
    opinfo = value.get("opinfo", [])
    if isinstance(opinfo, str):
        opinfo = [opinfo]
    if not isinstance(opinfo, list) or not all(isinstance(o, str) for o in opinfo):
        check.fail("'tests.opinfo' must be a list of OpInfo names", "e.g. opinfo: [add, sub]",
                   key="tests")
    xfails = []
    for x in value.get("xfail", []) or []:
        if not isinstance(x, dict):
            x = {"reason": x} if isinstance(x, str) else {}
        check.unknown_keys(x, XFAIL_KEYS, where=" in 'tests.xfail'")
        reason = x.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            check.fail("every xfail needs a 'reason'", "xfail: [{reason: \"why\", dtypes: [...]}]",
                       key="tests")
        problem = raises_problem(x.get("raises"))
        if problem:
            check.fail(problem, "add raises: AssertionError (a comparison with CPU failed), "
                       "RouteError, NothingCompared, or the exception the op raises "
                       "(NotImplementedError, RuntimeError, ...): run the check without the "
                       "xfail to see it", key="tests")
        checks = tuple(x.get("checks", ()))
        for c in checks:
            if c not in CHECKS:
                check.fail(f"unknown check '{c}' in xfail{did_you_mean(c, CHECKS)}",
                           "checks are: " + ", ".join(CHECKS), key="tests")

        rules = tuple(x.get("rules", ()))
        for r in rules:
            if r not in OUT_RULES:
                check.fail(f"unknown out= rule '{r}' in xfail{did_you_mean(r, OUT_RULES)}",
                           "rules are: " + ", ".join(OUT_RULES), key="tests")
        if rules and checks != ("out_contract",):
            check.fail("xfail 'rules' name out= contract rules: they need checks: [out_contract]",
                       "write checks: [out_contract], rules: [...]", key="tests")
        opinfos = x.get("opinfos", [])
        if not isinstance(opinfos, list) or not all(isinstance(o, str) for o in opinfos):
            check.fail("xfail 'opinfos' must be a list of OpInfo names",
                       "e.g. opinfos: [nn.functional.conv_transpose3d]", key="tests")
        xfails.append(XFail(reason.strip(), x["raises"], _dtypes(check, x.get("dtypes")), checks,
                            rules, tuple(opinfos)))
    tol = {}
    for key in ("atol", "rtol"):
        if key not in value:
            continue
        given = value[key]
        if isinstance(given, dict):
            tol[key] = {name: _tolerance(check, key, v) for name, v in given.items()
                        if name != LINE_KEY and _dtypes(check, [name])}
        else:
            tol[key] = _tolerance(check, key, given)
    handwritten = value.get("handwritten", "")
    if handwritten:
        _check_handwritten(check, handwritten)
    dtypes = _dtypes(check, value.get("dtypes"))
    upcast = _dtypes(check, value.get("float32_reference"))
    if any(d not in ("float16", "bfloat16") for d in upcast):
        check.fail("'tests.float32_reference' names float16/bfloat16 only, got "
                   f"{', '.join(upcast)}", "e.g. float32_reference: [float16]", key="tests")
    fake = value.get("follows_fake")
    outputs, fake_reason = (), ""
    if fake is not None:
        outputs = fake.get("outputs") if isinstance(fake, dict) else None
        fake_reason = fake.get("reason") if isinstance(fake, dict) else None
        if (not isinstance(outputs, list) or not outputs or
                not all(isinstance(i, int) and i >= 0 for i in outputs) or
                not isinstance(fake_reason, str) or not fake_reason.strip()):
            check.fail("'tests.follows_fake' needs output indices and a reason",
                       'e.g. follows_fake: {outputs: [1, 2], reason: "float statistics, as CUDA"}',
                       key="tests")
        outputs, fake_reason = tuple(outputs), fake_reason.strip()
    return TestHints(opinfo=tuple(opinfo), handwritten=handwritten, dtypes=dtypes,
                     xfail=tuple(xfails), float32_reference=upcast, follows_fake=outputs,
                     follows_fake_reason=fake_reason, **tol)


def _check_handwritten(check: _Checker, path: str) -> None:
    root = paths.ROOT
    full = os.path.join(root, path)
    if not (isinstance(path, str) and path.startswith("tests/") and os.path.isfile(full)):
        check.fail(f"'tests.handwritten' must name an existing test file under tests/, got {path!r}",
                   "e.g. handwritten: tests/test_scalars.py", key="tests")
