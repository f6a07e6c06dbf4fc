"""Label shift in the service: the class prior of a batch (``POST /v1/prior``) and the running
estimate over the rows predicted (``--track-prior``, reported by ``GET /v1/model``). Nothing
here imports the web framework, and nothing here changes the served model: adaptation is the
user's act (docs/label-shift.md, "In the service").

Both call the library's estimator (``model.estimate_prior``, or the function it calls over
the tracked posteriors): Saerens et al.'s EM
(2002, eqs. 2.9-2.10) on the model's own posteriors, a percentile bootstrap interval and the
likelihood-ratio test of "no change" (their section 2.4).
"""

from __future__ import annotations

import math
import threading
import time
from typing import Any

import numpy as np

from .._math import logsumexp
from .._prior_shift import estimate as estimate_from_posteriors
from ..errors import InvalidParameterError
from ._model import Loaded, Problem

#: the most bootstrap resamples a request may ask for (each is an EM over the batch)
MAX_BOOTSTRAP = 1000
#: what a /v1/prior body holds besides the body of /v1/predict
OPTIONS = ("method", "confidence", "n_bootstrap", "seed")
#: the largest seed (NumPy's generators take any integer >= 0; JSON readers keep 64 bits)
MAX_SEED = 2**63 - 1
#: the tracked estimate: its interval's level and resamples
TRACK_CONFIDENCE = 0.95
TRACK_BOOTSTRAP = 100


def refusal(loaded: Loaded) -> str | None:
    """Why the served model has no prior to estimate against (None: it has one)."""
    m = loaded.model
    if loaded.multilabel:
        return (f"a {type(m).__name__} predicts label sets, not one class per item: its labels have no "
                "class prior that sums to 1 to estimate (estimate each label's rate offline)")
    if getattr(m, "prediction_prior", None) is None:
        return (f"a {type(m).__name__} has no class prior of its own (a discriminative model): the prior of "
                "unlabelled rows is estimated against a training prior; serve a Naive Bayes model, or "
                "estimate offline with nbayes.shift.ShiftCalibration (nbayes prior MODEL DATA --train ...)")
    return None


def integer(v: Any) -> int | None:
    """``v`` as an integer if it is one (JSON Schema's integer: 10.0 too), else None."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return None


def options(body: dict[str, Any], methods: tuple[str, ...]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the body without the options: the input, as for /v1/predict; the checked options)."""
    out: dict[str, Any] = {"method": "em", "confidence": 0.95, "n_bootstrap": 100, "seed": 0}
    method = body.get("method", "em")
    if "method" in body and method not in methods:
        if method == "bbse":
            raise Problem(422, "'method': 'bbse' needs a calibration (the held-out confusion matrix of the training "
                               "rows), which this service does not have; use 'em', or offline: "
                               "nbayes prior MODEL DATA --train TRAIN --target COL --method bbse")
        raise Problem(422, f"'method' must be one of {list(methods)}, got {_short(method)}")
    out["method"] = method
    if "confidence" in body:
        c = body["confidence"]
        if isinstance(c, bool) or not isinstance(c, int | float) or not 0 < c < 1:
            raise Problem(422, f"'confidence' must be a number strictly between 0 and 1, got {_short(c)}")
        out["confidence"] = float(c)
    if "n_bootstrap" in body:
        b = integer(body["n_bootstrap"])
        if b is None or not 0 <= b <= MAX_BOOTSTRAP:
            raise Problem(422, f"'n_bootstrap' must be an integer from 0 to {MAX_BOOTSTRAP}, got {_short(body['n_bootstrap'])}")
        out["n_bootstrap"] = b
    if "seed" in body:
        s = integer(body["seed"])
        if s is None or not 0 <= s <= MAX_SEED:
            raise Problem(422, f"'seed' must be an integer from 0 to 2**63 - 1, got {_short(body['seed'])}")
        out["seed"] = s
    return {k: v for k, v in body.items() if k not in OPTIONS}, out


def estimate(loaded: Loaded, X: Any, opts: dict[str, Any]) -> dict[str, Any]:
    """``loaded.model.estimate_prior(X, ...)`` as JSON (the model is not changed)."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        try:
            est = loaded.model.estimate_prior(X, method=opts["method"], confidence=opts["confidence"],
                                              n_bootstrap=opts["n_bootstrap"], random_state=opts["seed"])
        except InvalidParameterError as exc:  # no prior of its own (checked before: a reload in between)
            raise Problem(409, str(exc)) from None
    return answer(est)


def answer(est: Any) -> dict[str, Any]:
    """A :class:`~nbayes.shift.PriorEstimate` as the service's JSON; an estimate that is not
    finite (every row impossible under every class) is refused."""
    if not (np.isfinite(est.prior).all() and np.isfinite(est.lower).all() and np.isfinite(est.upper).all()):
        raise Problem(422, "no row of the batch is possible under any class: there is nothing to estimate from")
    out: dict[str, Any] = est.to_dict()
    out["test"]["statistic"] = float(est.statistic) if math.isfinite(est.statistic) else 0.0
    return out


def _short(v: Any) -> str:
    return repr(v)[:60]


# ---------------------------------------------------------------------------- --track-prior
class PriorTracker:
    """The posteriors of the last ``window`` rows predicted, and their prior estimated on demand.

    The predict path only copies its probabilities (and the log prior they were computed
    under) into two ring buffers: O(rows x classes), no logarithm, no estimation. The estimate
    is made when ``GET /v1/model`` asks and the last one is older than ``refresh`` seconds
    with rows predicted since, then cached. The rows of older model versions are re-expressed
    under the current training prior (Saerens et al. 2002, eq. 2.4: a posterior divided by the
    prior it assumed is the likelihood up to a row constant), so a learning service's window
    stays one sample. A change of classes (a reload, a new class learned) starts a new window."""

    def __init__(self, window: int = 2000, refresh: float = 5.0) -> None:
        self.window = int(window)
        self.refresh = float(refresh)
        self._lock = threading.Lock()  # the buffers (predictions of the event loop and of worker threads)
        self._compute = threading.Lock()  # one estimate at a time
        self._classes: list[Any] | None = None
        self._loaded: Loaded | None = None
        self._tracking = False  # whether the model of ``_loaded`` has a prior to track
        self._log_source = np.zeros(0)
        self._P = np.zeros((0, 0))
        self._S = np.zeros((0, 0))
        self._next = 0
        self._filled = 0
        self.seen = 0  # rows predicted since the window started
        self._cached: tuple[int, float, Loaded, dict[str, Any]] | None = None

    # ------------------------------------------------------------------ the predict path
    def add(self, loaded: Loaded, P: np.ndarray) -> None:
        """Record the probabilities ``P`` (rows x classes) that ``loaded`` answered."""
        with self._lock:
            if loaded is not self._loaded:
                self._tracking = self._follow(loaded)
            if not self._tracking:
                return
            n, W = len(P), self.window
            if n >= W:
                self._P[:] = P[n - W:]
                self._S[:] = self._log_source
                self._next, self._filled = 0, W
            else:
                end = self._next + n
                first = min(end, W) - self._next
                self._P[self._next:self._next + first] = P[:first]
                self._S[self._next:self._next + first] = self._log_source
                if first < n:  # wrapped round
                    self._P[:n - first] = P[first:]
                    self._S[:n - first] = self._log_source
                self._next = end % W
                self._filled = min(W, self._filled + n)
            self.seen += n

    def _follow(self, loaded: Loaded) -> bool:
        """A new served version: its log prior; a new window if its classes differ. False: the
        model has no prior to track."""
        self._loaded = loaded
        if refusal(loaded) is not None:
            self._classes = None
            return False
        if loaded.classes != self._classes:
            K = len(loaded.classes)
            self._classes = list(loaded.classes)
            self._P, self._S = np.zeros((self.window, K)), np.zeros((self.window, K))
            self._next = self._filled = self.seen = 0
            self._cached = None
        with np.errstate(divide="ignore"):
            prior = np.asarray(loaded.model.prediction_prior, dtype=np.float64)
            self._log_source = np.log(prior / prior.sum())
        return True

    # ------------------------------------------------------------------ GET /v1/model
    def report(self, loaded: Loaded) -> dict[str, Any]:
        """The tracked estimate for ``GET /v1/model``: computed now if stale (see the class),
        else the cached one."""
        with self._compute:
            cached = self._cached
            fresh = (cached is not None and cached[2] is loaded
                     and (cached[0] == self.seen or time.monotonic() - cached[1] < self.refresh))
            if fresh:
                assert cached is not None
                return cached[3]
            out = self._report(loaded)
            self._cached = (int(out["rows_seen"]), time.monotonic(), loaded, out)
            return out

    def _report(self, loaded: Loaded) -> dict[str, Any]:
        with self._lock:
            if loaded is not self._loaded:
                self._tracking = self._follow(loaded)
            # oldest first (the order the rows came in: the bootstrap resamples as over a batch)
            order = np.r_[self._next:self._filled, 0:self._next] if self._filled == self.window else slice(0, self._filled)
            P, S, seen = self._P[order], self._S[order], self.seen
            log_source = self._log_source.copy()
        out: dict[str, Any] = {"window": self.window, "rows": len(P), "rows_seen": seen, "refresh": self.refresh,
                               "computed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                               "estimate": None, "training_prior": None, "drift": False}
        reason = refusal(loaded)
        if reason is not None:
            out["message"] = f"not tracked: {reason}"
            return out
        classes = np.asarray(loaded.model.classes_)
        out["training_prior"] = dict(zip(loaded.class_keys, np.exp(log_source).tolist()))
        if len(P) == 0:
            out["message"] = "no rows predicted yet: the prior is estimated over the last " \
                             f"{self.window:,} rows /v1/predict answers"
            return out
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            # each row re-expressed under the current training prior (eq. 2.4), then normalised
            L = np.log(P) - np.where(np.isfinite(S), S, 0.0) + log_source
            L = L - logsumexp(L, axis=1, keepdims=True)
            L = np.where(np.isnan(L), -np.inf, L)
            est = estimate_from_posteriors(L, np.exp(log_source), classes, confidence=TRACK_CONFIDENCE,
                                           n_bootstrap=TRACK_BOOTSTRAP, random_state=0)
        try:
            out["estimate"] = answer(est)
        except Problem:
            out["message"] = "no tracked row is possible under any class: nothing to estimate from"
            return out
        out["drift"] = bool(est.shifted)
        out["message"] = _sentence(est, loaded.class_keys, len(P))
        return out


def _sentence(est: Any, keys: list[str], n: int) -> str:
    """The tracked estimate in one plain sentence."""
    if not est.shifted:
        return (f"no evidence that the class prior of the last {n:,} predicted rows differs from training "
                f"(likelihood-ratio test p = {est.p_value:.3g})")
    j = int(np.argmax(np.abs(est.prior - est.source_prior)))
    return (f"the class prior of the last {n:,} predicted rows differs from training (likelihood-ratio test "
            f"p = {est.p_value:.3g}): {keys[j]!r} is {est.prior[j]:.3f} [{est.lower[j]:.3f}, {est.upper[j]:.3f}] "
            f"against {est.source_prior[j]:.3f} in training. The served model keeps its prior: to adapt, "
            "estimate with POST /v1/prior and apply model.with_prior(estimate) offline (docs/label-shift.md)")
