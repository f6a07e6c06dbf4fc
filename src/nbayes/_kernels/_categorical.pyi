# Types of the compiled module (_categorical.pyx) for mypy; arguments are NumPy arrays.
from typing import Any

DTYPES: frozenset[Any]

def value_range(X: Any, T: Any) -> tuple[Any, Any, Any]: ...
def count_values(X: Any, y: Any, w: Any, has_w: Any, K: Any, lo: Any, offsets: Any, width: Any, T: Any) -> Any: ...
