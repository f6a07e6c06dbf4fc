"""The fenced code blocks of the README and docs/*.md, and the markers that steer them.

The convention (docs/testing.md, "The documentation is tested"):

- ```` ```python ```` blocks run; a block with ``>>>`` prompts is a doctest (its output is
  compared, with ``...`` for elided output and whitespace normalised), any other is a script.
  The python blocks of a page share one namespace, in page order, like a notebook.
- ```` ```console ```` blocks: each ``$ command`` runs and the lines under it are its expected
  output; ```` ```bash ```` / ```` ```sh ```` blocks: every line is a command, no output shown.
  Only ``nbayes`` and ``python`` commands run (a block with others is marked not run); ``pip
  install`` is left out (the reader installs, the test uses the tree); ``nbayes serve`` is left
  out (a server runs until stopped; tests/test_serve.py tests it).
- ``<!-- not run: REASON -->`` on the line before a block: not run, the reason is required.
- ``<!-- setup:`` ... ``-->`` before a block: hidden Python run first, in the page's namespace
  (files a block reads, data it names without showing where it came from).
- Untagged blocks, and ``text`` / ``json`` / ``yaml`` / ``toml`` blocks, are not code; an
  untagged block whose first line starts with ``$ `` or ``>>>`` is an error (tag it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PYTHON = {"python", "py", "pycon"}
SHELL = {"console", "bash", "sh", "shell", "shell-session"}
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w+-]*)")
NOT_RUN = re.compile(r"^\s*<!--\s*not run:\s*(?P<reason>.*?)\s*-->\s*$")
SETUP = re.compile(r"^\s*<!--\s*setup:\s*$")
#: the first line of an untagged block that must be tagged: a prompt or a command
COMMAND = re.compile(r"(\$ |>>>|pip3? install |python3? (-m |\S+\.py)|nbayes (train|predict|evaluate|tune|explain|info|"
                     r"compare|serve|demo)\b)")


@dataclass
class Block:
    page: str
    line: int  # 1-based line of the opening fence
    lang: str
    code: str
    not_run: str | None = None  # the reason, when marked
    setup: str = ""
    problems: list[str] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def runs(self) -> bool:
        return self.not_run is None and (self.lang in PYTHON or self.lang in SHELL)


def pages() -> list[Path]:
    """README.md and every Markdown page under docs/ (new pages are picked up)."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _marker_before(lines: list[str], i: int) -> tuple[str | None, str, list[str]]:
    """(not-run reason, setup code, problems) from the lines just above line ``i``."""
    j = i - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    if j < 0:
        return None, "", []
    m = NOT_RUN.match(lines[j])
    if m:
        reason = m.group("reason")
        return reason, "", ([] if reason else ["a `<!-- not run: -->` marker needs a reason"])
    if lines[j].strip() == "-->":  # the end of a setup comment?
        k = j - 1
        while k >= 0 and not SETUP.match(lines[k]) and "-->" not in lines[k]:
            k -= 1
        if k >= 0 and SETUP.match(lines[k]):
            return None, "\n".join(lines[k + 1:j]), []
    return None, "", []


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of one page, in order."""
    text = page.read_text(encoding="utf-8")
    lines = text.split("\n")
    rel = page.relative_to(ROOT).as_posix() if page.is_relative_to(ROOT) else page.name
    out: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, indent = m.group("fence"), len(m.group("indent"))
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            j += 1
        body = "\n".join(line[indent:] if line[:indent].isspace() else line for line in lines[i + 1:j])
        reason, setup, problems = _marker_before(lines, i)
        block = Block(rel, i + 1, m.group("lang").lower(), body, reason, setup, problems)
        first = body.lstrip().split("\n", 1)[0]
        if not block.lang and COMMAND.match(first):
            block.problems.append("an untagged block of commands or prompts: tag it (```console, ```bash "
                                  "or ```python) so that it runs, or mark it not run")
        out.append(block)
        i = j + 1
    return out


# ------------------------------------------------------------------------------- shell blocks
RUNNABLE = ("nbayes", "python", "python3")


def is_pip_install(command: str) -> bool:
    return bool(re.match(r"^(python3?\s+-m\s+)?pip3?\s+install\b", command.strip()))


def is_server(command: str) -> bool:
    return bool(re.match(r"^nbayes\s+serve\b", command.strip()))


@dataclass
class Command:
    command: str
    expected: list[str]  # console: the lines shown under it


def commands(block: Block) -> list[Command]:
    """The commands of a shell block (continuation lines joined) with their shown output."""
    out: list[Command] = []
    lines = block.code.split("\n")
    console = block.lang in ("console", "shell-session")
    i = 0
    while i < len(lines):
        line = lines[i]
        if console and not line.startswith("$ "):
            if out:
                out[-1].expected.append(line)
            i += 1
            continue
        cmd = line[2:] if console else line
        while cmd.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            cmd = cmd.rstrip()[:-1].rstrip() + " " + lines[i].strip()
        i += 1
        stripped = cmd.strip()
        if not stripped or stripped.startswith("#"):
            continue
        out.append(Command(stripped, []))
    return out


def runnable_parts(command: str) -> list[str]:
    """The parts of ``a && b`` that run: pip installs and servers are left out."""
    parts = [p.strip() for p in command.split("&&")]
    return [p for p in parts if p and not is_pip_install(p) and not is_server(p)]


def foreign(command: str) -> str | None:
    """The first word of a part that is not an nbayes or python command, if any."""
    for part in command.split("&&"):
        part = part.strip()
        if not part or is_pip_install(part):
            continue
        word = part.split()[0]
        if word not in RUNNABLE:
            return word
        if re.search(r"(^|\s)\S*benchmarks/", part):  # benchmarks never run in the tests
            return "benchmarks/"
    return None
