"""Text multinomial Naive Bayes per label as one linear table.

Label l's binary model "l against the rest" scores a document x by its log-odds
``x . (log theta_l - log theta_not_l) + log prior ratio``: linear in the document's counts. So
all labels are scored at once by one sparse product ``X @ W`` with W of shape (terms, labels):

- the training documents are tokenised once into a document-term matrix (one vocabulary pass,
  one lookup pass);
- the per-label sums are one sparse product ``Y.T @ X`` (all rows: the column sums);
- a cross-validation fold's model is the total minus the fold's sums (no recount, no model
  built per fold), and its held-out rows are scored by one product for all labels;
- W is the multinomial family's own estimate of the sparse per-label sums
  (:func:`nbayes.naive_bayes.one_vs_rest.log_odds_table`: logarithms only on their nonzero
  entries).

This is what ``TextClassifier(model="multinomial")`` estimates with its default vocabulary
settings (every term some training document holds, no tf-idf, no fixed class prior, alpha > 0);
``tests/multilabel`` checks the scores against the text models built per fold and per label.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
from .._scipy import sparse as sp

from ..naive_bayes.one_vs_rest import log_odds_table
from ..stats import TextStats
from ._stats import rows


def applies(est: Any) -> bool:
    """Whether ``est`` is a text model whose per-label log-odds this module computes exactly: one
    estimated from document-term sums (capability ``count_matrix``) class by class
    (``per_class``) by a count model linear in the counts (``counts``: multinomial, not
    Bernoulli's presence and absence), with the default vocabulary and no tf-idf."""
    caps: frozenset[str] = getattr(est, "capabilities", frozenset())
    return (
        {"count_matrix", "per_class"} <= caps and "counts" in est.count_model().capabilities and not est.tfidf
        and est.min_df == 1 and est.max_df == 1.0 and est.max_features is None and est.n_features is None
        and est.class_prior is None and isinstance(est.alpha, numbers.Real) and not isinstance(est.alpha, bool)
        and float(est.alpha) > 0
    )


@dataclass
class Corpus:
    """Training documents tokenised once: the vocabulary statistics (one class: all documents,
    with the term table) and the document-term matrix over that vocabulary."""

    stats: TextStats
    counts: sp.csr_matrix
    presence: sp.csr_matrix

    def features(self, binary: bool) -> sp.csr_matrix:
        return self.presence if binary else self.counts


def corpus(est: Any, docs: Any) -> Corpus:
    """Tokenise the prepared documents ``docs`` (``est.prepare_input``) once for the vocabulary
    and once for the document-term matrix."""
    n = int(docs.shape[0])
    stats = est.count_statistics(docs, np.zeros(n, dtype=np.intp), 1, None)
    tok = stats.table.tokens(docs.buf, docs.bounds, docs.table)
    tok = tok[tok[:, 1] >= 0]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(tok[:, 0], minlength=n), out=indptr[1:])
    X = sp.csr_matrix((np.ones(len(tok)), np.ascontiguousarray(tok[:, 1]), indptr), shape=(n, len(stats.terms)))
    X.sum_duplicates()  # also sorts each row's terms
    ones = X.copy()
    ones.data[:] = 1.0
    return Corpus(stats, X, ones)


def weighted_labels(Y: sp.csr_matrix, w: np.ndarray | None) -> sp.csr_matrix:
    """The (n, L) label indicator with each row times its weight."""
    Yf = sp.csr_matrix(Y, dtype=np.float64)
    return Yf if w is None else sp.csr_matrix(sp.diags(w) @ Yf)


def label_stats(c: Corpus, Y: sp.csr_matrix, w: np.ndarray | None) -> TextStats:
    """The L + 1 statistics rows (row l: the documents carrying label l, row L: all documents),
    by sparse products: equal to counting them (``_stats.count_labels``)."""
    n = c.counts.shape[0]
    Yw = weighted_labels(Y, w).T.tocsr()
    wv = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
    cc = np.r_[np.asarray(Yw.sum(axis=1)).ravel(), wv.sum()]
    tc = np.vstack([(Yw @ c.counts).toarray(), wv @ c.counts])
    dc = np.vstack([(Yw @ c.presence).toarray(), wv @ c.presence])
    s = c.stats
    return TextStats(s.terms, cc, tc, dc, s.df, s.tf, s.n_docs, s.table)


def fold_scores(est: Any, c: Corpus, Y: sp.csr_matrix, w: np.ndarray | None,
                splits: list[tuple[np.ndarray, np.ndarray]], tiled: bool, per_term: bool) -> np.ndarray:
    """Each row's per-label log-odds (per known term with ``per_term``) under the model of its
    fold's training rows: that fold's sums are the total minus the held-out fold's (or, for
    splits that do not tile the rows, the training rows' own)."""
    n, L = Y.shape
    F = c.features(est.counts_presence)
    Yw = weighted_labels(Y, w)
    wv = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
    V = F.shape[1]
    df = np.asarray(c.stats.df, dtype=np.float64)

    def sums(rows: np.ndarray) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray, float, np.ndarray]:
        Fr, Yr = F[rows], Yw[rows]
        return (sp.csr_matrix(Yr.T @ Fr), wv[rows] @ Fr, np.asarray(Yr.sum(axis=0)).ravel(), float(wv[rows].sum()),
                np.bincount(Fr.indices, minlength=V).astype(np.float64))

    total = sums(np.arange(n)) if tiled else None
    scores = np.zeros((n, L))
    alpha, fit_prior = float(est.alpha), bool(est.fit_prior)
    for train, test in splits:
        if total is not None:
            part = sums(test)
            pos = total[0] - part[0]
            tot, cc, cc_all = total[1] - part[1], total[2] - part[2], total[3] - part[3]
            alive = (df - part[4]) > 0
        else:
            pos, tot, cc, cc_all, dtrain = sums(train)
            alive = dtrain > 0
        s, known = log_odds_table(pos, tot, cc, cc_all, alive, alpha, fit_prior).scores(F[test])
        scores[test] = s / (1.0 + known) if per_term else s
    return scores


def predictor(est: Any, vocab: Any, S: Any, d: int, names: list[str] | None) -> "LinearText | None":
    """The linear predictor of ``est`` over the L + 1 statistics rows ``S`` when it applies
    (``vocab``: a fresh clone of ``est``, made the vocabulary of all documents)."""
    if not (applies(est) and isinstance(S, TextStats)):
        return None
    L = len(S.class_count) - 1
    vocab.set_statistics(rows(S, np.array([L])), np.array([0]), d, names)
    return LinearText.of(est, S, vocab)


class LinearText:
    """The predictor of a multi-label text multinomial model: the vocabulary (a one-class text
    model of all documents, whose ``transform`` gives the document-term matrix) and every
    label's log-odds as one table: new documents are tokenised once and scored by one product."""

    def __init__(self, vocab: Any, W: np.ndarray, b: np.ndarray) -> None:
        self.vocab, self.W, self.b = vocab, W, b

    @classmethod
    def of(cls, est: Any, S: TextStats, vocab: Any) -> "LinearText | None":
        """From the L + 1 statistics rows; None when no term or no document is left (the
        general path then answers by the prior)."""
        L = len(S.class_count) - 1
        alive = np.asarray(S.df) > 0
        cc = np.asarray(S.class_count, dtype=np.float64)
        if not alive.any() or cc[L] <= 0:
            return None
        fc = S.doc_count if est.counts_presence else S.term_count
        last = fc[L].toarray().ravel() if sp.issparse(fc) else fc[L]  # the all-documents row
        table = log_odds_table(sp.csr_matrix(fc[:L]), np.asarray(last, dtype=np.float64), cc[:L], float(cc[L]),
                               alive, float(est.alpha), bool(est.fit_prior))
        return cls(vocab, np.ascontiguousarray(table.dense()[alive]), table.b)

    def prepare_input(self, X: Any, fitting: bool) -> tuple[Any, list[str] | None]:
        prepared: tuple[Any, list[str] | None] = self.vocab.prepare_input(X, fitting)
        return prepared

    def scores(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """(log-odds (n, L), 1 + each document's number of known terms (n, 1))."""
        F = self.vocab.transform(X)
        return np.asarray(F @ self.W) + self.b, 1.0 + np.asarray(F.sum(axis=1), dtype=np.float64).reshape(-1, 1)
