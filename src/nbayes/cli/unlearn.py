"""``nbayes unlearn``: defined with ``nbayes learn`` (:mod:`nbayes.cli.learn`)."""

from __future__ import annotations

from .learn import unlearn

__all__ = ["unlearn"]
