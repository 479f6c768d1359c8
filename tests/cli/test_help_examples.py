"""Every command's ``--help`` example runs as written, from the repository's root, on the
bundled files (what it writes under ``/tmp/`` goes to a temporary folder instead)."""

import re
import shlex

import click
import pytest
from click.testing import CliRunner

from waiexport.cli import COMMANDS, main

from _helpers import ROOT, with_extra


def _commands() -> list[str]:
    out = []
    for name in COMMANDS:
        cmd = main.get_command(None, name)
        out += [f"{name} {sub}" for sub in cmd.commands] if isinstance(cmd, click.Group) else [name]
    return out


def _example(command: str) -> str:
    text = CliRunner().invoke(main, [*command.split(), "--help"]).output
    found = re.search(r"Example: (waiexport .*?)(?:\n\s*\n|\nOptions:)", text, re.S)
    assert found, (command, text)
    return " ".join(found.group(1).split())


#: The README's main command (tests/cli/test_readme.py runs it), not run twice.
README_RUNS = {"examples run"}


@pytest.mark.parametrize("command", [c for c in _commands() if c not in README_RUNS])
@with_extra("onnxruntime", "ort")
def test_every_help_example_runs_on_the_bundled_files(command, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    args = shlex.split(_example(command).replace("/tmp/", f"{tmp_path}/"))
    assert args[0] == "waiexport" and " ".join(args[1:3]).startswith(command)
    r = CliRunner().invoke(main, args[1:])
    assert r.exit_code == 0, (args, r.output)
