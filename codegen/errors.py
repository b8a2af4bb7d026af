"""Errors the generator reports to users: where (file:line), what, and the fix."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Iterable, Optional


@dataclass
class ManifestError(Exception):
    """A problem in ops.yaml. Printed as one line per field, never as a traceback."""

    path: str
    line: Optional[int]
    message: str
    fix: str = ""
    op: Optional[str] = None
    key: Optional[str] = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        subject = ""
        if self.op:
            subject += f" op '{self.op}'"
        if self.key:
            subject += f" key '{self.key}'"
        text = f"{where}:{subject}: {self.message}" if subject else f"{where}: {self.message}"
        if self.fix:
            text += f"\n  fix: {self.fix}"
        return text


class BuildError(Exception):
    """cmake/ninja failed; the tool output has already been shown."""


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=3, cutoff=0.6)
    if not close:
        return ""
    return " (did you mean " + " or ".join(f"'{c}'" for c in close) + "?)"
