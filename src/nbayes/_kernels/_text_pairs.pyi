# Types of the compiled module (_text_pairs.pyx) for mypy; arguments are NumPy arrays and tuples of them.
from typing import Any

def score_rows(d0: int, d1: int, buf: Any, bounds: Any, is_word: Any, lo_n: int, hi_n: int, stop: Any, n_features: int,
               terms: Any, indptr: Any, cls: Any, delta: Any, base: Any, row: Any, rows: Any, binary: bool, out: Any,
               last: Any) -> None: ...
def presence_block(buf: Any, bounds: Any, is_word: Any, lo_n: int, hi_n: int, stop: Any, n_features: int, terms: Any,
                   n_terms: int) -> tuple[Any, Any]: ...
