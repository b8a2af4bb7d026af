"""The torch_tpu package's modules import each other without cycles (a
module importing its parent package, which imports its submodules, is how
packages work and is not counted). A cycle hidden in a function-level import
is still a cycle."""

import ast
import os

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "torch_tpu")


def _modules():
    """{dotted name: path} of every module; packages by their __init__."""
    out = {}
    for folder, _, files in os.walk(ROOT):
        for f in files:
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(folder, f), os.path.dirname(ROOT))[:-3]
                name = rel.replace(os.sep, ".")
                out[name[: -len(".__init__")] if name.endswith(".__init__") else name] = os.path.join(folder, f)
    return out


def _edges(modules):
    """module -> the torch_tpu modules it imports, anywhere in its body,
    leaving out its own parent packages."""
    graph = {}
    for name, path in modules.items():
        is_package = path.endswith("__init__.py")
        here = name if is_package else name.rsplit(".", 1)[0]
        with open(path) as f:
            tree = ast.parse(f.read())
        targets = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level > 0:
                base = here.rsplit(".", node.level - 1)[0] if node.level > 1 else here
                base = f"{base}.{node.module}" if node.module else base
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.add(sub if sub in modules else base)
            elif isinstance(node, ast.Import):
                targets |= {a.name for a in node.names if a.name.split(".")[0] == "torch_tpu"}
        parents = {name.rsplit(".", k)[0] for k in range(1, name.count(".") + 1)}
        graph[name] = {t for t in targets if t in modules and t != name and t not in parents}
    return graph


def _cycle(graph):
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_no_import_cycles_between_modules():
    graph = _edges(_modules())
    # Package __init__ files import their submodules; edges into a package
    # (an attribute of its __init__) are followed too, except to a parent.
    plain = {m: {t for t in ts if not _modules()[t].endswith("__init__.py")} for m, ts in graph.items()
             if not _modules()[m].endswith("__init__.py")}
    assert _cycle(plain) is None, " -> ".join(_cycle(plain))


def test_the_check_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
