"""``python -m nbayes.cli``: the ``nbayes`` command."""

from . import main

main()
