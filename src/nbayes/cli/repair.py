"""``nbayes repair``: an update log damaged in the middle cut back to its valid records."""

from __future__ import annotations

import click

from ..serve.updates import repair as repair_log
from ._output import emit
from ._paths import check_model_file


@click.command()
@click.argument("model_path", metavar="MODEL", type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON on stdout.")
def repair(model_path: str, as_json: bool) -> None:
    """Recover what is valid of a damaged MODEL.log: copy it aside, keep the records before the damage.

    \b
    A learning service refuses to start on a log with a damaged record followed by valid ones
    (corruption, not an interrupted append), naming the byte offset. This copies the whole log
    to MODEL.log.damaged-<time>, keeps the valid records before the damage, and reports what it
    drops (bytes, and the versions of valid records found after the damage: each update builds
    on the ones before it, so they cannot be kept). Refused while a service holds the file.

    \b
    Example:
      nbayes repair spam.nbm
    """
    check_model_file(model_path)
    report = repair_log(model_path)
    if as_json:
        emit(report)
        return
    if not report["repaired"]:
        click.echo(f"{report['log']}: nothing to repair ({report['reason']})")
        return
    lost = report["lost_versions"]
    click.echo(f"{report['log']}: damaged at byte {report['damaged_at']}; kept {report['kept']} record(s)"
               + (f" (versions {report['kept_versions'][0]}-{report['kept_versions'][1]})" if report.get("kept_versions") else "")
               + f", dropped {report['dropped_bytes']:,} bytes"
               + (f" holding valid records of versions {', '.join(map(str, lost))}" if lost else "")
               + f"; the whole log is in {report['copy']}")
