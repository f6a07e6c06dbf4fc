"""Nothing outside a package uses another package's underscore names (docs/architecture.md):
the interfaces between packages are public. What is left of the first version is listed here
and may only shrink (a stale entry fails the test too)."""

from __future__ import annotations

from .private import cross_package_uses

#: (using package, underscore name or private module it uses): to be made public or removed
KNOWN: set[tuple[str, str]] = set()


def test_no_new_use_of_another_packages_private_names():
    found = {}
    for module, name, line, how in cross_package_uses():
        package = ".".join(module.split(".")[:2])
        found.setdefault((package, name), []).append(f"{module}:{line} ({how}) {name}")
    new = {k: v for k, v in found.items() if k not in KNOWN}
    assert not new, "uses of another package's private names:\n" + "\n".join(x for v in new.values() for x in v)
    stale = KNOWN - set(found)
    assert not stale, f"remove these fixed entries from KNOWN: {sorted(stale)}"
