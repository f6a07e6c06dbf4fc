"""The multinomial family's one-against-the-rest log-odds of many labels at once, over sparse
per-label sums (what :class:`nbayes.MultiLabel` scores a text multinomial model by).

Label l's binary model "l against the rest" scores a document x by its log-odds
``x . (log theta_l - log theta_not_l) + log prior ratio``: linear in the document's counts, with
theta the multinomial estimate theta_t = (n_t + alpha) / (n + alpha V) (notes 004 eq. 4) of the
label's documents and of the others (all documents minus the label's). Where label l's
documents never hold term t, ``log(alpha) - log(total_t + alpha)`` is the same for every label,
so logarithms are taken only on the nonzero entries of the sums.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from .._scipy import sparse as sp

__all__ = ["Table", "log_odds_table"]


@dataclass
class Table:
    """Every label's log-odds as a linear function of a document's features x (V,):
    ``x @ (base - alive * c[l] + D[:, l]) + b[l]``, D sparse (nonzero where label l's documents
    hold the term)."""

    base: np.ndarray
    D: sp.csr_matrix
    c: np.ndarray
    b: np.ndarray
    alive: np.ndarray

    def scores(self, F: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
        """(log-odds (n, L), each row's number of known terms (n, 1)) of the rows of ``F``."""
        known = np.asarray(F @ self.alive.astype(np.float64)).reshape(-1, 1)
        s = (F @ self.D).toarray()
        s += np.asarray(F @ self.base).reshape(-1, 1) - known * self.c + self.b
        return s, known

    def dense(self) -> np.ndarray:
        """The weights W (V, L) (zero rows for terms outside the vocabulary)."""
        W = self.base[:, None] - self.alive[:, None] * self.c[None, :]
        W += self.D.toarray()
        result: np.ndarray = W
        return result


def log_odds_table(pos: sp.spmatrix, total: np.ndarray, cc_pos: np.ndarray, cc_all: float, alive: np.ndarray,
                   alpha: float, fit_prior: bool) -> Table:
    """Label l's log-odds of a document, as a :class:`Table`.

    ``pos`` (L, V): each label's summed features (term or document counts), ``total`` (V,): all
    documents', ``cc_pos`` / ``cc_all``: the labels' / all documents' weights, ``alive``: the
    terms of the vocabulary (a document frequency > 0); other terms weigh 0. As the text model
    estimates: theta = (count + alpha) / (sum of counts + alpha V), a class without weight is
    gone (log prior -inf), the negative class is all documents minus the label's. Where label
    l's documents never hold term t, its weight ``log(alpha) - log(total_t + alpha)`` is the same
    for every label (``base``): logarithms only on the nonzero entries of ``pos``."""
    L, V = pos.shape
    Va = int(alive.sum())
    tot = np.where(alive, total, 0.0)
    base = np.zeros(V)
    base[alive] = np.log(alpha) - np.log(tot[alive] + alpha)
    P = sp.coo_matrix(pos)
    keep = (P.data != 0) & alive[P.col]
    r, t, p = P.row[keep], P.col[keep], P.data[keep]
    pos_sum = np.bincount(r, weights=p, minlength=L)
    c = np.zeros(L)
    if Va:
        c = np.log(pos_sum + alpha * Va) - np.log(np.maximum(tot.sum() - pos_sum, 0.0) + alpha * Va)
    d = np.log(p + alpha) - np.log(np.maximum(tot[t] - p, 0.0) + alpha) - base[t]
    D = sp.csr_matrix((d, (t, r)), shape=(V, L))
    cc_neg = np.maximum(cc_all - cc_pos, 0.0)
    with np.errstate(divide="ignore"):
        lp = np.log(cc_pos) if fit_prior else np.zeros(L)
        ln = np.log(cc_neg) if fit_prior else np.zeros(L)
    lp = np.where(cc_pos > 0, lp, -np.inf)
    ln = np.where(cc_neg > 0, ln, -np.inf)
    b = np.where(np.isneginf(lp) & np.isneginf(ln), 0.0, lp - np.where(np.isneginf(lp), 0.0, ln))
    return Table(base, D, c, b, alive)
