"""MkDocs hooks: the pages generated from the code's own data, so they cannot drift from it.
``<!-- targets -->`` becomes every target description's supported-operators report
(``waiexport targets show NAME``), ``<!-- engines -->`` the engine registry's table."""

from __future__ import annotations


def _targets() -> str:
    from waiexport.descriptions import TARGETS

    return "\n".join(f"## `{name}`\n\n```\n{t.report()}\n```\n" for name, t in TARGETS.items())


def _engines() -> str:
    from waiexport.targets.engines import declared

    rows = [f"| `{e.name}` | {e.help} |" for e in declared()]
    return "\n".join(["| engine | what it runs |", "|---|---|", *rows])


def on_page_markdown(markdown: str, page, config, files) -> str:
    """The page with its markers replaced by what the code holds."""
    if "<!-- targets -->" in markdown:
        markdown = markdown.replace("<!-- targets -->", _targets())
    if "<!-- engines -->" in markdown:
        markdown = markdown.replace("<!-- engines -->", _engines())
    return markdown
