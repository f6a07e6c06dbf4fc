# Types of the compiled module (_arrow.pyx) for mypy; arguments are NumPy arrays.
from typing import Any

def gather_strings(src: Any, src_start: Any, length: Any, dst: Any, dst_start: Any) -> None: ...
