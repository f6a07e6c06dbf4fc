"""The docs test's own machinery: markers are read, output is compared as it should be."""

from __future__ import annotations

from pathlib import Path

from ._driver import output_differs
from .blocks import blocks, commands, foreign, runnable_parts

PAGE = '''# A page

<!-- not run: needs a Dask cluster -->
```python
client = Client("tcp://scheduler:8786")
```

<!-- setup:
open("a.csv", "w").write("x,label\\n1,a\\n")
-->
```console
$ nbayes train a.csv --target label \\
    -o a.nbm
trained NaiveBayes on 1 rows, in 0.12 s -> a.nbm
$ python -m pip install . && nbayes demo
```

```
$ nbayes info a.nbm
```
'''


def test_markers_and_commands(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(PAGE, encoding="utf-8")
    found = blocks(page)
    assert [b.lang for b in found] == ["python", "console", ""]
    assert found[0].not_run == "needs a Dask cluster" and not found[0].runs
    assert found[1].setup.startswith('open("a.csv"') and found[1].runs
    cmds = commands(found[1])
    assert [c.command for c in cmds] == ["nbayes train a.csv --target label -o a.nbm",
                                         "python -m pip install . && nbayes demo"]
    assert cmds[0].expected == ["trained NaiveBayes on 1 rows, in 0.12 s -> a.nbm"]
    assert runnable_parts(cmds[1].command) == ["nbayes demo"]
    assert found[2].problems  # untagged commands must be tagged
    assert foreign("curl -s localhost:8000/healthz") == "curl"
    assert foreign("python benchmarks/serve.py") == "benchmarks/"
    assert foreign("nbayes predict m.nbm x.csv | head -4") is None


def test_output_comparison() -> None:
    actual = "columns of x:\ntrained NaiveBayes on 768 rows, in 2.09 s -> a.nbm\naccuracy 0.7487\n"
    assert output_differs(["trained NaiveBayes on 768 rows, in 1.47 s ->", "a.nbm"], actual) is None  # wrapped
    assert output_differs(["...", "accuracy 0.7487"], actual) is None
    assert output_differs(["accuracy 0.7591"], actual) is not None  # a drifted number
    assert output_differs(["accuracy 0.7487", "columns of x:"], actual) is not None  # order
