"""What is public in nbayes: the modules, and the names each exports.

A module is public when no part of its dotted path starts with ``_`` (the command line,
``nbayes.cli``, is documented as commands in docs/cli.md instead). Its public names are its
``__all__``; a public class's public members are its methods and properties whose names do not
start with ``_``, inherited ones included (their docstring may come from the base class, as
``inspect.getdoc`` finds it). New modules and new exports are picked up without editing this.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from dataclasses import dataclass, fields, is_dataclass
from types import ModuleType
from typing import Any

import nbayes

#: public by path but not documented through docstrings
NOT_API = ("nbayes.cli",)

#: the packages whose exports the API reference must list (the issue's "public subpackages")
REFERENCE_MODULES = (
    "nbayes", "nbayes.errors", "nbayes.metrics", "nbayes.naive_bayes", "nbayes.text",
    "nbayes.linear", "nbayes.semi_supervised", "nbayes.gaussian_bayes", "nbayes.stats",
    "nbayes.testing", "nbayes.testing.data", "nbayes.testing.strategies", "nbayes.io.load",
    "nbayes.io.readers", "nbayes.io.info", "nbayes.io.model_file", "nbayes.serve",
    "nbayes.dask", "nbayes.model_selection", "nbayes.calibration", "nbayes.evaluate",
)


def module_names() -> list[str]:
    """Every public module of nbayes, sorted."""
    names = ["nbayes"]
    for info in pkgutil.walk_packages(nbayes.__path__, "nbayes."):
        parts = info.name.split(".")
        if any(p.startswith("_") for p in parts) or info.name.startswith(NOT_API):
            continue
        names.append(info.name)
    return sorted(names)


def modules() -> list[ModuleType]:
    return [importlib.import_module(name) for name in module_names()]


@dataclass(frozen=True)
class Name:
    """One public name: where it is reached (``path``) and the object."""

    path: str
    obj: Any
    module: str


def _documentable(obj: Any) -> bool:
    return inspect.isclass(obj) or inspect.isfunction(obj) or inspect.ismodule(obj) or (
        callable(obj) and hasattr(obj, "__wrapped__"))


def exported(module: ModuleType) -> Iterator[Name]:
    """``module``'s ``__all__`` names that are classes, functions or modules."""
    for attr in getattr(module, "__all__", ()):
        obj = getattr(module, attr)
        if _documentable(obj):
            yield Name(f"{module.__name__}.{attr}", obj, module.__name__)


def members(cls: type) -> Iterator[tuple[str, Any]]:
    """A public class's public methods and properties (``inspect.getdoc`` of each finds an
    inherited docstring)."""
    data_fields = {f.name for f in fields(cls)} if is_dataclass(cls) else set()
    for attr in dir(cls):
        if attr.startswith("_") or attr in data_fields:  # a field's default is not a method
            continue
        raw = inspect.getattr_static(cls, attr)
        if isinstance(raw, (staticmethod, classmethod)):
            raw = raw.__func__
        if isinstance(raw, property) or inspect.isfunction(raw):
            owner = next(c for c in cls.__mro__ if attr in vars(c))
            if owner.__module__.split(".")[0] != "nbayes":
                continue  # object's, Protocol's or a library's
            yield attr, raw if isinstance(raw, property) else getattr(cls, attr)


def public_names() -> Iterator[Name]:
    """Every public module, exported name and member of an exported class, once each (the
    first path that reaches it)."""
    seen: set[int] = set()
    for module in modules():
        if id(module) not in seen:
            seen.add(id(module))
            yield Name(module.__name__, module, module.__name__)
        for name in exported(module):
            if id(name.obj) in seen:
                continue
            seen.add(id(name.obj))
            yield name
            if inspect.isclass(name.obj):
                for attr, member in members(name.obj):
                    key = (id(name.obj), attr)
                    if hash(key) in seen:
                        continue
                    seen.add(hash(key))
                    yield Name(f"{name.path}.{attr}", member, name.module)
