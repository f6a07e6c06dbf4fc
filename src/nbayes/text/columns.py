"""NaiveBayes' text component: one multinomial bag of words per text column."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..naive_bayes.params import assign_parameters
from ..stats.text import TextStats
from ._buffer import to_buffer
from .classifier import TextClassifier
from .settings import Docs


@dataclass
class TextColumnsStats:
    """The class weights and each text column's term statistics."""

    class_count: np.ndarray
    columns: list[TextStats]

    def embed(self, pos: np.ndarray, n_classes: int) -> "TextColumnsStats":
        cc = np.zeros(n_classes)
        cc[pos] = self.class_count
        return TextColumnsStats(cc, [s.embed(pos, n_classes) for s in self.columns])

    def __add__(self, other: "TextColumnsStats") -> "TextColumnsStats":
        return TextColumnsStats(
            self.class_count + other.class_count, [a + b for a, b in zip(self.columns, other.columns)]
        )

    def subtract(self, other: "TextColumnsStats", classes: np.ndarray) -> "TextColumnsStats":
        cols = [a.subtract(b, classes) for a, b in zip(self.columns, other.columns)]
        return TextColumnsStats(cols[0].class_count, cols)

    def merge(self, other: "TextColumnsStats") -> "TextColumnsStats":
        return self + other

    def check(self, n_classes: int | None = None, n_features: int | None = None) -> None:
        """Each column's own check, all of them counting the model's class weights."""
        from ..stats.checks import check_class_count

        cc = check_class_count(self.class_count, n_classes)
        for s in self.columns:
            s.check(n_classes=len(cc))

    def to_arrays(self) -> dict[str, np.ndarray]:
        out = {"stats/class_count": self.class_count}
        for j, s in enumerate(self.columns):
            out.update({f"col/{j}/{k}": v for k, v in s.to_arrays().items()})
        return out

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], n_columns: int) -> "TextColumnsStats":
        cols = []
        for j in range(n_columns):
            prefix = f"col/{j}/"
            cols.append(TextStats.from_arrays({k[len(prefix):]: v for k, v in arrays.items() if k.startswith(prefix)}))
        return cls(arrays["stats/class_count"], cols)


def as_docs(column: np.ndarray) -> Docs:
    """A table column as documents: a missing cell is an empty document (it adds nothing)."""
    from .._validation import is_missing

    texts = ["" if is_missing(v) else (v if isinstance(v, str | bytes) else str(v)) for v in column.tolist()]
    return Docs(*to_buffer(texts))


class TextColumns:
    """Each text column is a multinomial bag of words (scikit-learn's default tokens) with its
    own vocabulary; their log-likelihoods add. Speaks the hook protocol of ``BaseNB``."""

    #: one fitted TextClassifier per text column (set by estimation)
    models_: list[TextClassifier]

    def __init__(self, alpha: float) -> None:
        self.alpha = alpha

    def _model(self) -> TextClassifier:
        return TextClassifier(alpha=self.alpha)

    def check_params(self) -> None:
        self._model().check_params()

    def count_statistics(self, docs: list[Docs], codes: np.ndarray, n_classes: int, w: np.ndarray | None) -> TextColumnsStats:
        cc = np.bincount(codes, weights=w, minlength=n_classes).astype(np.float64)
        return TextColumnsStats(cc, [self._model().count_statistics(d, codes, n_classes, w) for d in docs])

    def estimate_parameters(self, stats: TextColumnsStats, n_features: int) -> dict[str, Any]:
        models = []
        for s in stats.columns:
            model = self._model()
            assign_parameters(model, model.estimate_parameters(s, 1))
            model.stats_ = s
            models.append(model)
        return {"models_": models}

    def log_likelihood(self, docs: list[Docs]) -> np.ndarray:
        per_column = [m.log_likelihood(d) for m, d in zip(self.models_, docs)]
        total: np.ndarray = sum(per_column[1:], per_column[0])  # (a NaiveBayes has text parts for text columns only)
        return total

    def feature_terms(self, docs: list[Docs]) -> np.ndarray:
        return np.stack([m.log_likelihood(d) for m, d in zip(self.models_, docs)], axis=2)

    def feature_scores(self) -> tuple[np.ndarray, list[str]]:
        names = [str(n) for n in getattr(self, "feature_names_in_", range(len(self.models_)))]
        scores, labels = [], []
        for name, m in zip(names, self.models_):
            s, terms = m.feature_scores()
            scores.append(s)
            labels += [f"{name}: {t}" for t in terms]
        return np.concatenate(scores, axis=1), labels
