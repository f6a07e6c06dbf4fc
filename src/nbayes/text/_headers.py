"""E-mail and news headers (``TextClassifier(headers=[...])``): keep the named fields' values, blank the rest.

A document *has* a header section when it starts as an RFC 5322 message does: header fields
(``Name: value``, the name printable ASCII without spaces or colon), each possibly continued on
lines that start with a space or a tab, up to the first empty line (or the end of the document).
The section may start with continuation lines (a field cut off at the start, as in archived
posts whose first lines were clipped): they are dropped. A document that does not start so, or
whose section holds a line that is neither a field nor a continuation, has no header section and
is read as given.
The characters taken out are replaced by spaces (line breaks kept), so the rest of the document,
its tokens and their positions (``explain``'s spans) are unchanged: for word and ``char_wb``
terms, blanking is the same as removing; for ``analyzer="char"`` a run of white space counts
as one space, as scikit-learn's character analyzer reads it.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..errors import InvalidParameterError
from ._buffer import _texts

#: a header field's name and its colon (RFC 5322 section 3.6.8: printable ASCII but the colon)
_FIELD = re.compile(r"[!-9;-~]+:")
_NAME = re.compile(r"[!-9;-~]+")


def header_fields(headers: Any) -> frozenset[str] | None:
    """``headers`` checked: None (documents read as given) or the lower-cased names of the header
    fields to keep (empty: drop the whole header section)."""
    if headers is None:
        return None
    if isinstance(headers, str | bytes) or not isinstance(headers, Iterable | np.ndarray):
        raise InvalidParameterError(
            "parameter 'headers' must be None or a list of header field names to keep, such as "
            f"['subject'] ([] drops the whole header section), got {headers!r}"
        )
    names = list(np.asarray(headers, dtype=object).ravel()) if isinstance(headers, np.ndarray) else list(headers)
    for name in names:
        if isinstance(name, numbers.Number) or not isinstance(name, str) or not _NAME.fullmatch(name):
            raise InvalidParameterError(
                "parameter 'headers': each name must be a header field name (printable ASCII, no "
                f"space or colon) such as 'subject', got {name!r}"
            )
    return frozenset(n.lower() for n in names)


def blank_headers(text: str, keep: frozenset[str]) -> str:
    """``text`` with its header section (if any) blanked but the values of the fields in ``keep``
    (lower-case names)."""
    first = 0
    while text[first:first + 1] in (" ", "\t"):  # continuation lines of a clipped field
        first = text.find("\n", first) + 1
        if first == 0:
            return text
    m = _FIELD.match(text, first)
    if m is None or "\n" in text[first:m.end()]:
        return text
    out: list[str] = []
    pos, n = 0, len(text)
    kept = False  # whether the current field (and so its continuation lines) is kept
    while pos < n:
        end = text.find("\n", pos)
        end = n if end < 0 else end
        line = text[pos:end]
        if line.strip("\r") == "":  # the empty line: the header section ends
            break
        m = _FIELD.match(line)
        if m is not None:
            kept = line[: m.end() - 1].lower() in keep
            out.append(" " * m.end() + line[m.end():] if kept else _blank(line))
        elif line[0] in " \t":  # a continuation of the field above
            out.append(line if kept else _blank(line))
        else:  # not a header section after all: the document as given
            return text
        out.append(text[end:end + 1])  # the line break ("" at the end)
        pos = end + 1
    out.append(text[pos:])
    return "".join(out)


def _blank(line: str) -> str:
    return " " * (len(line) - 1) + "\r" if line.endswith("\r") else " " * len(line)


def without_headers(docs: Any, keep: frozenset[str]) -> list[str]:
    """The documents (str or UTF-8 bytes, checked as every text input is) with their header
    sections blanked (:func:`blank_headers`)."""
    return [blank_headers(text, keep) for text in _texts(docs, lowercase=False)]
