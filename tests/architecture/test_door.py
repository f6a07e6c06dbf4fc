"""One public door between the models and everything above them (docs/architecture.md, issue 28):
no layer decides what a model is by its class. What a model reads is its ``input_kind``, what it
can do its ``capabilities``; so nowhere in the package is a class's name compared (``type(x).__name__
== "TextClassifier"``) or a type matched against a list of classes (``type(x) in (A, B)``), and the
bridges and applications (the service, the CLI, Dask, multi-label, calibration, model selection)
hold no ``isinstance`` over the models' classes. What is left is listed and may only shrink."""

from __future__ import annotations

import ast
import importlib
import inspect

from .imports import SRC, module_name

#: packages above the models: they ask capabilities and protocol methods, never the class
ABOVE = ("nbayes.serve", "nbayes.cli", "nbayes.dask", "nbayes.multilabel", "nbayes.calibration",
         "nbayes.model_selection")

#: (module, what) left: the exact-arithmetic shortcuts that re-derive one model family's
#: estimation (helper A's fitted-parameter values replace them by the models' own estimate)
KNOWN_SWITCHES: set[tuple[str, str]] = {
    ("nbayes.model_selection._loo", "type(model) not in (BernoulliNB, CategoricalNB)"),
}
#: the fold engine re-derives TextClassifier's estimation (helper A's part of issue 28): not scanned
ENGINE = "nbayes.model_selection._folds"
KNOWN_ISINSTANCE: set[tuple[str, str]] = {
    ("nbayes.model_selection._loo", "CategoricalNB"),
    ("nbayes.multilabel._linear", "TextClassifier"),
}


def _trees():
    for path in sorted(SRC.rglob("*.py")):
        yield module_name(path), ast.parse(path.read_text(encoding="utf-8"))


def _is_type_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type"


def _names_a_class(node: ast.AST) -> bool:
    """``type(x).__name__`` or ``x.__class__.__name__``."""
    return isinstance(node, ast.Attribute) and node.attr == "__name__" and (
        _is_type_call(node.value) or (isinstance(node.value, ast.Attribute) and node.value.attr == "__class__"))


def _classes(node: ast.AST) -> bool:
    """A literal tuple / list / set of capitalised names, or one capitalised name."""
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return bool(node.elts) and all(_classes(e) for e in node.elts)
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
    return name[:1].isupper()


def switches() -> set[tuple[str, str]]:
    found = set()
    for mod, tree in _trees():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Compare):
                continue
            sides = [node.left, *node.comparators]
            by_name = any(_names_a_class(x) for x in sides) and any(
                isinstance(x, ast.Constant | ast.Tuple | ast.List | ast.Set) for x in sides)
            by_type = _is_type_call(node.left) and all(_classes(c) for c in node.comparators) and all(
                isinstance(o, ast.In | ast.NotIn | ast.Is | ast.IsNot | ast.Eq | ast.NotEq) for o in node.ops)
            if by_name or by_type:
                found.add((mod, ast.unparse(node)))
    return found


def model_isinstance() -> set[tuple[str, str]]:
    """(module above the models, class) for each ``isinstance(x, C)`` whose C is an estimator class
    of another package (a package may test its own classes)."""
    from nbayes._estimator import BaseEstimator

    found = set()
    for mod, tree in _trees():
        if mod.endswith("__main__") or mod == ENGINE or not any(mod == p or mod.startswith(p + ".") for p in ABOVE):
            continue
        module = importlib.import_module(mod)
        own = ".".join(mod.split(".")[:2])
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance"
                    and len(node.args) == 2):
                continue
            arg = node.args[1]
            parts = arg.elts if isinstance(arg, ast.Tuple) else [arg]
            for p in parts:
                for leaf in ([p.left, p.right] if isinstance(p, ast.BinOp) else [p]):
                    try:
                        cls = eval(ast.unparse(leaf), vars(module))  # noqa: S307 - names of the module itself
                    except Exception:  # noqa: BLE001 - a local variable: not a class of the package
                        continue
                    if inspect.isclass(cls) and issubclass(cls, BaseEstimator) and not cls.__module__.startswith(own):
                        found.add((mod, cls.__name__))
    return found


def test_no_class_name_switches():
    found = switches()
    new = found - KNOWN_SWITCHES
    assert not new, "a model's kind decided by its class (ask input_kind / capabilities): " + repr(sorted(new))
    stale = KNOWN_SWITCHES - found
    assert not stale, f"remove these fixed entries from KNOWN_SWITCHES: {sorted(stale)}"


def test_no_isinstance_over_the_models_above_them():
    found = model_isinstance()
    new = found - KNOWN_ISINSTANCE
    assert not new, "isinstance over a model class above the models (ask capabilities): " + repr(sorted(new))
    stale = KNOWN_ISINSTANCE - found
    assert not stale, f"remove these fixed entries from KNOWN_ISINSTANCE: {sorted(stale)}"


def test_the_checks_see_a_switch(tmp_path):
    """The scanners find what they are for (each could fail)."""
    tree = ast.parse('if type(m).__name__ == "TextClassifier" or type(m) in (A, B): pass')
    cmp = [n for n in ast.walk(tree) if isinstance(n, ast.Compare)]
    assert any(_names_a_class(x) for n in cmp for x in [n.left, *n.comparators])
    assert any(_is_type_call(n.left) and all(_classes(c) for c in n.comparators) for n in cmp)
    assert not _classes(ast.parse("seen", mode="eval").body)  # a variable holding types is not a switch
