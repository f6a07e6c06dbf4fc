"""Multi-label classification: one-vs-rest over a label set from one counting pass.

Each row carries a set of labels. For label L, the binary model "L against the rest" needs the
statistics of the rows carrying L and of the others; the others' are all rows' minus L's (the
statistics protocol's ``subtract``), so the statistics are counted once, not once per label.
See :class:`MultiLabel` and docs/multilabel.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import exports

#: public name -> the module that defines it, imported on first use: reading label sets (the
#: command line's predict and evaluate) does not load the models and model selection
_WHERE = {
    "MultiLabel": "._model",
    "cross_validate_labels": "._crossval",
    "label_set_scores": "._crossval",
    "read_labels": "._labels",
}

__all__ = sorted(_WHERE)

if TYPE_CHECKING:  # pragma: no cover - explicit re-exports (mypy reads no computed __all__)
    from ._crossval import cross_validate_labels as cross_validate_labels
    from ._crossval import label_set_scores as label_set_scores
    from ._labels import read_labels as read_labels
    from ._model import MultiLabel as MultiLabel


__getattr__, __dir__ = exports(__name__, _WHERE)
