"""The checks nbayes' own models make on their hyperparameters and input, for a model written
outside nbayes (docs/architecture.md, ``docs/examples/poisson_nb.py``): the same errors
(:mod:`nbayes.errors`), naming the parameter, the row and the column, as every nbayes model.

- :func:`check_number` ``(name, value, low=, high=, low_open=, integer=)``: a hyperparameter in range,
  else :class:`~nbayes.errors.InvalidParameterError`.
- :func:`check_choice` ``(name, value, choices)``: one of the allowed strings.
- :func:`check_X_numeric` ``(X, allow_nan=, nonnegative=, n_features=, feature_names=, model=)``:
  a 2-D numeric input (array, frame, scipy.sparse) as float64 and its column names, else
  :class:`~nbayes.errors.DataError` naming the row and column.
- :func:`check_sample_weight` ``(sample_weight, n)``: None or n finite non-negative weights.

>>> from nbayes.validation import check_number
>>> check_number("alpha", -1.0, low=0.0)
Traceback (most recent call last):
...
nbayes.errors.InvalidParameterError: parameter 'alpha' must be >= 0.0, got -1.0
"""

from __future__ import annotations

from ._validation import check_choice, check_number, check_sample_weight, check_X_numeric

__all__ = ["check_choice", "check_number", "check_sample_weight", "check_X_numeric"]
