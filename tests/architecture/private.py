"""Uses of another package's underscore names, read from the source."""

from __future__ import annotations

import ast
import collections

from .imports import SRC, module_name


def package_of(module: str) -> str:
    """nbayes.naive_bayes.multinomial -> nbayes.naive_bayes; nbayes._validation -> nbayes._validation."""
    parts = module.split(".")
    return ".".join(parts[:2])


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def definitions() -> dict[str, set[str]]:
    """Underscore name -> the packages that define it (functions, classes, methods, attributes
    assigned on self or at class / module level)."""
    out: dict[str, set[str]] = collections.defaultdict(set)
    for path in SRC.rglob("*.py"):
        pkg = package_of(module_name(path))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names = [node.name]
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Name):
                        names.append(t.id)
                    elif isinstance(t, ast.Attribute):
                        names.append(t.attr)
            elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute):
                if isinstance(node.value.value, ast.Name) and node.value.value.id == "self":
                    pass
            for n in names:
                if _private(n):
                    out[n].add(pkg)
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) in ("__setitem__",):
                pass
            # self.__dict__["_name"] = ...
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
                if _private(node.slice.value) and "__dict__" in ast.unparse(node.value):
                    out[node.slice.value].add(pkg)
    return out


def cross_package_uses() -> list[tuple[str, str, int, str]]:
    """(module, name, line, how) for each use of an underscore name that the module's own
    package does not define: attribute access on an object other than self / cls, and imports
    of underscore modules or names from another package."""
    defs = definitions()
    out = []
    for path in sorted(SRC.rglob("*.py")):
        mod = module_name(path)
        pkg = package_of(mod)
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and _private(node.attr):
                base = node.value
                if isinstance(base, ast.Name) and base.id in ("self", "cls"):
                    continue
                if isinstance(base, ast.Call) and getattr(base.func, "id", None) == "super":
                    continue
                if pkg not in defs.get(node.attr, {pkg}):
                    out.append((mod, node.attr, node.lineno, "attribute"))
            elif isinstance(node, ast.ImportFrom):
                from .imports import _resolve

                target = _resolve(mod, is_pkg, node)
                if not target.startswith("nbayes") or package_of(target) == pkg:
                    continue
                parts = target.split(".")[2:]
                if any(_private(p) for p in parts):
                    out.append((mod, target, node.lineno, "import of a private module"))
                for a in node.names:
                    if _private(a.name) and package_of(target) not in ("nbayes._validation", "nbayes._math", "nbayes._scipy",
                                                                          "nbayes._tables", "nbayes._estimator",
                                                                          "nbayes._kernels"):
                        out.append((mod, f"{target}.{a.name}", node.lineno, "import of a private name"))
    return out
