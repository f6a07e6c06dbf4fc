"""Multi-label classification: one-vs-rest over a label set from one counting pass.

Each row carries a set of labels. For label L, the binary model "L against the rest" needs the
statistics of the rows carrying L and of the others; the others' are all rows' minus L's (the
statistics protocol's ``subtract``), so the statistics are counted once, not once per label.
See :class:`MultiLabel` and docs/multilabel.md.
"""

from ._crossval import cross_validate_labels, label_set_scores
from ._labels import read_labels
from ._model import MultiLabel

__all__ = ["MultiLabel", "cross_validate_labels", "label_set_scores", "read_labels"]
