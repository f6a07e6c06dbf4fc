"""One public door between the models and everything above them (docs/architecture.md, issue 28):
no layer decides what a model is by its class. What a model reads is its ``input_kind``, what it
can do its ``capabilities``; so nowhere in the package is a class's name compared (``type(x).__name__
== "TextClassifier"``) or a type matched against a list of classes (``type(x) in (A, B)``), and the
bridges and applications (the service, the CLI, Dask, multi-label, calibration, model selection)
hold no ``isinstance`` over the models' classes, nor compare a model's mode setting with a string
(``est.model == "bernoulli"``, ``params["model"] != "nblr"``): they ask a capability or call a
protocol method. The allow-lists are empty and stay so."""

from __future__ import annotations

import ast
import importlib
import inspect

from .imports import SRC, module_name

#: packages above the models: they ask capabilities and protocol methods, never the class
ABOVE = ("nbayes.serve", "nbayes.cli", "nbayes.dask", "nbayes.multilabel", "nbayes.calibration",
         "nbayes.model_selection", "nbayes.semi_supervised", "nbayes.testing", "nbayes.active", "nbayes.evaluate",
         "nbayes.shift")

#: (module, what) left
KNOWN_SWITCHES: set[tuple[str, str]] = set()
KNOWN_ISINSTANCE: set[tuple[str, str]] = set()
KNOWN_MODE_STRINGS: set[tuple[str, str]] = set()


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
        if mod.endswith("__main__") or not any(mod == p or mod.startswith(p + ".") for p in ABOVE):
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


def _above(mod: str) -> bool:
    return not mod.endswith("__main__") and any(mod == p or mod.startswith(p + ".") for p in ABOVE)


def _package(mod: str) -> str:
    return ".".join(mod.split(".")[:2])


def mode_settings() -> dict[str, set[str]]:
    """For each hyperparameter that is a mode string (its default is a string: ``model``,
    ``variance``, ``handle_unknown`` ...), the packages whose estimators have it."""
    import nbayes
    from nbayes._estimator import BaseEstimator

    for path in sorted(SRC.rglob("*.py")):  # every estimator class defined
        if not module_name(path).endswith("__main__"):
            importlib.import_module(module_name(path))
    out: dict[str, set[str]] = {}
    todo = [BaseEstimator]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if not cls.__module__.startswith(nbayes.__name__ + "."):
            continue  # (a test's plug-in model)
        for p in inspect.signature(cls.__init__).parameters.values():
            if isinstance(p.default, str):
                out.setdefault(p.name, set()).add(_package(cls.__module__))
    return out


def _strings(node: ast.AST) -> bool:
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return bool(node.elts) and all(_strings(e) for e in node.elts)
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _setting_read(node: ast.AST) -> str | None:
    """The setting a node reads: ``x.name``, ``getattr(x, "name", ...)``, ``x["name"]`` or
    ``x.get("name", ...)``; else None."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return node.slice.value
    if isinstance(node, ast.Call):
        f = node.func
        key = node.args[1] if isinstance(f, ast.Name) and f.id == "getattr" and len(node.args) >= 2 else (
            node.args[0] if isinstance(f, ast.Attribute) and f.attr == "get" and node.args else None)
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return key.value
    return None


def mode_string_switches(tree_of: dict[str, ast.AST] | None = None,
                         modes: dict[str, set[str]] | None = None) -> set[tuple[str, str]]:
    """(module above the models, comparison) for each comparison of a model's mode setting
    (a hyperparameter with a string default of an estimator of another package, none of the
    module's own package) with a string: ``est.model == "bernoulli"``, ``merged["model"] !=
    "nblr"``, ``getattr(m, "model", None) in ("multinomial", "bernoulli")``."""
    modes = mode_settings() if modes is None else modes
    trees = dict(_trees()) if tree_of is None else tree_of
    found = set()
    for mod, tree in trees.items():
        if not _above(mod):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Compare):
                continue
            sides = [node.left, *node.comparators]
            if not any(_strings(x) for x in sides):
                continue
            for x in sides:
                name = _setting_read(x)
                owners = modes.get(name or "", set())
                if owners and _package(mod) not in owners:
                    found.add((mod, ast.unparse(node)))
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


def test_no_mode_string_switches_above_the_models():
    found = mode_string_switches()
    new = found - KNOWN_MODE_STRINGS
    assert not new, "a model's mode setting compared with a string (ask capabilities): " + repr(sorted(new))
    stale = KNOWN_MODE_STRINGS - found
    assert not stale, f"remove these fixed entries from KNOWN_MODE_STRINGS: {sorted(stale)}"


def test_the_checks_see_a_switch(tmp_path):
    """The scanners find what they are for (each could fail)."""
    tree = ast.parse('if type(m).__name__ == "TextClassifier" or type(m) in (A, B): pass')
    cmp = [n for n in ast.walk(tree) if isinstance(n, ast.Compare)]
    assert any(_names_a_class(x) for n in cmp for x in [n.left, *n.comparators])
    assert any(_is_type_call(n.left) and all(_classes(c) for c in n.comparators) for n in cmp)
    assert not _classes(ast.parse("seen", mode="eval").body)  # a variable holding types is not a switch


def test_the_mode_string_check_sees_each_spelling():
    """Each way of reading a setting is caught above the models; a package's own setting and a
    setting of no model are not (each assertion could fail)."""
    modes = mode_settings()
    assert "nbayes.text" in modes["model"]  # TextClassifier(model="multinomial")
    code = ('a = est.model == "bernoulli"\nb = merged["model"] != "nblr"\n'
            'c = getattr(est, "model", None) in ("multinomial", "bernoulli")\nd = p.get("model") == "nblr"\n'
            'e = kind == "text"\nf = model.input_kind == "text"\n')
    found = mode_string_switches({"nbayes.multilabel._x": ast.parse(code)}, modes)
    assert {c for _, c in found} == {"est.model == 'bernoulli'", "merged['model'] != 'nblr'",
                                     "getattr(est, 'model', None) in ('multinomial', 'bernoulli')",
                                     "p.get('model') == 'nblr'"}
    assert not mode_string_switches({"nbayes.text._x": ast.parse(code)}, modes)  # the model's own package
    assert not mode_string_switches({"nbayes.stats._x": ast.parse(code)}, modes)  # below the models
