"""Shared checks for subtracting statistics."""

from __future__ import annotations

import numpy as np

from ..errors import UnlearnError

#: Relative slack when comparing removed weight with learned weight: float sums of the same
#: weights in another order can differ in the last bits.
REL_TOL = 1e-9


def check_removable(have: np.ndarray, remove: np.ndarray, classes: np.ndarray, what: str) -> None:
    """Raise UnlearnError naming the class when ``remove`` exceeds ``have`` (first axis = class)."""
    excess = remove > have * (1 + REL_TOL) + REL_TOL
    if np.any(excess):
        k = int(np.argwhere(excess)[0][0])
        raise UnlearnError(
            f"unlearn would remove more {what} of class {classes[k]!r} than the model learned "
            f"(learned {float(np.max(have[k])):g}, removing {float(np.max(remove[k])):g}); "
            "the model is unchanged"
        )


def zero_small(total: np.ndarray, before: np.ndarray) -> np.ndarray:
    """Snap to exactly 0 the entries that cancel to rounding noise after a subtraction."""
    return np.where(np.abs(total) <= REL_TOL * np.abs(before), 0.0, total)
