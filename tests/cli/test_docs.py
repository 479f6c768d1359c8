"""The documentation holds what the code says: the README stays short, the MkDocs site builds
strictly (every link and reference resolved), each command's page lists the options and the
exit codes its ``--help`` gives, and every Python example in the README and the docs runs
from a folder other than the checkout."""

import html
import os
import re
import subprocess
import sys
from importlib import import_module

import click
import pytest

from waiexport.cli import COMMANDS

from _helpers import ROOT, needs

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def test_the_readme_is_at_most_200_lines():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 200


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    needs("mkdocs", "docs")
    out = tmp_path_factory.mktemp("site")
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "-f",
            str(ROOT / "mkdocs.yml"),
            "-d",
            str(out),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert r.returncode == 0, r.stderr[-3000:]
    return out


def test_the_site_builds_strictly(site):
    assert (site / "index.html").exists() and (site / "api" / "index.html").exists()


def _text(page) -> str:
    """A built page's text: tags dropped, entities read, white space as single spaces."""
    raw = re.sub(r"<[^>]+>", " ", page.read_text())
    return " ".join(html.unescape(raw).split())


def _commands(cmd: click.Command, name: str):
    """``cmd`` and, for a group, each of its subcommands, with their names."""
    yield name, cmd
    for sub, c in getattr(cmd, "commands", {}).items():
        yield from _commands(c, f"{name} {sub}")


@pytest.mark.parametrize("command", list(COMMANDS))
def test_each_command_page_lists_the_options_and_exit_codes_help_gives(site, command):
    page = _text(site / "commands" / command / "index.html")
    for name, cmd in _commands(import_module(COMMANDS[command][0]).command, command):
        for param in cmd.params:
            for opt in param.opts if isinstance(param, click.Option) else []:
                assert opt in page, f"{name}: {opt} missing from its page"
        exits = re.search(r"Exit status:.*?(?=\n\s*\n|\Z)", cmd.help or "", re.S)
        if exits:
            assert " ".join(exits.group(0).split()) in page, f"{name}: its exit status"


def _examples(path) -> str:
    return "\n".join(re.findall(r"```python\n(.*?)```", path.read_text(), re.S))


@pytest.mark.parametrize(
    "page", [p for p in PAGES if "```python" in p.read_text()], ids=lambda p: p.name
)
def test_each_page_s_python_examples_run_from_another_folder(page, tmp_path):
    needs("onnxruntime", "ort")
    r = subprocess.run(
        [sys.executable, "-c", _examples(page)], capture_output=True, text=True, cwd=tmp_path
    )
    assert r.returncode == 0, r.stderr[-3000:]
