"""The ``targets`` commands: the target descriptions, listed and shown."""

from __future__ import annotations


import click

from waiexport.jsonio import ascii_text, report_json

from .common import target_named


@click.group("targets")
def targets():
    """Target descriptions: what an accelerator's units accept."""


@targets.command("list")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print [{engine, format, name, summary}] as canonical JSON.",
)
def targets_list(as_json):
    """Name every target with a line about it.

    \b
    Exit status: 0.
    Example: waiexport targets list
    """
    from waiexport.descriptions import TARGETS

    if as_json:
        click.echo(
            report_json(
                [
                    {"engine": t.engine, "format": t.fmt, "name": t.name, "summary": t.summary}
                    for t in TARGETS.values()
                ]
            )
        )
        return
    for t in TARGETS.values():
        click.echo(f"{t.name:<14} {t.summary}")


@targets.command("show")
@click.argument("name")
@click.option(
    "--json", "as_json", is_flag=True, help="Print the description's fields as canonical JSON."
)
def targets_show(name, as_json):
    """Print target NAME's supported-operators report.

    \b
    Exit status: 0; 2 for an unknown target.
    Example: waiexport targets show tosa
    """
    import dataclasses

    t = target_named(name, given_as="NAME")
    fields = {k: v for k, v in dataclasses.asdict(t).items() if k != "options"}
    fields.update(dataclasses.asdict(t.options))  # one object, as the report says them
    click.echo(
        report_json(
            {
                _KEYS.get(k, k): [ascii_text(str(x)) for x in v]
                if isinstance(v, tuple)
                else ascii_text(v)
                if isinstance(v, str)
                else v
                for k, v in fields.items()
            }
        )
        if as_json
        else t.report()
    )


#: A description's field → its key in JSON, where the two differ (``targets list`` says
#: ``format`` too).
_KEYS = {"fmt": "format"}

command = targets
