"""Leave-one-out in closed form, for models that declare the capability ``leave_one_out``
(categorical and Bernoulli Naive Bayes): one count of all rows, then each row's joint
log-likelihood under the model without it, which the model computes from the totals
(``leave_one_out_joint``: only that row's class and values change). Cost: one pass plus one
prediction per row, where refitting would cost n fits. Equal to n refits (tests hold it to the
generic engine and to scikit-learn's ``LeaveOneOut``).

Where the model has no closed form for its settings or the rows (it answers None), the generic
engine serves every row, exact too, at one estimation per row; so does a single row that would
empty its class (the model without it does not know the class), the others keeping the closed
form."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ._folds import StatsFolds, normalize
from ._split import Splits


def loo_folds(model: Any, X: Any, y: Any, splits: Splits, sample_weight: Any) -> "LooFolds | None":
    if "leave_one_out" not in getattr(model, "capabilities", frozenset()):
        return None
    t0 = time.perf_counter()
    engine = StatsFolds(model, X, y, splits, sample_weight, {})
    w = np.ones(engine.n) if engine.w is None else engine.w
    cc = engine.total.class_count
    own = cc[engine.codes] - w
    # rows the closed forms leave to the generic engine: the last row of a class (the model
    # without it does not know the class)
    special = own <= 1e-9 * cc[engine.codes]
    if special.mean() > 0.5:
        return None
    full = engine.model({}, None)
    jll = full.leave_one_out_joint(engine.Xv, engine.codes, w)
    if jll is None:
        return None
    jll[special] = 0.0  # replaced below
    lp = normalize(jll, full.prior_fallback)
    for i in np.flatnonzero(special):
        lp[i] = engine.log_proba({}, int(i))[0][0]
    return LooFolds(engine, lp, time.perf_counter() - t0)


class LooFolds:
    """The leave-one-out predictions, served split by split as the engines do."""

    def __init__(self, engine: StatsFolds, lp: np.ndarray, seconds: float) -> None:
        self.engine = engine
        self.lp = lp
        self.per_row = seconds / max(engine.n, 1)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)

    def log_proba(self, params: dict[str, Any], i: int) -> Any:
        if params:
            return self.engine.log_proba(params, i)
        return self.lp[i : i + 1], self.per_row, 0.0  # split i holds out row i
