"""The README's two set-up commands stay true: CI runs the test one, the other names a file
that exists and a command that exists."""

import re
import shlex

from click.testing import CliRunner

from waiexport.cli import main

from _helpers import ROOT, with_extra


def _commands():
    readme = (ROOT / "README.md").read_text()
    return re.findall(r"```\n(python3 -m pip install[^\n]*)\n```", readme)[:2]


def test_ci_runs_the_readme_test_command():
    main_cmd, test_cmd = _commands()
    assert "pytest" in test_cmd
    assert test_cmd in (ROOT / ".ci" / "run").read_text()


@with_extra("onnxruntime", "ort")
def test_readme_main_command_runs():
    main_cmd, _ = _commands()
    args = shlex.split(main_cmd.split("&&")[1])
    assert args[0] == "waiexport"
    r = CliRunner().invoke(
        main, [a if not a.startswith("examples/") else str(ROOT / a) for a in args[1:]]
    )
    assert r.exit_code == 0, r.output
