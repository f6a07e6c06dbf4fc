"""JSON in and out of ``nbayes serve``: strict parsing of request bodies (RFC 8259, no NaN, no
number beyond float64, every string valid Unicode) and answers that never fail to encode."""

from __future__ import annotations

import json
import math
from typing import Any

from ._model import Problem
from ._requests import bad_strings

try:  # faster JSON when it is there; the standard library otherwise
    import orjson

    HAVE_ORJSON = True
except ImportError:  # pragma: no cover - depends on the environment
    HAVE_ORJSON = False

def dumps(obj: Any) -> bytes:
    """JSON bytes; what orjson cannot write (an integer beyond 64 bits, a lone surrogate in a
    model file written elsewhere) is written by the standard library, escaped, never a 500."""
    if HAVE_ORJSON:
        try:
            result: bytes = orjson.dumps(obj)
            return result
        except TypeError:
            pass
    try:
        return json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()
    except UnicodeEncodeError:
        return json.dumps(obj, allow_nan=False, separators=(",", ":")).encode()


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(s: str) -> float:
    v = float(s)
    if not math.isfinite(v):
        raise ValueError(f"number {s[:24]} is out of range")
    return v


def _finite_int(s: str) -> int:
    v = int(s)
    try:
        float(v)
    except OverflowError:
        raise ValueError(f"number {s[:24]}... is out of range") from None
    return v


#: magnitude from which orjson may have read an integer as a float (beyond 64 bits)
_BIG = 2.0**63


def _big_float(obj: Any) -> bool:
    """Whether ``obj`` (parsed JSON) holds a float of magnitude 2**63 or more: where orjson read
    an integer beyond 64 bits as the nearest float. A walk of the parsed values (a text body's
    few strings cost nothing; a regex over the raw body cost a learn request of 10 posts more
    than orjson's parse)."""
    todo = [obj]
    while todo:
        x = todo.pop()
        items = x.values() if type(x) is dict else x if type(x) is list else (x,)
        for v in items:
            t = type(v)
            if t is float:
                if not -_BIG < v < _BIG:
                    return True
            elif t is list or t is dict:
                todo.append(v)
    return False


def loads(raw: bytes) -> Any:
    """Strict JSON (RFC 8259: no NaN or Infinity) or a 400 saying where it broke."""
    try:
        if HAVE_ORJSON:
            try:
                parsed = orjson.loads(raw)
                if not _big_float(parsed):
                    return _strings(parsed)
                # orjson reads an integer beyond 64 bits as the nearest float: the standard parser
                # keeps it exact, so a value beyond a feature's bound is refused as the schema says
            except orjson.JSONDecodeError:  # the standard parser's message says where it broke
                pass
        parsed = json.loads(raw.decode("utf-8"), parse_constant=_no_constant, parse_float=_finite_float,
                            parse_int=_finite_int)
    except UnicodeDecodeError as exc:
        raise Problem(400, f"the body is not UTF-8 (byte {exc.start})") from None
    except RecursionError:
        raise Problem(400, "the body is not valid JSON (nested too deeply)") from None
    except ValueError as exc:
        raise Problem(400, f"the body is not valid JSON ({exc})") from None
    return _strings(parsed)


def _strings(parsed: Any) -> Any:
    """``parsed``, or a 422 naming its first string that no model file or answer can hold."""
    bad = bad_strings(parsed)
    if bad is not None:
        raise Problem(422, bad)
    return parsed
