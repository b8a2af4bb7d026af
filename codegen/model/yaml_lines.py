"""YAML loading that remembers the line of every mapping (as key '__line__')."""

from __future__ import annotations

import yaml

LINE_KEY = "__line__"


class _LineLoader(yaml.SafeLoader):
    def construct_mapping(self, node, deep=False):
        mapping = super().construct_mapping(node, deep=deep)
        mapping[LINE_KEY] = node.start_mark.line + 1
        return mapping


def load_with_lines(text: str):
    return yaml.load(text, Loader=_LineLoader)
