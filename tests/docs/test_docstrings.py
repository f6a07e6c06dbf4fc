"""Every public name has a docstring, and every example in a public docstring runs.

Public names are found, not listed (tests/docs/public.py): every module without a ``_`` in its
path, its ``__all__``, and the public methods and properties of the classes exported. A method
that overrides a documented one may leave its docstring to the base class (``inspect.getdoc``).
The ``>>>`` examples run as pytest's ``--doctest-modules`` runs them (no option flags), in an
empty temporary folder.
"""

from __future__ import annotations

import doctest
import inspect
import os
from typing import Any

import pytest

from .public import module_names, modules, public_names


def _owner(path: str, obj: Any) -> str:
    """Where to write the missing docstring: the defining class of a member, else the path."""
    func = obj.fget if isinstance(obj, property) else getattr(obj, "__func__", obj)
    qual = getattr(func, "__qualname__", None)
    mod = getattr(func, "__module__", None)
    return f"{mod}.{qual}" if qual and mod and "." in qual else path


def test_every_public_name_has_a_docstring() -> None:
    missing: dict[str, str] = {}
    for name in public_names():
        if not (inspect.getdoc(name.obj) or "").strip():
            missing.setdefault(_owner(name.path, name.obj), name.path)
    assert not missing, (
        "public names without a docstring (write one, numpy style, where it is defined):\n  "
        + "\n  ".join(f"{owner}  (reached as {path})" for owner, path in sorted(missing.items()))
    )


def test_public_modules_are_found() -> None:
    """The walk sees the packages the API reference documents (a guard on the walk itself)."""
    found = set(module_names())
    for name in ("nbayes", "nbayes.stats", "nbayes.testing", "nbayes.io.readers", "nbayes.serve",
                 "nbayes.dask", "nbayes.model_selection", "nbayes.calibration", "nbayes.evaluate"):
        assert name in found
    assert not any(part.startswith("_") for name in found for part in name.split("."))


def _examples() -> list[doctest.DocTest]:
    finder = doctest.DocTestFinder(exclude_empty=True)
    tests: dict[str, doctest.DocTest] = {}
    for module in modules():
        for test in finder.find(module, module.__name__):
            if test.examples and test.filename and os.path.realpath(test.filename).endswith(".py"):
                tests.setdefault(test.name, test)
    return sorted(tests.values(), key=lambda t: t.name)


EXAMPLES = _examples()


@pytest.mark.parametrize("test", EXAMPLES, ids=[t.name for t in EXAMPLES])
def test_docstring_example(test: doctest.DocTest, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    runner = doctest.DocTestRunner(optionflags=0)
    out: list[str] = []
    result = runner.run(test, out=out.append, clear_globs=True)
    assert result.failed == 0, "".join(out)


def test_there_are_examples() -> None:
    assert len(EXAMPLES) >= 20
