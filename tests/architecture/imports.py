"""The import graph of nbayes, read from the source (imports inside functions included)."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "nbayes"


def module_name(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _resolve(mod: str, is_pkg: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = mod.split(".")
    if not is_pkg:
        base = base[:-1]
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _is_module(name: str) -> bool:
    path = SRC.parent / Path(*name.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def imports() -> list[tuple[str, str, int, bool]]:
    """(importer, imported nbayes module, line, inside a function) for every import."""
    out = []
    for path in sorted(SRC.rglob("*.py")):
        mod = module_name(path)
        is_pkg = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        funcs: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for sub in ast.walk(node):
                    if sub is not node:
                        funcs.add(id(sub))
        type_checking: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                for sub in ast.walk(node):
                    type_checking.add(id(sub))
        for node in ast.walk(tree):
            if id(node) in type_checking:
                continue
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(mod, is_pkg, node)
                # "from . import x" / "from .pkg import sub": x may be a submodule (then the
                # package's own names are not what is imported)
                subs = [f"{base}.{a.name}" for a in node.names if _is_module(f"{base}.{a.name}")]
                targets = subs if len(subs) == len(node.names) else [base, *subs]
            for t in targets:
                if t == "nbayes" or t.startswith("nbayes."):
                    out.append((mod, t, node.lineno, id(node) in funcs))
    return out
