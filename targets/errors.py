"""The ways an export or an engine says no, in one light module every part can import
(the command line among them, without loading an exporter or a runtime)."""

__all__ = [
    "ExportError",
    "DoesNotFit",
    "CompileError",
    "NotForEngine",
    "EngineUnavailable",
    "EngineFailure",
    "EngineCrashed",
    "EngineTimedOut",
]


class ExportError(ValueError):
    """An operator this exporter cannot map exactly onto the target."""


class DoesNotFit(ExportError):
    """The graph, rewritten, still breaks a limit of the target that no mapping handles."""


class CompileError(Exception):
    """A compiler run after a format (Vela, after TOSA) refused or failed the model: its own
    message; ``compiler`` names it, as the one-line error's code."""

    compiler = "compiler"


class NotForEngine(Exception):
    """The engine cannot run this graph (a provider that takes not every node): the vector is
    not for this engine, never a pass."""


class EngineUnavailable(Exception):
    """The engine cannot run on this machine at all (a provider that is not installed)."""


class EngineFailure(Exception):
    """The engine ran and reported an error of its own (a status other than success): that
    decode's failure, with the engine's message, never a pass."""

    @classmethod
    def said(cls, runtime: str, e) -> "EngineFailure":
        """``runtime``'s own error ``e`` (or its text) in one line: its first, cut at 300
        characters."""
        return cls(f"{runtime}: {(str(e).strip().splitlines() or [type(e).__name__])[0][:300]}")


class EngineCrashed(EngineFailure):
    """The engine's runtime died (an abort, a signal, a memory limit): that decode's result,
    ``crashed``, with the runtime's last message; the report goes on."""


class EngineTimedOut(EngineFailure):
    """The engine gave no answer within the time limit: that decode's result, ``timed out``;
    its worker is stopped and the report goes on."""
