"""The ``waiexport`` command line: one module per command (:data:`COMMANDS`), loaded only
when that command runs or shows its help, so ``waiexport --help`` imports none of them.

click is used for the commands: it gives help text, option parsing, exit code 2 on usage
errors and a test runner, which argparse would make us write by hand.
"""

from __future__ import annotations

import atexit
import gc
import sys
from importlib import import_module

import click

from waiexport import __version__

__all__ = ["main", "COMMANDS"]

#: New objects between two of the cycle collector's young collections in a command's process
#: (Python's default is 700).
YOUNG = 100_000

#: Each command's name → (its module, the line ``waiexport --help`` shows for it).
COMMANDS = {
    "inspect": (
        "waiexport.cli.inspect",
        "Show a WHG1 graph: header, inputs, scalars, tensors, operators and planned shapes.",
    ),
    "check": ("waiexport.cli.check", "Does a set fit the accelerator subset, and if not, why?"),
    "rewrite": (
        "waiexport.cli.rewrite",
        "Rewrite a graph for a target with the exact rewrites of §9.3 and §9.4.",
    ),
    "export": (
        "waiexport.cli.export",
        "Export a graph to a model of integer tensors only, for a target.",
    ),
    "run": (
        "waiexport.cli.run",
        "Run decodes through a graph on the exact reference, or on its exported model.",
    ),
    "validate": (
        "waiexport.cli.validate",
        "Run conformance vectors on an engine, bit for bit, refusals included.",
    ),
    "vectors": (
        "waiexport.cli.vectors",
        "Conformance vectors (§14.1, §14.2): generate, check, pack.",
    ),
    "targets": (
        "waiexport.cli.targets",
        "Target descriptions: what an accelerator's units accept.",
    ),
    "lower": (
        "waiexport.cli.lower",
        "Lower a set in a registered form to canonical WHG1 graphs (§13).",
    ),
    "fuzz": (
        "waiexport.cli.fuzz",
        "Random graphs against an engine: each difference reduced, kept as a bug bundle.",
    ),
    "matrix": (
        "waiexport.cli.matrix",
        "Validate reports of several engines as one HTML page of operators by engines.",
    ),
    "examples": ("waiexport.cli.examples", "Example sets: make them, or run the main job on them."),
    "jpegai": ("waiexport.cli.jpegai", "The wai.image.jpegai entropy path (§13.6.1)."),
}


class _Cli(click.Group):
    """The command group: commands loaded from :data:`COMMANDS` when asked for, and a mistake
    click catches (a bad option value, a missing argument) ending in one line too, not a
    usage block."""

    def list_commands(self, ctx):
        return list(COMMANDS)

    def get_command(self, ctx, name):
        if name not in COMMANDS:
            return None
        return import_module(COMMANDS[name][0]).command

    def format_commands(self, ctx, formatter):
        with formatter.section("Commands"):
            formatter.write_dl([(name, text) for name, (_, text) in COMMANDS.items()])

    def main(self, *args, **kwargs):
        kwargs.pop("standalone_mode", None)
        _collector_for_one_command()
        try:
            code = self._main(*args, **kwargs)
        except (KeyboardInterrupt, click.Abort):
            _interrupted()
        except ImportError as e:  # an interrupt inside a C extension's import ends here
            if _cause(e, KeyboardInterrupt):
                _interrupted()
            raise
        sys.exit(code if isinstance(code, int) else 0)

    def _main(self, *args, **kwargs):
        """click's main without its own handling, and every mistake click catches in one
        line (the heavy modules, the commands' own, are imported in here, under the caller's
        handling of an interrupt)."""
        from .common import fail

        try:
            return super().main(*args, standalone_mode=False, **kwargs)
        except click.exceptions.NoArgsIsHelpError as e:
            click.echo(e.ctx.get_help())
            sys.exit(2)
        except click.UsageError as e:
            hint = getattr(e, "param_hint", None)
            if isinstance(hint, (list, tuple)):
                hint = " / ".join(hint)
            command = e.ctx.command_path if e.ctx else "waiexport"
            fail(
                str(hint or command).replace("'", ""),
                "usage",
                "-",
                f"{e.format_message()} (see '{command} --help')",
            )
        except click.ClickException as e:
            fail("waiexport", "error", "-", e.format_message())


def _collector_for_one_command() -> None:
    """Python's cycle collector set for a process that runs a command and ends. Its young
    collections come after :data:`YOUNG` new objects: at 700, the imports' and the loads'
    objects pushed full collections, each walking every object there is (the main job 1.71 s
    against 1.64 s, measured). What is left at exit is frozen, not walked once more by
    Python's last collection (0.4 s of the main job), for the process's end frees it all:
    exit handlers run last registered first, so those registered after this (numba's,
    multiprocessing's) have run by then."""
    if gc.get_threshold()[0] < YOUNG:
        gc.set_threshold(YOUNG, *gc.get_threshold()[1:])
    if not getattr(_collector_for_one_command, "registered", False):
        atexit.register(gc.freeze)
        _collector_for_one_command.registered = True


def _cause(e: BaseException, kind) -> bool:
    """Whether ``e`` was raised while handling, or because of, an exception of ``kind``."""
    seen = set()
    while e is not None and id(e) not in seen:
        if isinstance(e, kind):
            return True
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return False


def _interrupted() -> None:
    """An interrupt (Ctrl-C), wherever it came: one line and exit 130 (128 + SIGINT)."""
    click.echo("waiexport: interrupted", err=True)
    sys.exit(130)


@click.group(cls=_Cli, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="waiexport")
def main():
    """Check, export and validate exact-integer networks (wai-ops/1).

    Every refusal prints its spec code (model_mismatch, too_large, field_range,
    geometry_mismatch, ...) with where and why on one line, and exits 2.
    """
