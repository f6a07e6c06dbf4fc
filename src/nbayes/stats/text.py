"""Per-class term statistics of a text corpus, over a vocabulary that grows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import StatisticsError, UnlearnError
from .checks import check_array, check_at_most, check_class_count, check_removable, zero_small


@dataclass
class TextStats:
    """terms: the vocabulary, sorted. For class c and term t: term_count[c, t] is the weighted
    number of occurrences, doc_count[c, t] the weighted number of documents containing t.
    Corpus-level (unweighted, as a vectoriser sees them): df[t] documents containing t,
    tf[t] occurrences, n_docs documents. class_count[c]: weighted documents of class c.

    Everything a vectoriser's ``min_df`` / ``max_df`` / ``max_features`` needs is kept, so those
    apply at estimation and ``merge``, ``partial_fit`` and ``unlearn`` stay exact.

    ``weighted`` (tf-idf models): (kept terms, idf, per-class sums of the documents' tf-idf
    vectors over the kept terms). With an idf learned from these documents the sums are not
    additive; with a frozen idf (every term kept, the idf given) they are, and the arithmetic
    below adds and subtracts them like the counts (it refuses sums made with different idfs).
    """

    terms: np.ndarray
    class_count: np.ndarray
    term_count: np.ndarray
    doc_count: np.ndarray
    df: np.ndarray
    tf: np.ndarray
    n_docs: float
    #: the lookup table of exactly these terms, when counting built one (never saved)
    table: Any = field(default=None, repr=False, compare=False)
    #: tf-idf models: (keep, idf, sums), see above
    weighted: tuple[np.ndarray, np.ndarray, np.ndarray] | None = field(default=None, repr=False, compare=False)

    def embed(self, pos: np.ndarray, n_classes: int) -> "TextStats":
        """These statistics inside a class set of ``n_classes``; class k goes to row ``pos[k]``."""
        def grow(a: np.ndarray) -> np.ndarray:
            out = np.zeros((n_classes,) + a.shape[1:])
            out[pos] = a
            return out

        weighted = None
        if self.weighted is not None:
            keep, idf, sums = self.weighted
            weighted = (keep, idf, grow(sums))
        return TextStats(
            self.terms, grow(self.class_count), grow(self.term_count), grow(self.doc_count),
            self.df, self.tf, self.n_docs, self.table, weighted,
        )

    def _on(self, terms: np.ndarray) -> "TextStats":
        """The same statistics laid over a larger sorted vocabulary."""
        if len(terms) == len(self.terms):
            return self
        pos = _positions(terms, self.terms)

        def spread(a: np.ndarray) -> np.ndarray:
            out = np.zeros(a.shape[:-1] + (len(terms),))
            out[..., pos] = a
            return out

        return TextStats(
            terms, self.class_count, spread(self.term_count), spread(self.doc_count),
            spread(self.df), spread(self.tf), self.n_docs,
        )

    def __add__(self, other: "TextStats") -> "TextStats":
        terms = union_terms(self.terms, other.terms)
        a, b = self._on(terms), other._on(terms)
        frozen = _frozen_pair(self, other, terms)
        weighted = None if frozen is None else (frozen[0], frozen[1], frozen[2] + frozen[3])
        return TextStats(
            terms, a.class_count + b.class_count, a.term_count + b.term_count,
            a.doc_count + b.doc_count, a.df + b.df, a.tf + b.tf, a.n_docs + b.n_docs,
            _table_of(terms, self, other), weighted,
        )

    def subtract(self, other: "TextStats", classes: np.ndarray) -> "TextStats":
        """The statistics of ``self``'s documents without ``other``'s, vocabularies aligned
        (:class:`~nbayes.errors.UnlearnError` when ``other`` removes more than ``self`` holds)."""
        terms = union_terms(self.terms, other.terms)
        a, b = self._on(terms), other._on(terms)
        check_removable(a.class_count, b.class_count, classes, "documents")
        check_removable(a.term_count, b.term_count, classes, "term counts")
        if np.any(b.df > a.df) or b.n_docs > a.n_docs:
            raise UnlearnError("unlearn would remove documents this model never learned; the model is unchanged")

        def sub(x: np.ndarray, y: np.ndarray) -> np.ndarray:
            out: np.ndarray = np.maximum(zero_small(x - y, x), 0.0)
            return out

        frozen = _frozen_pair(self, other, terms)
        weighted = None if frozen is None else (frozen[0], frozen[1], sub(frozen[2], frozen[3]))
        # terms no document holds any more stay (df = 0), laid out as before: cross-validation
        # folds subtract over one shared vocabulary; a model drops them (without_absent_terms)
        return TextStats(
            terms, sub(a.class_count, b.class_count), sub(a.term_count, b.term_count),
            sub(a.doc_count, b.doc_count), a.df - b.df, a.tf - b.tf, a.n_docs - b.n_docs,
            _table_of(terms, self, other), weighted,
        )

    def merge(self, other: "TextStats") -> "TextStats":
        """The statistics of both corpora (same class layout; vocabularies united)."""
        return self + other

    def check(self, n_classes: int | None = None, n_features: int | None = None) -> None:
        """Raise StatisticsError unless a corpus could have produced these statistics: counts
        finite and non-negative, one row per class and one column per term, a class's documents
        containing a term within its documents, corpus document frequencies within the number
        of documents and within the occurrences."""
        cc = check_class_count(self.class_count, n_classes)
        V = len(self.terms)
        tc = check_array("term_count", self.term_count)
        if tc.ndim != 2 or tc.shape[0] != len(cc) or tc.shape[1] != V:
            raise StatisticsError(f"statistics 'term_count': expected shape {(len(cc), V)}, got {tc.shape}")
        dc = check_array("doc_count", self.doc_count, tc.shape)
        check_at_most("doc_count", dc, "its class's weight", cc[:, None])
        df = check_array("df", self.df, (V,))
        tf = check_array("tf", self.tf, (V,))
        n_docs = float(check_array("n_docs", np.asarray(self.n_docs, dtype=float)))
        check_at_most("df", df, "n_docs", np.asarray(n_docs))
        check_at_most("df", df, "tf", tf)
        if self.terms.dtype.kind == "O" and len(set(self.terms.tolist())) != V:
            raise StatisticsError("statistics 'terms': the vocabulary repeats a term")

    def without_absent_terms(self) -> "TextStats":
        """These statistics without the vocabulary terms no document holds (df = 0, so no count
        in any class): what statistics never given the documents that held them would be
        (CORRECTNESS.md: a forgotten term is gone). Hashing buckets (integer terms) and a frozen
        idf's terms stay: those vocabularies are fixed."""
        alive = self.df > 0
        if self.terms.dtype != object or self.weighted is not None or alive.all():
            return self
        return TextStats(
            self.terms[alive], self.class_count, self.term_count[:, alive], self.doc_count[:, alive],
            self.df[alive], self.tf[alive], self.n_docs,
        )

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The named arrays of a model file (the vocabulary, the per-class counts, the corpus counts and, for
        tf-idf, the weighted sums)."""
        extra = {}
        if self.weighted is not None:  # a tf-idf model's (kept terms, idf, sums)
            keep, idf, sums = self.weighted
            extra = {"stats/tfidf_keep": keep, "stats/idf": idf, "stats/tfidf_sums": sums}
        return extra | {
            "stats/terms": self.terms,
            "stats/class_count": self.class_count,
            "stats/term_count": self.term_count,
            "stats/doc_count": self.doc_count,
            "stats/df": self.df,
            "stats/tf": self.tf,
            "stats/n_docs": np.array(self.n_docs),
        }

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> "TextStats":
        """The statistics read back from ``to_arrays``'s arrays."""
        raw = arrays["stats/terms"]
        if raw.dtype.kind in "iu":  # hashing mode: bucket numbers
            terms = raw
        else:
            terms = np.empty(len(raw), dtype=object)
            terms[:] = [str(t) for t in raw.tolist()]
        stats = cls(
            terms,
            arrays["stats/class_count"], arrays["stats/term_count"], arrays["stats/doc_count"],
            arrays["stats/df"], arrays["stats/tf"], float(arrays["stats/n_docs"]),
        )
        if "stats/tfidf_keep" in arrays:
            stats.weighted = (arrays["stats/tfidf_keep"], arrays["stats/idf"], arrays["stats/tfidf_sums"])
        return stats


def _frozen_pair(
    a: "TextStats", b: "TextStats", terms: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """(keep, idf, a's sums, b's sums) when both statistics hold tf-idf sums made with one
    frozen idf over the same terms (so the sums add); None when neither holds sums."""
    if a.weighted is None and b.weighted is None:
        return None
    if (a.weighted is None or b.weighted is None or len(terms) != len(a.terms) or len(terms) != len(b.terms)
            or not a.weighted[0].all() or not np.array_equal(a.weighted[0], b.weighted[0])
            or not np.array_equal(a.weighted[1], b.weighted[1])):
        raise ValueError("tf-idf sums add up only under one frozen idf over the same terms")
    return a.weighted[0], a.weighted[1], a.weighted[2], b.weighted[2]


def _table_of(terms: np.ndarray, a: "TextStats", b: "TextStats") -> Any:
    """A lookup table built for exactly ``terms`` by either side, if any (ids = sorted order)."""
    for side in (a, b):
        if side.table is not None and len(side.terms) == len(terms):
            return side.table
    return None


def _positions(terms: np.ndarray, sub: np.ndarray) -> np.ndarray:
    """Where the sorted distinct ``sub`` lies in its sorted superset ``terms``. A few new terms
    in a large vocabulary (a learning service's update): one binary search per new term (past
    the s-th new one, terms[i] == sub[i - s] holds exactly up to the next), not a search per
    term of ``sub``."""
    n, k = len(sub), len(terms) - len(sub)
    if terms.dtype != object or k * 64 > n:
        return np.searchsorted(terms, sub)
    new, lo = np.empty(k, dtype=np.int64), 0
    for s in range(k):
        hi = n + s
        while lo < hi:
            mid = (lo + hi) // 2
            if terms[mid] == sub[mid - s]:
                lo = mid + 1
            else:
                hi = mid
        new[s], lo = lo, lo + 1
    keep = np.ones(len(terms), dtype=bool)
    keep[new] = False
    return np.flatnonzero(keep)


def union_terms(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Sorted union of two sorted term arrays (object arrays of str)."""
    if a is b:
        return a
    if len(a) == len(b) and np.array_equal(a, b):
        return a
    big, small = (a, b) if len(a) >= len(b) else (b, a)
    if big.dtype == object and small.dtype == object and 16 * len(small) <= len(big):
        # a few terms into a large vocabulary (a learning service's updates): binary search,
        # not a set and a sort of the whole vocabulary
        at = np.searchsorted(big, small)
        known = np.zeros(len(small), dtype=bool)
        inside = at < len(big)
        known[inside] = big[at[inside]] == small[inside]
        return big if known.all() else np.insert(big, at[~known], small[~known])
    merged = sorted(set(a.tolist()) | set(b.tolist()))
    out = np.empty(len(merged), dtype=object)
    out[:] = merged
    return out
