"""When more labels stop paying: stabilising predictions (Bloodgood & Vijay-Shanker 2009)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_number


def kappa(a: np.ndarray, b: np.ndarray) -> float:
    """Cohen's kappa of two label vectors: (agreement - chance) / (1 - chance); 1 when both are
    one and the same constant labelling."""
    labels, codes = np.unique(np.concatenate([a, b]), return_inverse=True)
    ca, cb = codes[: len(a)], codes[len(a):]
    agree = float(np.mean(ca == cb))
    chance = float(np.sum(np.bincount(ca, minlength=len(labels)) * np.bincount(cb, minlength=len(labels)))) / len(a) ** 2
    return 1.0 if chance >= 1.0 else (agree - chance) / (1.0 - chance)


class StabilizingPredictions:
    """Stop when the model's predictions on a fixed stop set no longer change: the kappa
    agreement between the predictions of successive rounds averages at least ``threshold``
    over the last ``window`` rounds (Bloodgood & Vijay-Shanker 2009: 0.99 over 3).

    ``update(model, X_stop)`` after each round; returns True when it is time to stop
    (``should_stop``). ``kappas`` holds each round's agreement with the previous round."""

    def __init__(self, *, threshold: float = 0.99, window: int = 3) -> None:
        check_number("threshold", threshold, low=0.0, high=1.0)
        check_number("window", window, low=1, integer=True)
        self.threshold, self.window = threshold, window
        self.kappas: list[float] = []
        self._last: np.ndarray | None = None

    def update(self, model: Any, X_stop: Any = None, *, predictions: Any = None) -> bool:
        """Record this round's predictions on the stop set (``model.predict(X_stop)``, or
        ``predictions`` computed elsewhere); True when it is time to stop."""
        pred = np.asarray(model.predict(X_stop) if predictions is None else predictions)
        if self._last is not None:
            self.kappas.append(kappa(self._last, pred))
        self._last = pred
        return self.should_stop

    @property
    def should_stop(self) -> bool:
        """True when the last ``window`` kappas average at least ``threshold``."""
        recent = self.kappas[-self.window:]
        return len(recent) == self.window and float(np.mean(recent)) >= self.threshold
