"""Semi-supervised EM and within-class mixtures for any Naive Bayes model, as the layers above
the models use it (the wrapper :class:`nbayes.EM` in :mod:`nbayes.semi_supervised`): the
algorithm, written once against the statistics protocol, lives in ``naive_bayes/_em.py``.

- :func:`fit_em` ``(model, X, y, X_unlabeled, sample_weight, settings)``: fits ``model`` in place
  and returns an :class:`EMReport`;
- :class:`EMSettings`: the settings (``unlabeled_label``, ``unlabeled_weight``, ``max_iter``,
  ``tol``, ``n_components``, ``n_init``, ``random_state``);
- :data:`OFF`, :data:`WEIGHT_GRID`, :data:`CV_FOLDS`, :data:`EM_ATTRS`, :func:`is_off`,
  :func:`unlabeled_mask`: the defaults and helpers the wrapper shares with ``fit(X, y, X_unlabeled=U)``.
"""

from ._em import CV_FOLDS, EM_ATTRS, OFF, WEIGHT_GRID, EMReport, EMSettings, fit_em, is_off, unlabeled_mask

__all__ = ["CV_FOLDS", "EM_ATTRS", "OFF", "WEIGHT_GRID", "EMReport", "EMSettings", "fit_em", "is_off", "unlabeled_mask"]
