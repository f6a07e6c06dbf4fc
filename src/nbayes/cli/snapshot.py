"""``nbayes snapshot``: the updates a learning service logged beside a model file, written into it."""

from __future__ import annotations

import click

from ..serve.updates import snapshot as write_snapshot
from ._output import emit
from ._paths import check_model_file


@click.command()
@click.argument("model_path", metavar="MODEL", type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON on stdout.")
def snapshot(model_path: str, as_json: bool) -> None:
    """Write the updates of MODEL.log (left by nbayes serve MODEL --learn) into MODEL now.

    \b
    The file is rewritten atomically with every acknowledged update of its log, and the log
    emptied, as the service's own snapshot does. Refused while a learning service (or another
    writer) holds the file: ask the service instead (POST /v1/snapshot). A log damaged in the
    middle is refused with its byte offset: see nbayes repair.

    \b
    Example:
      nbayes snapshot spam.nbm
    """
    check_model_file(model_path)
    result = write_snapshot(model_path)
    if as_json:
        emit(result)
    elif result["snapshot"]:
        click.echo(f"{model_path}: version {result['version']} written, {result['replayed']} update(s) of "
                   f"{model_path}.log in it; the log is empty")
    else:
        click.echo(f"{model_path}: version {result['version']} already holds every update; nothing written")
