"""Fitted parameters as values (docs/architecture.md, "Params values and estimate").

A model's parameters are an immutable value made by one pure function of its statistics and
its settings, ``estimate(stats, settings) -> Params``: no model object is read or changed. An
estimator holds ``stats_`` and ``params_`` and assigns them together (``set_statistics``); its
public fitted attributes (``feature_log_prob_``, ``class_log_prior_``, ...) are read-only
properties over them. The class-prior part (``class_log_prior``, the decision's ``intercept``,
``component_log_weight`` of a mixture) is shared by every family: :class:`Params`.

``params.plus(delta)`` is the online update: the parameters of ``stats + delta`` when the change
is local and the family can compute it exactly, or None (declined: estimate again).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from ._components import Components
from ._priors import class_log_prior

__all__ = ["Params", "PriorAttributes", "PriorSettings", "assign_parameters", "estimate_prior", "fitted"]


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class PriorSettings:
    """What the class prior's estimation reads: the models' ``fit_prior``, ``class_prior`` (or
    GaussianNB's ``priors``), ``class_alpha``; ``classes`` the labels of the statistics (a prior
    given as a mapping from label to probability is laid out in their order); ``components``
    the mixture layout of a model EM fitted with several components per class (None: one)."""

    fit_prior: bool = True
    class_prior: Any = None
    class_alpha: float = 0.0
    classes: Any = None
    components: Components | None = None


def estimate_prior(class_count: np.ndarray, s: PriorSettings) -> dict[str, Any]:
    """The shared prior part of every family's parameters, as keyword arguments of
    :class:`Params`: log P(c) (chapter 002 eq. 8, or eq. 9 smoothed by ``class_alpha``), the
    decision's intercept (with components: log P(c) + log P(m | c) per component) and the
    components' log weights."""
    mix = s.components
    if mix is None:
        prior = class_log_prior(class_count, fit_prior=s.fit_prior, class_prior=s.class_prior,
                                class_alpha=s.class_alpha, classes=s.classes)
        return {"class_log_prior": prior, "intercept": prior}
    log_pc = class_log_prior(mix.class_sums(class_count), fit_prior=s.fit_prior, class_prior=s.class_prior,
                             class_alpha=s.class_alpha, classes=s.classes)
    log_w = mix.log_weights(class_count, s.class_alpha)
    return {"class_log_prior": log_pc, "intercept": log_pc[mix.owner] + log_w, "component_log_weight": log_w}


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class Params:
    """The class-prior part every family shares. ``class_log_prior`` : ndarray of shape
    (n_classes,), log P(c); ``intercept`` : ndarray of shape (n_classes,) (or (n_components,)),
    the term the decision adds to the log-likelihood (the log prior, or -inf for a class
    without weight where the family leaves the prior out); ``component_log_weight`` : ndarray
    of shape (n_components,) or None. Arrays are read-only: the value never changes."""

    class_log_prior: np.ndarray
    intercept: np.ndarray
    component_log_weight: np.ndarray | None = None

    def __post_init__(self) -> None:
        for f in fields(self):
            _freeze(getattr(self, f.name))

    def __eq__(self, other: object) -> bool:
        """Values are equal when they are of one family and every field is equal (NaN equal to NaN)."""
        if type(other) is not type(self):
            return NotImplemented
        return all(_same(getattr(self, f.name), getattr(other, f.name)) for f in fields(self))

    __hash__ = None  # type: ignore[assignment]  # (arrays: not hashable)

    def attributes(self) -> dict[str, Any]:
        """The parameters by the names of the model's attributes (``feature_log_prob_``,
        ``class_log_prior_``, ``_intercept``, ...), those that are set."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None:
                out["_intercept" if f.name == "intercept" else f.name + "_"] = value
        return out

    def plus(self, delta: Any) -> Params | None:
        """The parameters after ``delta`` (statistics of the same classes and features) is
        added to the statistics, computed from the change alone; None when this family cannot
        (then ``estimate`` runs on the sum). The default declines."""
        return None


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(a, b, equal_nan=np.asarray(a).dtype.kind in "fc"))
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(p, q) for p, q in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if "params_" in getattr(a, "__dict__", ()) and "params_" in getattr(b, "__dict__", ()):
        return type(a) is type(b) and _same(a.params_, b.params_)  # a component model: by its parameters
    if a is not b and type(a) is type(b) and not isinstance(a, type) and _state(a) is not None:
        return _same(_state(a), _state(b))  # (a component whose parameters are attributes, and its parts)
    return bool(a == b or (a != a and b != b))


def _state(obj: Any) -> dict[str, Any] | None:
    """An object's attributes (``__dict__`` and slots), or None for one without (a number)."""
    slots = [n for c in type(obj).__mro__ for n in getattr(c, "__slots__", ()) if n != "__weakref__"]
    if not slots and not hasattr(obj, "__dict__"):
        return None
    out = {n: getattr(obj, n, None) for n in slots if n != "__dict__"}
    out.update(getattr(obj, "__dict__", {}))
    return out


def _freeze(value: Any) -> None:
    if isinstance(value, np.ndarray):
        value.setflags(write=False)
    elif isinstance(value, list | tuple):
        for item in value:
            _freeze(item)


def fitted(name: str, doc: str) -> property:
    """A read-only fitted attribute: the field ``name`` of the model's ``params_``."""

    def get(self: Any) -> Any:
        value = getattr(self.params_, name)
        if value is None:  # (a field this fit has not: as an attribute that is not set)
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name + '_'!r}")
        return value

    return property(get, doc=doc)


class PriorAttributes:
    """The prior part's fitted attributes, read from ``params_`` (mixed into every model whose
    parameters are a :class:`Params` value)."""

    class_log_prior_ = fitted("class_log_prior", "ndarray of shape (n_classes,): log P(c), the estimated class prior.")
    _intercept = fitted("intercept", "The term the decision adds per class (or component).")
    component_log_weight_ = fitted(
        "component_log_weight", "ndarray of shape (n_components,): log P(m | c) of each mixture component (EM)."
    )


def assign_parameters(model: Any, derived: Params | dict[str, Any], stats: Any = None) -> None:
    """Give ``model`` the parameters ``derived`` estimated from its statistics: a
    :class:`Params` value becomes its ``params_``, and with ``stats`` given they become its
    ``stats_`` in the same step (one update of the model's attributes: a reader sees the old
    pair or the new one); a dict (a family not yet a value) sets its attributes one by one."""
    d = model.__dict__
    for key in d.get("_derived_keys", ()):  # a refit's parameters replace all of the last
        if key != "params_":
            d.pop(key, None)
    if isinstance(derived, Params):
        new: dict[str, Any] = {"params_": derived, "_derived_keys": frozenset({"params_"})}
        if stats is not None:
            new["stats_"] = stats
        d.update(new)
    else:
        if stats is not None:
            d["stats_"] = stats
        for key, value in derived.items():
            setattr(model, key, value)
        d["_derived_keys"] = frozenset(derived)
