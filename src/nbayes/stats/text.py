"""Per-class term statistics of a text corpus, over a vocabulary that grows.

The per-class counts are held in proportion to the (class, term) pairs seen: a SciPy CSR matrix
classes x terms (vocabulary mode; most n-grams occur in one class), or a dense array (hashing
mode, bounded by the buckets; and the statistics other parts build densely: cross-validation
folds, EM's expected counts). Every operation takes either and mixes them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from .._scipy import sparse as sp

from .._validation import show
from ..errors import StatisticsError, UnlearnError
from .checks import REL_TOL, check_removable, check_removed
from .counts import forget_empty_classes
from .text_checks import check_text
from .exact import add_exact, combine, read_tail, tail_arrays, tail_embed
from .terms import CodeTerms, _positions, as_strings
from .text_arrays import compact, csr, csr_from, decode_terms, drop_zeros, encode_terms, union_pattern, values_at
from .terms import union_terms as union_terms  # (re-exported: imported from here)

#: per-class counts: classes x terms, dense or CSR
Counts = Any


@dataclass
class TextStats:
    """terms: the vocabulary, sorted. For class c and term t: term_count[c, t] is the weighted
    number of occurrences, doc_count[c, t] the weighted number of documents containing t
    (classes x terms, a CSR matrix holding only the pairs seen, or a dense array).
    Corpus-level (unweighted, as a vectoriser sees them): df[t] documents containing t,
    tf[t] occurrences, n_docs documents. class_count[c]: weighted documents of class c.

    ``terms`` may be given as a :class:`~nbayes.stats.terms.CodeTerms` (a vocabulary counting
    learned, as code points): reading ``terms`` then makes its Python strings, once; what
    needs no strings (estimation, a term table's predictions, a model file) reads
    :attr:`vocab` and :attr:`n_terms` instead.

    Everything a vectoriser's ``min_df`` / ``max_df`` / ``max_features`` needs is kept, so those
    apply at estimation and ``merge``, ``partial_fit`` and ``unlearn`` stay exact.

    ``weighted`` (tf-idf models): (kept terms, idf, per-class sums of the documents' tf-idf
    vectors over the kept terms). With an idf learned from these documents the sums are not
    additive; with a frozen idf (every term kept, the idf given) they are, and the arithmetic
    below adds and subtracts them like the counts (it refuses sums made with different idfs).
    """

    terms: np.ndarray
    class_count: np.ndarray
    term_count: Counts
    doc_count: Counts
    df: np.ndarray
    tf: np.ndarray
    n_docs: float
    #: the lookup table of exactly these terms, when counting built one (never saved)
    table: Any = field(default=None, repr=False, compare=False)
    #: tf-idf models: (keep, idf, sums), see above
    weighted: tuple[np.ndarray, np.ndarray, np.ndarray] | None = field(default=None, repr=False, compare=False)
    #: per field (class_count, term_count, doc_count), the tail of its exact value where float64
    #: rounded it (weighted documents added and removed; stats.exact): empty for whole counts
    exact: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    FIELDS = ("class_count", "term_count", "doc_count")

    @property
    def vocab(self) -> Any:
        """The vocabulary as given: an array (terms or buckets), or a CodeTerms not yet made strings."""
        return self.__dict__["terms"]

    @property
    def n_terms(self) -> int:
        """The number of terms (buckets), without making strings."""
        return len(self.__dict__["terms"])

    @property
    def has_vocabulary(self) -> bool:
        """Whether the terms are words (vocabulary mode), not hashing buckets."""
        v = self.__dict__["terms"]
        return isinstance(v, CodeTerms) or v.dtype == object

    @property
    def sparse(self) -> bool:
        """Whether the per-class counts hold only the pairs seen (CSR)."""
        return bool(sp.issparse(self.term_count))

    @property
    def nbytes(self) -> int:
        """Bytes of the numeric arrays (the terms themselves aside)."""
        return sum(_nbytes(a) for a in (self.class_count, self.term_count, self.doc_count, self.df, self.tf))

    def embed(self, pos: np.ndarray, n_classes: int) -> "TextStats":
        """These statistics inside a class set of ``n_classes``; class k goes to row ``pos[k]``."""
        def grow(a: Counts) -> Counts:
            if sp.issparse(a):
                m = a.tocoo()
                return csr_from(m.data, pos[m.row], m.col, (n_classes, a.shape[1]))
            out = np.zeros((n_classes,) + a.shape[1:])
            out[pos] = a
            return out

        weighted = None
        if self.weighted is not None:
            keep, idf, sums = self.weighted
            weighted = (keep, idf, grow(sums))
        return TextStats(
            self.terms, grow(self.class_count), grow(self.term_count), grow(self.doc_count),
            self.df, self.tf, self.n_docs, self.table, weighted, tail_embed(self.exact, pos, n_classes),
        )

    def on(self, terms: np.ndarray) -> "TextStats":
        """The same statistics laid over a larger sorted vocabulary ``terms`` (holding every
        term of these): zero counts for the terms they lack."""
        if len(terms) == self.n_terms:
            return self
        pos = _positions(terms, self.terms)

        def spread(a: Counts) -> Counts:
            if sp.issparse(a):
                a = a.tocsr()
                return sp.csr_matrix((a.data, pos[a.indices], a.indptr), shape=(a.shape[0], len(terms)))
            out = np.zeros(a.shape[:-1] + (len(terms),))
            out[..., pos] = a
            return out

        tails = {k: (v if k == "class_count" else [spread(t) for t in v]) for k, v in self.exact.items()}
        return TextStats(
            terms, self.class_count, spread(self.term_count), spread(self.doc_count),
            spread(self.df), spread(self.tf), self.n_docs, exact=tails,
        )

    def __add__(self, other: "TextStats") -> "TextStats":
        terms = union_terms(self.terms, other.terms)
        a, b = self.on(terms), other.on(terms)
        weighted, sums_tail = _weighted(self, other, terms, +1, None)
        if not (a.exact or b.exact) and _whole(a) and _whole(b):  # whole counts add exactly in float64
            values: dict[str, Any] = {"class_count": a.class_count + b.class_count,
                                      "term_count": _plus(a.term_count, b.term_count),
                                      "doc_count": _plus(a.doc_count, b.doc_count)}
            tails: dict[str, Any] = {}
        else:
            values, tails = combine(a, b, self.FIELDS, +1)  # exact sums (stats.exact)
            values = {k: _form(v, a.term_count, b.term_count) if k != "class_count" else v for k, v in values.items()}
            tails = {k: [_form(t, a.term_count, b.term_count) for t in v] if k != "class_count" else v
                     for k, v in tails.items()}
        return TextStats(
            terms, values["class_count"], values["term_count"], values["doc_count"],
            a.df + b.df, a.tf + b.tf, a.n_docs + b.n_docs, _table_of(terms, self, other), weighted,
            tails | sums_tail,
        )

    def subtract(self, other: "TextStats", classes: np.ndarray) -> "TextStats":
        """The statistics of ``self``'s documents without ``other``'s, vocabularies aligned
        (:class:`~nbayes.errors.UnlearnError` when ``other`` removes more than ``self`` holds)."""
        terms = union_terms(self.terms, other.terms)
        a, b = self.on(terms), other.on(terms)
        if np.any(b.df > a.df) or b.n_docs > a.n_docs:
            over = np.flatnonzero(np.asarray(b.df) > np.asarray(a.df))
            where = f" ({_term_of(terms)(int(over[0]))})" if len(over) else ""
            raise UnlearnError(f"unlearn would remove documents this model never learned{where}; "
                               "the model is unchanged")
        weighted, sums_tail = _weighted(self, other, terms, -1, classes)
        values, tails = combine(a, b, self.FIELDS, -1)  # exact differences (stats.exact)
        check_removed(values["class_count"], a.class_count, b.class_count, classes, "documents", tails.get("class_count"))
        check_removed(values["term_count"], a.term_count, b.term_count, classes, "term counts", tails.get("term_count"),
                      _term_of(terms))
        check_removed(values["doc_count"], a.doc_count, b.doc_count, classes, "documents holding a term",
                      tails.get("doc_count"), _term_of(terms))
        values = {k: _form(v, a.term_count, b.term_count) if k != "class_count" else v for k, v in values.items()}
        tails = {k: [_form(t, a.term_count, b.term_count) for t in v] if k != "class_count" else v
                 for k, v in tails.items()}
        # terms no document holds any more stay (df = 0), laid out as before: cross-validation
        # folds subtract over one shared vocabulary; a model drops them (without_absent_terms)
        out = TextStats(
            terms, values["class_count"], values["term_count"], values["doc_count"], a.df - b.df, a.tf - b.tf,
            a.n_docs - b.n_docs, _table_of(terms, self, other), weighted, tails | sums_tail,
        )
        forget_empty_classes(out, self.FIELDS)
        return out

    def merge(self, other: "TextStats") -> "TextStats":
        """The statistics of both corpora (same class layout; vocabularies united)."""
        return self + other

    def check(self, n_classes: int | None = None, n_features: int | None = None) -> None:
        """Raise StatisticsError unless a corpus could have produced these statistics: every
        array's shape against the classes and terms, counts finite and non-negative, and the
        invariants between them (:func:`nbayes.stats.text_checks.check_text`)."""
        check_text(self, n_classes)

    def without_absent_terms(self) -> "TextStats":
        """These statistics without the vocabulary terms no document holds (df = 0, so no count
        in any class): what statistics never given the documents that held them would be
        (CORRECTNESS.md: a forgotten term is gone). Hashing buckets (integer terms) and a frozen
        idf's terms stay: those vocabularies are fixed."""
        alive = self.df > 0
        if not self.has_vocabulary or self.weighted is not None or alive.all():
            return self
        tails = {k: (v if k == "class_count" else [t[:, alive] for t in v]) for k, v in self.exact.items()}
        return TextStats(
            self.terms[alive], self.class_count, self.term_count[:, alive], self.doc_count[:, alive],
            self.df[alive], self.tf[alive], self.n_docs, exact=tails,
        )

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The file's arrays (format 2): the pairs seen once, as CSR over classes
        (``stats/pairs/indptr``, ``stats/pairs/terms``) with both counts on them; counts, df
        and tf in the smallest unsigned integer type that holds them exactly when they are
        whole numbers; the vocabulary as one UTF-8 buffer with each term's length in code points."""
        extra = {}
        if self.weighted is not None:  # a tf-idf model's (kept terms, idf, sums)
            keep, idf, sums = self.weighted
            extra = {"stats/tfidf_keep": keep, "stats/idf": idf, "stats/tfidf_sums": sums}
        tc, dc = csr(self.term_count), csr(self.doc_count)
        pattern = union_pattern(tc, dc)
        tcv, dcv = values_at(tc, pattern), values_at(dc, pattern)
        V = self.n_terms
        out: dict[str, np.ndarray] = {}
        if isinstance(self.vocab, CodeTerms):  # written from the code points: no string per term
            out["stats/terms_utf8"] = self.vocab.utf8()
            out["stats/terms_len"] = compact(self.vocab.length.astype(float))
        elif self.terms.dtype.kind in "iu":
            if np.array_equal(self.terms, np.arange(V)):  # hashing: the buckets 0..n-1
                out["stats/buckets"] = np.array(V, dtype=np.int64)
            else:
                out["stats/terms"] = self.terms
        else:
            out.update(encode_terms(self.terms))
        for name in ("term_count", "doc_count"):  # tails on the pairs, as the counts
            if self.exact.get(name):
                out[f"stats/exact/pairs/{name}"] = np.stack([values_at(csr(t), pattern) for t in self.exact[name]])
        out.update(tail_arrays({k: v for k, v in self.exact.items() if k in ("class_count", "tfidf_sums")}))
        return extra | out | {
            "stats/class_count": self.class_count,
            "stats/pairs/indptr": pattern.indptr.astype(np.int64),
            "stats/pairs/terms": pattern.indices.astype(np.uint32 if V < 2**32 else np.int64),
            "stats/pairs/term_count": compact(tcv),
            "stats/pairs/doc_count": compact(dcv),
            "stats/df": compact(np.asarray(self.df, dtype=float)),
            "stats/tf": compact(np.asarray(self.tf, dtype=float)),
            "stats/n_docs": np.array(self.n_docs),
        }

    def numeric_arrays(self) -> dict[str, np.ndarray]:
        """The arrays of numbers, named as in :meth:`to_arrays` (per-class counts held as pairs
        give their stored values), without encoding the vocabulary or aligning the two counts'
        pairs: what the finiteness check before estimation reads."""
        def values(name: str, a: Counts) -> tuple[str, np.ndarray]:
            return (f"stats/pairs/{name}", a.data) if sp.issparse(a) else (f"stats/{name}", np.asarray(a))

        return dict([values("term_count", self.term_count), values("doc_count", self.doc_count)]) | {
            "stats/class_count": self.class_count,
            "stats/df": np.asarray(self.df, dtype=float),
            "stats/tf": np.asarray(self.tf, dtype=float),
        }

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> "TextStats":
        """Statistics from a file's arrays: format 2 (pairs) or format 1 (dense classes x terms)."""
        terms: Any
        if "stats/buckets" in arrays:
            terms = np.arange(int(arrays["stats/buckets"]), dtype=np.int64)
        elif "stats/terms_utf8" in arrays:
            terms = decode_terms(arrays)
        else:
            raw = arrays["stats/terms"]
            if raw.dtype.kind in "iu":  # hashing mode: bucket numbers
                terms = raw
            else:
                terms = np.empty(len(raw), dtype=object)
                terms[:] = [str(t) for t in raw.tolist()]
        cc = np.asarray(arrays["stats/class_count"], dtype=float)
        hashing = not isinstance(terms, CodeTerms) and terms.dtype.kind in "iu"
        if "stats/term_count" in arrays:  # format 1: dense classes x terms
            tc = np.asarray(arrays["stats/term_count"], dtype=float)
            dc = np.asarray(arrays["stats/doc_count"], dtype=float)
            if not hashing and tc.ndim == 2 and dc.shape == tc.shape:
                tc, dc = drop_zeros(sp.csr_matrix(tc)), drop_zeros(sp.csr_matrix(dc))
        else:
            indptr = np.asarray(arrays["stats/pairs/indptr"], dtype=np.int64)
            idx = np.asarray(arrays["stats/pairs/terms"], dtype=np.int64)
            tcv = np.asarray(arrays["stats/pairs/term_count"], dtype=float)
            dcv = np.asarray(arrays["stats/pairs/doc_count"], dtype=float)
            shape = (len(cc), len(terms))
            _check_pairs_layout(indptr, idx, tcv, dcv, cc, len(terms))
            tc = drop_zeros(sp.csr_matrix((tcv, idx, indptr), shape=shape))
            dc = drop_zeros(sp.csr_matrix((dcv, idx.copy(), indptr.copy()), shape=shape))
            if not (tc.has_canonical_format and dc.has_canonical_format):
                raise StatisticsError("statistics 'pairs/terms': a class's terms repeat or are not increasing; "
                                      "expected each (class, term) pair once, in term order")
            if hashing:
                tc, dc = tc.toarray(), dc.toarray()
        stats = cls(
            terms, cc, tc, dc, np.asarray(arrays["stats/df"], dtype=float),
            np.asarray(arrays["stats/tf"], dtype=float), float(arrays["stats/n_docs"]),
        )
        tail = read_tail(arrays, "class_count", cc.shape)
        if tail:
            stats.exact["class_count"] = tail
        for name, m in (("term_count", tc), ("doc_count", dc)):
            key = f"stats/exact/pairs/{name}"
            if key not in arrays:
                continue
            if "stats/pairs/indptr" not in arrays:
                raise StatisticsError(f"statistics {key!r}: tails need the (class, term) pairs")
            t = read_tail(arrays, f"pairs/{name}", (len(idx),))
            shape = (len(cc), len(terms))
            mats = [drop_zeros(sp.csr_matrix((v, idx.copy(), indptr.copy()), shape=shape)) for v in t]
            stats.exact[name] = [x.toarray() for x in mats] if hashing else mats
        if "stats/tfidf_keep" in arrays:
            stats.weighted = (arrays["stats/tfidf_keep"], arrays["stats/idf"], arrays["stats/tfidf_sums"])
            tail = read_tail(arrays, "tfidf_sums", np.shape(arrays["stats/tfidf_sums"]))
            if tail:
                stats.exact["tfidf_sums"] = tail
        return stats


def _get_terms(self: TextStats) -> np.ndarray:
    return as_strings(self.__dict__["terms"])


def _set_terms(self: TextStats, terms: Any) -> None:
    self.__dict__["terms"] = terms


# ``terms`` read through a property (strings made on first read), installed after the dataclass
# is made (a property in the class body would be taken for the field's default value); the
# value lives in the instance's __dict__ under its own name, so copies and replace() keep it
setattr(TextStats, "terms", property(_get_terms, _set_terms, doc="The vocabulary, sorted (Python strings, or bucket numbers)."))


# ----------------------------------------------------------------------------- counts, dense or CSR
def _nbytes(a: Any) -> int:
    if sp.issparse(a):
        return int(a.data.nbytes + a.indices.nbytes + a.indptr.nbytes)
    return int(np.asarray(a).nbytes)


def _plus(a: Counts, b: Counts) -> Counts:
    if not sp.issparse(a) and not sp.issparse(b):
        return a + b
    return csr(csr(a) + csr(b))


def _whole(s: "TextStats") -> bool:
    """Whether every per-class count is a whole number below 2**53 (sums of such are exact)."""
    for a in (s.class_count, s.term_count, s.doc_count):
        v = np.asarray(a.data if sp.issparse(a) else a)
        if v.size and not (np.all(v == np.floor(v)) and np.max(np.abs(v)) < 2.0**52):
            return False
    return True


def _form(m: Counts, a: Counts, b: Counts) -> Counts:
    """A result dense when both operands were (hashing buckets, folds), CSR otherwise."""
    if sp.issparse(a) or sp.issparse(b):
        return m if sp.issparse(m) else csr(m)
    return m.toarray() if sp.issparse(m) else m


def _weighted(a: "TextStats", b: "TextStats", terms: np.ndarray, sign: int,
              classes: np.ndarray | None) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray] | None, dict[str, Any]]:
    """The tf-idf sums of ``a + sign * b`` (one frozen idf), exactly: ((keep, idf, sums), their
    tail as an ``exact`` entry); an UnlearnError (``classes``) when a difference goes below 0."""
    frozen = _frozen_pair(a, b, terms)
    if frozen is None:
        return None, {}
    sums, tail = add_exact(frozen[2], a.exact.get("tfidf_sums"), frozen[3], b.exact.get("tfidf_sums"), sign)
    if classes is not None:
        check_removed(sums, frozen[2], frozen[3], classes, "tf-idf weight", tail)
    return (frozen[0], frozen[1], sums), ({"tfidf_sums": tail} if tail else {})


def _check_removable(have: Counts, remove: Counts, classes: np.ndarray, what: str) -> None:
    """:func:`check_removable` for counts dense or CSR (only the pairs removed are compared)."""
    if not sp.issparse(have) and not sp.issparse(remove):
        check_removable(have, remove, classes, what)
        return
    h, r = csr(have), csr(remove)
    hv = values_at(h, r)
    excess = r.data > hv * (1 + REL_TOL) + REL_TOL
    if excess.any():
        k = int(np.searchsorted(r.indptr, int(np.flatnonzero(excess)[0]), side="right") - 1)
        check_removable(h[k].toarray(), r[k].toarray(), classes[k : k + 1], what)


def _check_pairs_layout(indptr: np.ndarray, idx: np.ndarray, tcv: np.ndarray, dcv: np.ndarray, cc: np.ndarray,
                        V: int) -> None:
    """A file's (class, term) pairs fit its classes (``class_count``) and terms."""
    what = None
    if indptr.ndim != 1 or len(indptr) != len(cc) + 1:
        what = (f"'pairs/indptr': expected {len(cc) + 1} offsets (one more than the {len(cc)} classes of "
                f"'class_count'), got shape {indptr.shape}")
    elif indptr[0] != 0 or np.any(np.diff(indptr) < 0) or indptr[-1] != len(idx):
        what = f"'pairs/indptr': expected offsets rising from 0 to the {len(idx)} pairs of 'pairs/terms'"
    elif len(tcv) != len(idx) or len(dcv) != len(idx):
        what = (f"'pairs/term_count' and 'pairs/doc_count': expected one count per pair ({len(idx)}), got "
                f"{len(tcv)} and {len(dcv)}")
    elif len(idx) and (idx.min() < 0 or idx.max() >= V):
        what = f"'pairs/terms': expected term numbers in [0, {V}) (the vocabulary's), got {int(idx.min())}..{int(idx.max())}"
    if what is not None:
        raise StatisticsError(f"statistics {what}: the (class, term) pairs do not fit the classes and terms")


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
        if side.table is not None and side.n_terms == len(terms):
            return side.table
    return None


def _term_of(terms: np.ndarray) -> Callable[[int], str]:
    """Names column t of aligned text statistics in a refusal: the word (``the term 'prize'``),
    or with hashing its bucket, which many words share."""
    return lambda t: f"the term {show(terms[t])}" if terms.dtype == object else f"hash bucket {t}"
