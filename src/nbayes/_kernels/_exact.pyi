# Types of the compiled module (_exact.pyx) for mypy; arguments are NumPy arrays.
from typing import Any

OUT: int

def canonical(parts: Any) -> tuple[Any, Any]: ...
def moment_cells(aw: Any, amean: Any, am2: Any, as1: Any, as2: Any, a_sums: bool, bw: Any, bmean: Any, bm2: Any,
                 bs1: Any, bs2: Any, b_sums: bool, W: Any, sign: float) -> dict[str, Any]: ...
