"""A package's public names imported on first use (PEP 562), so that importing one model does
not import its siblings: ``from nbayes import GaussianNB`` loads the Gaussian model and what it
needs, not the text statistics, the other families or the logistic regression.

A package lists ``name -> "module"`` (relative to the package, or ``"module:attribute"`` when the
public name differs from the module's) and takes the two hooks::

    __getattr__, __dir__ = exports(__name__, {"GaussianNB": ".gaussian"})

A name is imported once, then cached in the package's namespace (later reads are plain globals).
The re-exports for type checkers stay in the package, under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from importlib import import_module
from typing import Any

__all__ = ["exports"]


def exports(package: str, where: Mapping[str, str], values: Mapping[str, Callable[[], Any]] | None = None,
            eager: Iterable[str] = ()) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of ``package`` for the lazily imported names of
    ``where`` (a module path ending with ``:`` names the module itself, as in ``"errors": ".errors:"``)
    and of ``values`` (name -> a function computing the value on first read); ``__dir__`` lists
    them with the package's ``eager`` public names (those it imports itself)."""
    names = sorted({*where, *(values or {}), *eager})

    def __getattr__(name: str) -> Any:
        spot = where.get(name)
        if spot is not None:
            path, _, attribute = spot.partition(":")
            module = import_module(path, package) if path else sys.modules[package]
            value = module if spot.endswith(":") else getattr(module, attribute or name)
        elif values is not None and name in values:
            value = values[name]()
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return names

    return __getattr__, __dir__
