"""tf-idf statistics of TextClassifier: per-class sums of the documents' tf-idf vectors, under
an idf learned from the documents of one ``fit`` (not additive) or a frozen one (additive)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InvalidParameterError
from ..stats.counts import class_indicator, class_totals, per_class_sum
from ..stats.text import TextStats
from ..stats.text_exact import class_sums, exact_counts, plain_bound
from .settings import Docs
from .vocab import TermTable


class TfidfCounting:
    """Counting hooks for ``tfidf=True``; expects :class:`~nbayes.text.settings.TextSettings`."""

    def _tfidf_sums(self: Any, stats: TextStats, docs: Docs, codes: np.ndarray, n_classes: int,
                    w: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(kept terms, idf, per-class sums of the documents' tf-idf vectors). tf-idf depends on
        the whole corpus (idf, and the norm over kept terms), so these sums are not additive."""
        keep = self._active(stats)
        idf = self._idf(stats, keep)
        table = TermTable(stats.terms[keep], self._how())
        X = self._weigh(self._counts(table, docs, False), idf)
        return keep, idf, per_class_sum(class_indicator(codes, n_classes, w), X)

    def _count_frozen(self: Any, docs: Docs, codes: np.ndarray, n_classes: int, w: np.ndarray | None,
                      frozen: tuple[np.ndarray, np.ndarray, Any]) -> TextStats:
        """Statistics under a frozen idf, over its terms only: the counts, and the per-class sums
        of each document's tf-idf vector (tf or 1 + ln tf, times the frozen idf, unit L2 norm
        over these terms), which depend on nothing but the document, so they add up."""
        terms, idf, table = frozen
        if table is None:
            table = TermTable(terms, self._how())
        X = self._counts(table, docs, False)
        X01 = X.copy()
        X01.data[:] = 1.0
        Y = class_indicator(codes, n_classes, w)
        # each document's tf-idf vector is a function of the document alone; their weighted
        # per-class sums are held exactly (value and tail), so they add and subtract bit for bit
        sums, tail = class_sums(self._weigh(X, idf), codes, n_classes, w, dense=True)
        stats = TextStats(
            terms, class_totals(codes, n_classes, w), per_class_sum(Y, X), per_class_sum(Y, X01),
            np.asarray(X01.sum(axis=0)).ravel(), np.asarray(X.sum(axis=0)).ravel(), float(docs.shape[0]),
            table, (np.ones(len(terms), dtype=bool), idf, sums),
        )
        if plain_bound(w, max(float(X.sum()), float(docs.shape[0]))) is None:
            exact_counts(stats, X, codes, w)  # the counts too, when their float sums may round
        if tail:
            stats.exact["tfidf_sums"] = tail
        return stats

    def _check_streamable(self: Any, what: str) -> None:
        """tf-idf statistics add up only under a frozen idf, the one this model was fitted with."""
        if not self.tfidf or not hasattr(self, "classes_"):
            return
        frozen = self._frozen_idf()
        if frozen is None:
            raise InvalidParameterError(
                f"tfidf=True with a learned idf: idf and the L2 norms depend on the whole corpus, so "
                f"tf-idf statistics do not add up and {what} is not exact; fit again on all documents, "
                "or freeze the idf (TextClassifier(tfidf=True, idf=fitted.idf_)) to stream"
            )
        if not self._frozen_stats(frozen):
            raise InvalidParameterError(
                f"{what}: this model's tf-idf statistics were made with another idf than "
                "the frozen idf=... it now has; fit again with it"
            )

    def _frozen_stats(self: Any, frozen: tuple[np.ndarray, np.ndarray, Any]) -> bool:
        """Whether the fitted statistics are tf-idf sums under exactly this frozen idf."""
        terms, idf, _ = frozen
        weighted = self.stats_.weighted
        return (
            weighted is not None and bool(weighted[0].all()) and len(self.stats_.terms) == len(terms)
            and np.array_equal(weighted[1], idf) and np.array_equal(self.stats_.terms, terms)
        )
