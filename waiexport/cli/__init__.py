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

# Python's last collection at exit walks every object a command made, though the process's
# end frees them all (0.2–0.3 s of the main job, measured): frozen first, they are left to it.
# Exit handlers run last registered first, so every one registered after this import (numba's,
# multiprocessing's) has run by then.
atexit.register(gc.freeze)

#: Each command's name → (its module, the line ``waiexport --help`` shows for it).
COMMANDS = {
    "inspect": ("waiexport.cli.inspect", "Show a WHG1 graph: header, inputs, scalars, tensors, "
                                         "operators and planned shapes."),
    "check": ("waiexport.cli.check", "Does a set fit the accelerator subset, and if not, why?"),
    "rewrite": ("waiexport.cli.rewrite", "Rewrite a graph for a target with the exact rewrites "
                                         "of §9.3 and §9.4."),
    "export": ("waiexport.cli.export", "Export a graph to a model of integer tensors only, for "
                                       "a target."),
    "run": ("waiexport.cli.run", "Run decodes through a graph on the exact reference, or on its "
                                 "exported model."),
    "validate": ("waiexport.cli.validate", "Run conformance vectors on an engine, bit for bit, "
                                           "refusals included."),
    "vectors": ("waiexport.cli.vectors", "Conformance vectors (§14.1, §14.2): generate, check, "
                                         "pack."),
    "targets": ("waiexport.cli.targets", "Target descriptions: what an accelerator's units "
                                         "accept."),
    "lower": ("waiexport.cli.lower", "Lower a set in a registered form to canonical WHG1 graphs "
                                     "(§13)."),
    "examples": ("waiexport.cli.examples", "Example sets: make them, or run the main job on "
                                           "them."),
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
        try:
            code = self._main(*args, **kwargs)
        except (KeyboardInterrupt, click.Abort):
            _interrupted()
        except ImportError as e:     # an interrupt inside a C extension's import ends here
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
            fail(str(hint or command).replace("'", ""), "usage", "-",
                 f"{e.format_message()} (see '{command} --help')")
        except click.ClickException as e:
            fail("waiexport", "error", "-", e.format_message())


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
