"""An engine in a worker process of its own: a runtime's abort, signal, hang or runaway
memory ends that decode, not the report. The worker is ``python -m
waiexport.targets.engines.worker``; it makes the engine by name (:func:`..engine`) and
answers requests on its standard input and output (length-prefixed pickles): the first
makes the engine from where its class (or a plug-in's factory) lives, ``module:name``, and
its arguments. What the runtime writes to standard error goes to a file whose last lines
name a crash.

:class:`Isolated` stands for the engine in the parent: the same interface, each call sent to
the worker under a time limit, the worker's memory watched against a limit, a worker that
died restarted (and the graphs it had loaded loaded again) for the next call.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time
import weakref

from ..errors import EngineCrashed, EngineFailure, EngineTimedOut
from .base import Engine, Loaded, described

__all__ = ["Isolated", "TIME_LIMIT", "MEMORY_LIMIT"]

#: The default limits of one call: seconds, and bytes of the worker's resident memory.
TIME_LIMIT = 300.0
MEMORY_LIMIT = 8 << 30
#: Seconds a worker may take to start (its imports, making the engine), whatever a call's
#: limit: on a loaded machine a start can take longer than a short limit on a decode.
START_LIMIT = 120.0


def _send(stream, obj) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack("<Q", len(data)) + data)
    stream.flush()


def _recv(stream):
    head = stream.read(8)
    if len(head) < 8:
        raise EOFError
    (n,) = struct.unpack("<Q", head)
    data = stream.read(n)
    if len(data) < n:
        raise EOFError
    return pickle.loads(data)


def _rss(pid: int) -> int:
    """A process's resident memory in bytes (0 where it cannot be read)."""
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


class Isolated(Engine):
    """The engine ``name``, made from ``where`` (``module:name``) with ``args``, in a worker
    process (see the module)."""

    def __init__(self, name: str, where: str, args: dict | None = None,
                 time_limit: float = TIME_LIMIT, memory_limit: int = MEMORY_LIMIT):
        self.name, self._where, self._args = name, where, dict(args or {})
        self.time_limit, self.memory_limit = time_limit, memory_limit
        self._proc = None
        self._loaded: dict = {}      # digest → bytes, to load again after a restart
        self._in_worker: set = set()
        self._probed = None
        info = self._call(("make", where, self._args), START_LIMIT)
        self.profile, self.subset, self.target = info["profile"], info["subset"], info["target"]
        self.provider = info.get("provider")
        self._probed = self._probe(info["probes"])
        self._describe = self._call(("describe",))
        if info["stage"]:
            self.stage = lambda op, inp, modes: self._call(("stage", op, inp, modes))

    def _probe(self, names: list) -> dict | None:
        """Each probe run in the worker alone, so a runtime that crashes or hangs on one has
        that probe's answer, "crashed", and the worker is started again for the next."""
        if not names:
            return None
        found = {}
        for name in names:
            try:
                found[name] = self._call(("probe", name))
            except (EngineCrashed, EngineTimedOut) as e:
                found[name] = f"{name}: {e}"
        self._request(("probed", found), START_LIMIT)
        return found

    def describe(self) -> dict:
        return {**described(self._describe), "isolation": (
            f"in a worker process of its own, each call limited to {self.time_limit:g} s and "
            f"{self.memory_limit / 2**30:g} GiB of resident memory")}

    # --- the worker ---------------------------------------------------------------------
    def _start(self) -> None:
        self._log = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "waiexport.targets.engines.worker"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self._log, start_new_session=True)
        self._kill = weakref.finalize(self, _kill, self._proc)   # also at interpreter exit
        self._in_worker = set()
        if getattr(self, "profile", None) is not None:       # a restart: make it again
            self._request(("make", self._where, self._args), START_LIMIT)
            if self._probed is not None:
                self._request(("probed", self._probed), START_LIMIT)

    def _said(self) -> str:
        """The last lines the worker's runtime wrote to standard error."""
        self._log.seek(0)
        lines = [line.strip() for line in self._log.read().decode("utf-8", "replace")
                 .splitlines() if line.strip()]
        return " | ".join(lines[-3:])[-400:] or "no message"

    def _stop(self) -> None:
        if self._proc is not None:
            self._kill()
        self._proc = None

    def _request(self, message, time_limit: float | None = None):
        """Send ``message`` and wait for the answer, within the limits (``time_limit``
        where given, else the call's)."""
        _send(self._proc.stdin, message)
        time_limit = max(time_limit or 0, self.time_limit)
        deadline = time.monotonic() + time_limit
        out = self._proc.stdout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self._stop()
                raise EngineTimedOut(f"no answer within {time_limit:g} s; the worker was "
                                     "stopped")
            ready, _, _ = select.select([out], [], [], min(left, 0.2))
            if ready:
                break
            if self._proc.poll() is not None:
                break
            if _rss(self._proc.pid) > self.memory_limit:
                self._stop()
                raise EngineCrashed(f"its memory passed {self.memory_limit / 2**30:g} GiB; the "
                                    "worker was stopped")
        try:
            kind, value = _recv(out)
        except (EOFError, OSError, pickle.UnpicklingError):
            code = self._proc.wait()
            said = self._said()
            self._proc = None
            how = f"killed by signal {signal.Signals(-code).name}" if code < 0 else \
                f"exited with status {code}"
            raise EngineCrashed(f"the runtime's process {how}: {said}") from None
        if kind == "error":
            raise value
        return value

    def _call(self, message, time_limit: float | None = None):
        if self._proc is None or self._proc.poll() is not None:
            self._start()
        return self._request(message, time_limit)

    # --- the engine ---------------------------------------------------------------------
    def load(self, data: bytes) -> Loaded:
        import hashlib
        key = hashlib.sha256(data).hexdigest()
        graph, unclaimable = self._call(("load", key, data))
        self._loaded[key] = data
        self._in_worker.add(key)

        def run(inputs, scalars):
            if self._proc is None or key not in self._in_worker:   # restarted since
                self._call(("load", key, self._loaded[key]))
                self._in_worker.add(key)
            return self._call(("run", key, [i for i in inputs], list(scalars)))
        return Loaded(graph, run, lambda i, s: self._call(("run_all", key, list(i), list(s))),
                      unclaimable=unclaimable)


def _kill(proc) -> None:
    """Stop a worker and its children (its own session), if it still runs."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()


def _kinds() -> tuple:
    from waiexport.refusal import Refusal

    from ..errors import EngineUnavailable, ExportError, NotForEngine
    return Refusal, EngineFailure, EngineUnavailable, ExportError, NotForEngine


def _serve() -> None:
    """The worker's loop: requests on standard input, answers on standard output."""
    from importlib import import_module
    global _THEIRS
    _THEIRS = _kinds()
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr       # what the runtime prints must not break the answers
    eng, loaded = None, {}
    while True:
        try:
            message = _recv(stdin)
        except EOFError:
            return
        try:
            if message[0] == "make":
                module, attr = message[1].split(":")
                eng = getattr(import_module(module), attr)(**message[2])
                value = {"profile": eng.profile, "subset": eng.subset, "target": eng.target,
                         "provider": getattr(eng, "provider", None),
                         "probes": list(eng.probes()) if hasattr(eng, "probes") else [],
                         "stage": hasattr(eng, "stage")}
            elif message[0] == "probe":
                value = eng.probe_one(message[1])
            elif message[0] == "probed":
                eng._probed, value = message[1], None
            elif message[0] == "describe":
                value = eng.describe()
            elif message[0] == "load":
                loaded[message[1]] = eng.load(message[2])
                value = loaded[message[1]].graph, loaded[message[1]].unclaimable
            elif message[0] == "run":
                value = loaded[message[1]].run(message[2], message[3])
            elif message[0] == "run_all":
                run_all = loaded[message[1]].run_all
                value = None if run_all is None else run_all(message[2], message[3])
            else:
                value = eng.stage(*message[1:])
            _send(stdout, ("ok", value))
        except Exception as e:   # the parent judges the engine's own kinds of no; any other
            if not isinstance(e, _THEIRS):     # error is the runtime failing that call
                e = EngineFailure(f"{type(e).__name__}: {str(e)[:300]}")
            try:
                pickle.dumps(e)
            except Exception:
                e = EngineFailure(f"{type(e).__name__}: {str(e)[:300]}")
            _send(stdout, ("error", e))


if __name__ == "__main__":
    _serve()
