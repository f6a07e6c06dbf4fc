"""``nbayes serve``: an HTTP prediction service (Starlette on uvicorn) and a web page that shows
why a model predicts what it does, word by word or feature by feature; with ``--learn``, a
service that learns and forgets (durably, behind a token).

>>> from nbayes.serve import create_app    # doctest: +SKIP
>>> app = create_app("spam.nbm")           # doctest: +SKIP

The web stack is an extra: ``pip install 'nbayes[serve]'``; the client functions
(:func:`learn`, :func:`unlearn`, :func:`model_info`) need only the standard library. See
``docs/serve.md``.
"""

from __future__ import annotations

from typing import Any

from .client import ServiceError, learn, model_info, unlearn

__all__ = ["create_app", "learn", "unlearn", "model_info", "ServiceError"]


def create_app(model_path: str, **options: Any) -> Any:
    """The ASGI app serving ``model_path``; see :func:`nbayes.serve.app.create_app`."""
    from .app import create_app as _create

    return _create(model_path, **options)
