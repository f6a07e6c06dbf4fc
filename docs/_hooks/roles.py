"""Griffe extension: docstrings written for Sphinx and doctest, shown right in Markdown.

- A Sphinx role (``:func:`~nbayes.x.f```) becomes the code span of its target (the last
  component when it starts with ``~``).
- A doctest example (a ``>>>`` line and what follows it up to a blank line) becomes a fenced
  ``pycon`` block, so that its output is shown as code and never read as Markdown.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:func|class|mod|meth|attr|data|obj|exc|const):`(~?)([^`]+)`")


def _code(match: re.Match[str]) -> str:
    target = match.group(2)
    return f"`{target.rsplit('.', 1)[-1] if match.group(1) else target}`"


def _fence_doctests(text: str) -> str:
    out: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i].lstrip().startswith(">>>"):
            indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
            j = i
            while j < len(lines) and lines[j].strip():
                j += 1
            out += [f"{indent}```pycon", *lines[i:j], f"{indent}```"]
            i = j
        else:
            out.append(lines[i])
            i += 1
    return "\n".join(out)


class SphinxRolesAsCode(griffe.Extension):
    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _fence_doctests(_ROLE.sub(_code, obj.docstring.value))
