"""Label shift: the class prior of unlabelled rows, from a model's posteriors (pure arrays).

Under label shift P(x | y) stays and P(y) moves from the training prior ``s`` to an unknown
``pi``. Bayes' rule then gives the posterior under ``pi`` from the model's posterior under ``s``:
``P_pi(c | x) = p_c(x) pi_c / s_c / sum_k p_k(x) pi_k / s_k`` (Saerens, Latinne & Decaestecker
2002, eq. 2.4). Three things are computed from the n x K matrix of log-posteriors:

- ``em``: the maximum-likelihood ``pi`` by Saerens et al.'s EM (their eqs. 2.9-2.10): the
  E-step re-weights each posterior by ``pi / s`` and renormalises, the M-step averages them. The
  log-likelihood of the unlabelled rows, ``sum_i log sum_c p_ic pi_c / s_c`` (+ a constant),
  never decreases.
- ``bbse``: black-box shift estimation (Lipton, Wang & Smola 2018): with ``M[i, j] = P(yhat = i |
  y = j)`` on held-out training rows and ``mu`` the fraction of unlabelled rows predicted ``i``,
  ``mu = M pi``; solved by least squares, clipped at 0, normalised.
- the likelihood-ratio test of "the prior did not change" (Saerens et al. 2002, section 2.4):
  ``2 (log L(pi_hat) - log L(s))`` is chi-squared with K - 1 degrees of freedom under the null.

The interval is the percentile bootstrap over the unlabelled rows (Efron & Tibshirani 1993): the
rows are resampled with replacement and the estimate recomputed, every resample at once.
:class:`PriorEstimate` is a mapping from label to probability, so ``model.with_prior(estimate)``
takes it as any prior.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Protocol

import numpy as np

from ._math import logsumexp
from ._scipy import gammaincc
from ._validation import check_choice, check_number
from .errors import DataError, InvalidParameterError

METHODS = ("em", "bbse")


class ShiftCalibrationLike(Protocol):
    """What a calibration for label shift gives (:class:`nbayes.shift.ShiftCalibration`)."""

    classes: np.ndarray
    source_prior: np.ndarray
    confusion: np.ndarray

    def apply(self, model: Any, log_proba: np.ndarray) -> np.ndarray:
        """The calibrated log-posteriors of ``model``'s ``log_proba`` (under ``source_prior``)."""
        ...


class PriorEstimate(Mapping[Any, float]):
    """An estimated class prior: a mapping from label to probability (``classes_`` order), so
    ``model.with_prior(estimate)`` adapts the model to it.

    Attributes: ``prior`` (array in ``classes`` order), ``classes``, ``lower`` / ``upper`` (the
    bootstrap interval at level ``confidence``), ``method``, ``source_prior`` (the prior the
    posteriors assumed), and the likelihood-ratio test of "no change": ``statistic``, ``df``,
    ``p_value``; ``n_samples`` rows, ``n_iter`` EM iterations, ``calibrated`` (posteriors
    recalibrated before estimation)."""

    def __init__(self, **fields: Any) -> None:
        self.prior: np.ndarray = fields["prior"]
        self.classes: np.ndarray = fields["classes"]
        self.lower: np.ndarray = fields["lower"]
        self.upper: np.ndarray = fields["upper"]
        self.confidence: float = fields["confidence"]
        self.method: str = fields["method"]
        self.source_prior: np.ndarray = fields["source_prior"]
        self.statistic: float = fields["statistic"]
        self.df: int = fields["df"]
        self.p_value: float = fields["p_value"]
        self.n_samples: int = fields["n_samples"]
        self.n_iter: int = fields["n_iter"]
        self.calibrated: bool = fields["calibrated"]

    def __getitem__(self, label: Any) -> float:
        hits = np.flatnonzero(self.classes == label)
        if len(hits) == 0:
            raise KeyError(label)
        return float(self.prior[hits[0]])

    def __iter__(self) -> Iterator[Any]:
        return iter(self.classes.tolist())

    def __len__(self) -> int:
        return len(self.classes)

    def __repr__(self) -> str:
        shown = ", ".join(f"{c!r}: {p:.3f}" for c, p in zip(self.classes.tolist()[:6], self.prior.tolist()[:6]))
        more = ", ..." if len(self.classes) > 6 else ""
        return (f"PriorEstimate({{{shown}{more}}}, method={self.method!r}, "
                f"p_value={self.p_value:.3g}, n_samples={self.n_samples})")

    @property
    def shifted(self) -> bool:
        """True when the test rejects "no change" at level 1 - confidence."""
        return bool(self.p_value < 1.0 - self.confidence)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values (the CLI's ``--json`` and the service)."""
        labels = self.classes.tolist()
        return {
            "method": self.method,
            "calibrated": self.calibrated,
            "n_samples": self.n_samples,
            "prior": dict(zip(map(str, labels), self.prior.tolist())),
            "source_prior": dict(zip(map(str, labels), self.source_prior.tolist())),
            "interval": {str(c): [lo, hi] for c, lo, hi in zip(labels, self.lower.tolist(), self.upper.tolist())},
            "confidence": self.confidence,
            "test": {"statistic": self.statistic, "df": self.df, "p_value": self.p_value,
                     "shifted": self.shifted},
        }


def em_prior(log_post: np.ndarray, log_source: np.ndarray, weights: np.ndarray | None = None, *,
             start: np.ndarray | None = None, tol: float = 1e-10, ll_tol: float = 1e-13,
             max_iter: int = 10_000) -> tuple[np.ndarray, int]:
    """Saerens et al.'s EM for the prior of the rows (eqs. 2.9-2.10): ``(pi, iterations)``.

    ``log_post``: n x K log-posteriors under the prior ``exp(log_source)``; ``weights``: B x n
    row weights (B estimates at once, the bootstrap) or None (one, every row once); ``start``:
    the first ``pi`` (default: the source prior). A class with source prior 0 keeps prior 0.
    Stops when no entry of ``pi`` moves by more than ``tol``, or when no estimate's mean
    log-likelihood per row (which EM never decreases) gains more than ``ll_tol``: an estimate
    tending to a boundary (a class at 0) creeps there slowly while the likelihood is flat."""
    live = np.isfinite(log_source)
    W = np.ones((1, len(log_post))) if weights is None else np.atleast_2d(weights)
    W = W / W.sum(axis=1, keepdims=True)
    pi = np.tile(np.exp(log_source), (len(W), 1)) if start is None else np.tile(start, (len(W), 1))
    # rows of log_post with -inf everywhere on live classes cannot be re-weighted: left as they are
    base = np.where(live, log_post - np.where(live, log_source, 0.0), -np.inf)
    ok = np.isfinite(logsumexp(base, axis=1))
    if not ok.all():
        base, W = base[ok], W[:, ok]
    # each row scaled by its largest term (the scale cancels in the E-step): E in (0, 1]
    E = np.exp(base - base.max(axis=1, keepdims=True))
    n_iter = 0
    last = np.full(len(W), -np.inf)
    for n_iter in range(1, max_iter + 1):
        # E-step (eq. 2.9): q_ic = E_ic pi_c / sum_k E_ik pi_k, with E_ic = p_ic / s_c up to a row scale
        D = E @ pi.T  # rows x estimates
        D = np.where(D > 0, D, np.inf)  # a row possible only under classes now at prior 0: no weight
        with np.errstate(divide="ignore"):
            ll = np.einsum("bn,nb->b", W, np.log(np.where(np.isfinite(D), D, 1.0)))
        gain = float(np.max(ll - last))
        last = ll
        # M-step (eq. 2.10): pi_c = sum_i w_i q_ic, for every estimate at once (two products)
        new = pi * ((W / D.T) @ E)
        new /= new.sum(axis=1, keepdims=True)
        step = float(np.max(np.abs(new - pi)))
        pi = new
        if step <= tol or gain <= ll_tol:
            break
    return (pi[0] if weights is None else pi), n_iter


def log_likelihood_ratio(log_post: np.ndarray, log_source: np.ndarray, prior: np.ndarray) -> float:
    """``sum_i log sum_c p_ic pi_c / s_c``: the log-likelihood of the rows under ``pi`` minus
    that under the source prior (Saerens et al. 2002, section 2.4). ``>= 0`` at the EM estimate."""
    live = np.isfinite(log_source) & (prior > 0)
    with np.errstate(divide="ignore"):
        shift = np.where(live, np.log(np.where(live, prior, 1.0)) - np.where(live, log_source, 0.0), -np.inf)
    rows = logsumexp(log_post + shift[None, :], axis=1)
    return float(np.sum(rows[np.isfinite(rows)]))


def lr_test(log_post: np.ndarray, log_source: np.ndarray, prior: np.ndarray) -> tuple[float, int, float]:
    """(statistic, degrees of freedom, p-value) of "the prior is the source prior": twice the
    log-likelihood ratio at the maximum-likelihood prior, against chi-squared with (classes of
    positive source prior) - 1 degrees of freedom."""
    df = max(int(np.sum(np.isfinite(log_source))) - 1, 0)
    stat = max(2.0 * log_likelihood_ratio(log_post, log_source, prior), 0.0)
    p = float(gammaincc(df / 2.0, stat / 2.0)) if df > 0 else 1.0  # chi2.sf(stat, df)
    return stat, df, p


def bbse_prior(predicted: np.ndarray, confusion: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Lipton et al.'s black-box shift estimate: solve ``confusion @ pi = mu`` by least squares,
    ``mu`` the (weighted) share of rows predicted as each class, ``confusion[i, j] = P(yhat = i |
    y = j)``; clipped at 0 and normalised. ``predicted``: class codes; ``weights``: B x n or None."""
    K = confusion.shape[0]
    W = np.ones((1, len(predicted))) if weights is None else np.atleast_2d(weights)
    onehot = np.zeros((len(predicted), K))
    onehot[np.arange(len(predicted)), predicted] = 1.0
    mu = (W @ onehot) / W.sum(axis=1, keepdims=True)
    sol = np.linalg.lstsq(confusion, mu.T, rcond=None)[0].T
    sol = np.maximum(sol, 0.0)
    total = sol.sum(axis=1, keepdims=True)
    sol = np.where(total > 0, sol / np.where(total > 0, total, 1.0), 1.0 / K)
    prior: np.ndarray = sol[0] if weights is None else sol
    return prior


def estimate(log_post: np.ndarray, source_prior: np.ndarray, classes: np.ndarray, *, method: str = "em",
             confusion: np.ndarray | None = None, confidence: float = 0.95, n_bootstrap: int = 100,
             random_state: Any = None, calibrated: bool = False) -> PriorEstimate:
    """The :class:`PriorEstimate` of rows whose log-posteriors (under ``source_prior``) are
    ``log_post``; see the module's docstring."""
    check_choice("method", method, METHODS)
    check_number("confidence", confidence, low=0.0, high=1.0, low_open=True)
    if confidence == 1.0:
        raise InvalidParameterError("parameter 'confidence' must be < 1, got 1.0")
    check_number("n_bootstrap", n_bootstrap, low=0, integer=True)
    n = len(log_post)
    if n == 0:
        raise DataError("X_unlabeled has no rows; the prior of an empty sample cannot be estimated")
    if method == "bbse" and confusion is None:
        raise InvalidParameterError(
            "method='bbse' needs the held-out confusion matrix: pass calibration="
            "nbayes.shift.ShiftCalibration().fit(model, X_train, y_train)"
        )
    with np.errstate(divide="ignore"):
        log_source = np.log(source_prior / source_prior.sum())
    mle, n_iter = em_prior(log_post, log_source)
    stat, df, p = lr_test(log_post, log_source, mle)
    rng = np.random.default_rng(random_state)
    boot = None
    if n_bootstrap:
        W = rng.multinomial(n, np.full(n, 1.0 / n), size=int(n_bootstrap)).astype(np.float64)
    if method == "em":
        prior = mle
        if n_bootstrap:
            step = max(1, 4_000_000 // n)  # bounded memory: resamples in chunks
            # a resample whose estimate tends to a boundary (a class at 0) converges slowly: 1e-6 is
            # far below the interval's width
            boot = np.concatenate([em_prior(log_post, log_source, W[i:i + step], start=mle, tol=1e-6, ll_tol=1e-9)[0]
                                   for i in range(0, len(W), step)])
    else:
        assert confusion is not None
        pred = np.argmax(log_post, axis=1)
        prior = bbse_prior(pred, confusion)
        if n_bootstrap:
            boot = bbse_prior(pred, confusion, W)
    a = (1.0 - confidence) / 2.0
    lower, upper = (prior.copy(), prior.copy()) if boot is None else (
        np.quantile(boot, a, axis=0), np.quantile(boot, 1.0 - a, axis=0))
    return PriorEstimate(prior=prior, classes=np.asarray(classes), lower=lower, upper=upper,
                         confidence=float(confidence), method=method, source_prior=np.exp(log_source),
                         statistic=stat, df=df, p_value=p, n_samples=n, n_iter=n_iter, calibrated=calibrated)
