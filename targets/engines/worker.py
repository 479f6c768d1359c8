"""An engine in a worker process of its own: a runtime's abort, signal, hang or runaway
memory ends that decode, not the report. The worker is ``python -m
waiexport.targets.engines.worker``, started by its keeper (:mod:`.keeper`); it makes the
engine by name (:func:`..engine`) and answers requests on its standard input and output
(length-prefixed pickles): the first makes the engine from where its class (or a
plug-in's factory) lives, ``module:name``, and its arguments. What the runtime writes to
standard error, or to standard output from its native code, goes to a pipe that the parent
reads as it waits, keeping its last bytes, whose last lines name a crash.

The parent reads an answer as what it is, bytes a runtime it does not trust could have
written: within the call's time and memory limits, and unpickled with only what an answer
holds to be found (:class:`_Answer`), since unpickling calls what the bytes name.

:class:`Isolated` stands for the engine in the parent: the same interface, each call sent to
the worker under a time limit, the worker's memory watched against a limit, a worker that
died restarted (and the graphs it had loaded loaded again) for the next call. The keeper,
in a session of its own, is the parent of every process the runtime starts whose own parent
ended, so each of them, whatever session it moved to, counts in the worker's memory and is
stopped with it: a runtime's helper processes do not outlive the worker, nor do they or
the worker outlive a parent killed outright (the keeper stops them). The worker is such a
parent too, so where a runtime kills the keeper, what it started is still the worker's, which
stops it and itself (:func:`_watch`).
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import threading
import time
import weakref
from importlib import import_module
from math import prod

import numpy as np
from waiexport.reference.stage import Refusal, StageRefusal

from waiexport import write
from waiexport.caches import note, swept
from waiexport.load import read_member
from waiexport.plan import run_plan

from .. import errors
from ..errors import EngineCrashed, EngineFailure, EngineTimedOut
from . import contain, keeper
from .base import Engine, Loaded, described
from .keeper import end, family, subreap

__all__ = ["Isolated", "TIME_LIMIT", "MEMORY_LIMIT"]

#: The default limits of one call: seconds, and bytes of the worker's resident memory.
TIME_LIMIT = 300.0
MEMORY_LIMIT = 8 << 30
#: Seconds a worker may take to start (its imports, making the engine), whatever a call's
#: limit: on a loaded machine a start can take longer than a short limit on a decode.
START_LIMIT = 120.0
#: How many of the last bytes a worker wrote to standard error are kept, for a crash's message.
SAID = 4096
#: How many of a worker's own notes on standard error are passed on (:meth:`Isolated._heard`).
NOTES = 20
#: Seconds between two looks at a worker's memory while the parent waits on it.
WATCH = 0.05


def _framed(obj) -> bytes:
    """``obj`` as one message: its pickle's length, then the pickle."""
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return struct.pack("<Q", len(data)) + data


def _send(stream, obj) -> None:
    """The worker's answer."""
    stream.write(_framed(obj))
    stream.flush()


def _recv(stream):
    """The parent's request, in the worker."""
    head = stream.read(8)
    if len(head) < 8:
        raise EOFError
    (n,) = struct.unpack("<Q", head)
    data = stream.read(n)
    if len(data) < n:
        raise EOFError
    return pickle.loads(data)


#: What an answer may name besides plain values (text, numbers, bytes, containers): numpy's
#: arrays, dtypes and scalars by the functions that rebuild them, a graph's and a target's
#: classes (those defined in these modules) and the engine's kinds of no (:func:`_kinds`).
_NUMPY = {
    (f"numpy{core}.{module}", name)
    for core in (".core", "._core")
    for module, name in (
        ("multiarray", "_reconstruct"),
        ("multiarray", "scalar"),
        ("numeric", "_frombuffer"),
    )
} | {("numpy", "ndarray"), ("numpy", "dtype")}
_DATA = {
    "waiexport.graph",
    "waiexport.params",
    "waiexport.descriptions",
    *(
        f"networkx.classes.{m}"
        for m in ("graph", "digraph", "multigraph", "multidigraph", "coreviews", "reportviews")
    ),
}


class _Answer(pickle.Unpickler):
    """A worker's answer, read in the parent. Unpickling calls what the bytes name, so a
    runtime in the worker could otherwise run code here (make the judge pass what
    differs): only :data:`_NUMPY`, a class defined in a module of :data:`_DATA`, or one of
    the engine's kinds of no is found; any other name is ``pickle.UnpicklingError``."""

    def find_class(self, module: str, name: str):
        if (module, name) in _NUMPY or (module, name) in _kind_names():
            return super().find_class(module, name)
        if module in _DATA and "." not in name:
            found = getattr(
                sys.modules.get(module) or __import__(module, fromlist=[name]), name, None
            )
            if isinstance(found, type) and found.__module__ == module:
                return found
        raise pickle.UnpicklingError(f"it names {module[:60]}.{name[:60]}, which no answer holds")


def _rss(pid: int) -> int:
    """The resident memory in bytes of keeper ``pid``'s family (:func:`.keeper.family`: the
    keeper, its worker and every process the runtime started; those that cannot be read
    count nothing)."""
    total = 0
    for p in family(pid):
        try:
            with open(f"/proc/{p}/statm") as f:
                total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, IndexError):
            pass
    return total


#: What the worker's answer to making the engine holds.
_MADE = {"profile", "subset", "target", "provider", "probes", "stage"}


class _Unread(Exception):
    """A worker's answer that the parent does not read, and why."""


class Isolated(Engine):
    """The engine ``name``, made from ``where`` (``module:name``) with ``args``, in a worker
    process (see the module)."""

    def __init__(
        self,
        name: str,
        where: str,
        args: dict | None = None,
        time_limit: float = TIME_LIMIT,
        memory_limit: int = MEMORY_LIMIT,
    ):
        self.name, self._where, self._args = name, where, dict(args or {})
        self.time_limit, self.memory_limit = time_limit, memory_limit
        self._proc, self._watched = None, 0.0
        self._loaded: dict = {}  # digest → bytes, to load again after a restart
        self._in_worker: set = set()
        self._probed = None
        info = self._call(("make", where, self._args), START_LIMIT, SMALL)
        if not (
            type(info) is dict
            and _MADE <= info.keys()
            and type(info["probes"]) is list
            and all(type(n) is str for n in info["probes"])
        ):
            self._stop()
            raise EngineFailure("its worker's answer to making the engine is not an engine's")
        self.profile, self.subset, self.target = info["profile"], info["subset"], info["target"]
        self.provider = info["provider"]
        self._probed = self._probe(info["probes"])
        self._describe = self._call(("describe",), most=SMALL)
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
                said = self._call(("probe", name), most=SMALL)
                found[name] = (
                    said
                    if said is None or type(said) is str
                    else f"{name}: its worker's answer is not a probe's"
                )
            except (EngineCrashed, EngineTimedOut) as e:
                found[name] = f"{name}: {e}"
        self._request(("probed", found), START_LIMIT)
        return found

    def describe(self) -> dict:
        return {
            **described(self._describe),
            "isolation": (
                f"in a worker process of its own, {self._held()}, each call limited to "
                f"{self.time_limit:g} s and {self.memory_limit / 2**30:g} GiB of memory"
            ),
        }

    def _held(self) -> str:
        """Which mechanisms hold the worker's processes and count their memory, as they
        stand for the worker now running."""
        self._live()
        pid = self._proc.pid
        ns = _namespaced(pid)
        cg = self._cgroup is not None and contain.holds(self._cgroup, pid)
        return (
            "in a PID namespace of its own (when its first process ends, the kernel ends "
            "every process in it)"
            if ns
            else "under a keeper that is the subreaper of "
            "all it starts (processes that leave its tree can escape it)"
        ) + (
            ", in a memory cgroup of its own (its processes' anonymous and shared memory "
            "counted, memfds included)"
            if cg
            else ", memory counted as the resident sets "
            "of the processes it can see (shared memory held by no process is not)"
        )

    # --- the worker ---------------------------------------------------------------------
    def _start(self) -> None:
        self._cgroup = contain.new()
        try:
            self._proc = subprocess.Popen(
                [
                    sys.executable,
                    "-I",
                    "-S",
                    keeper.__file__,
                    str(os.getpid()),
                    str(self._cgroup or "-"),
                    *_argv(),
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as e:  # out of processes, files or memory
            if self._cgroup is not None:
                contain.end(self._cgroup)
            raise EngineFailure(f"its worker could not be started: {e.strerror or e}") from None
        self._err, self._tail, self._line, self._notes = self._proc.stderr.fileno(), b"", b"", 0
        os.set_blocking(self._err, False)
        self._kill = weakref.finalize(self, _kill, self._proc, self._cgroup)  # at exit too
        self._in_worker = set()
        if getattr(self, "profile", None) is not None:  # a restart: make it again
            self._request(("make", self._where, self._args), START_LIMIT)
            if self._probed is not None:
                self._request(("probed", self._probed), START_LIMIT)

    def _said(self) -> str:
        """The last lines the worker's runtime wrote to standard error: of its last
        :data:`SAID` bytes, however much it wrote."""
        self._heard()
        lines = [
            line.strip()
            for line in self._tail.decode("utf-8", "replace").splitlines()
            if line.strip()
        ]
        return " | ".join(lines[-3:])[-400:] or "no message"

    def _heard(self) -> None:
        """What the worker wrote to standard error since last read, of which its last
        :data:`SAID` bytes are kept: a runtime that writes without end costs the parent no
        memory and no disk. At most 1 MiB a time, so a call's wait still sees its deadline."""
        for _ in range(16):
            if self._err is None:
                return
            try:
                chunk = os.read(self._err, 1 << 16)
            except BlockingIOError:
                return
            if not chunk:
                self._err = None
                return
            self._tail = (self._tail + chunk)[-SAID:]
            self._pass_on(chunk)

    def _pass_on(self, chunk: bytes) -> None:
        """Write this toolchain's own notes among what the worker wrote to standard error
        (lines that begin ``waiexport: ``, such as a cache file built again) to this
        process's standard error, each once (:func:`waiexport.caches.note`), at most
        :data:`NOTES` of them a worker, each cut at 400 characters."""
        lines = (self._line + chunk).split(b"\n")
        self._line = lines.pop()[-1024:]
        for line in lines:
            if line.startswith(b"waiexport: ") and self._notes < NOTES:
                self._notes += 1
                note(line.decode("utf-8", "replace")[:400])

    def _ready(self, fd: int, writing: bool, deadline: float) -> bool:
        """Whether the worker's ``fd`` is ready, to write to where ``writing`` or else to read
        from, after a short wait (by the deadline); what the worker wrote to standard error
        meanwhile is read (:meth:`_heard`), so a runtime blocked on it goes on."""
        err = [] if self._err is None else [self._err]
        readable, writable, _ = select.select(
            err + ([] if writing else [fd]),
            [fd] if writing else [],
            [],
            min(max(deadline - time.monotonic(), 0), 0.2),
        )
        if err and err[0] in readable:
            self._heard()
        return fd in (writable if writing else readable)

    def _stop(self) -> None:
        if self._proc is not None:
            self._kill()
        self._proc, self._err = None, None

    def _request(self, message, time_limit: float | None = None, most: int | None = None):
        """Send ``message`` and read the answer, within the limits (``time_limit`` where
        given, else the call's; ``most`` bytes where given, what the answer can hold, else
        the memory limit); an error the worker sends back is raised here."""
        time_limit = max(time_limit or 0, self.time_limit)
        most = self.memory_limit if most is None else min(most, self.memory_limit)
        deadline = time.monotonic() + time_limit
        try:
            self._write(_framed(message), deadline, time_limit)
            (n,) = struct.unpack("<Q", self._read(8, deadline, time_limit))
            if n > most:
                raise _Unread(
                    f"it announced an answer of {n} bytes, past the "
                    + (
                        "memory limit"
                        if most == self.memory_limit
                        else f"{most} bytes its answer can hold"
                    )
                )
            answer = _Answer(io.BytesIO(self._read(n, deadline, time_limit))).load()
            if not (
                type(answer) is tuple
                and len(answer) == 2
                and answer[0] in ("ok", "error")
                and (answer[0] == "ok" or isinstance(answer[1], _kinds()))
            ):
                raise _Unread("it is not one of the answers a worker gives")
        except EOFError:
            try:  # its end, or it closed its pipes and runs on
                code = self._proc.wait(timeout=1)
            except subprocess.TimeoutExpired:
                code = None
            said = self._said()
            self._stop()
            how = (
                "closed its pipes and was stopped"
                if code is None
                else f"killed by signal {signal.Signals(-code).name}"
                if code < 0
                else f"exited with status {code}"
            )
            raise EngineCrashed(f"the runtime's process {how}: {said}") from None
        except EngineFailure:  # timed out, or its memory past the limit
            raise
        except Exception as e:  # _Unread, or what reading hostile bytes raised
            self._stop()
            raise EngineFailure(
                f"its worker's answer was not read ({str(e)[:200]}); the worker was stopped"
            ) from None
        if answer[0] == "error":
            raise answer[1]
        return answer[1]

    def _write(self, data: bytes, deadline: float, time_limit: float) -> None:
        """``data`` to the worker as it takes it, by the deadline (a worker that stops
        reading does not hold the parent); ``EOFError`` where the worker has ended."""
        fd, view = self._proc.stdin.fileno(), memoryview(data)
        os.set_blocking(fd, False)
        while view:
            self._waited(deadline, time_limit)
            if self._ready(fd, True, deadline):
                try:
                    view = view[os.write(fd, view) :]
                except BlockingIOError:
                    pass
                except BrokenPipeError:
                    raise EOFError from None
            elif self._proc.poll() is not None:
                raise EOFError

    def _waited(self, deadline: float, time_limit: float) -> None:
        """Stop the worker at the deadline, or where the memory of its session (the worker
        and what its runtime started), looked at every :data:`WATCH` seconds, is past the
        limit."""
        now = time.monotonic()
        if now >= deadline:
            self._stop()
            raise EngineTimedOut(f"no answer within {time_limit:g} s; the worker was stopped")
        if now >= self._watched:
            self._watched = now + WATCH
            if self._memory() > self.memory_limit:
                self._stop()
                raise EngineCrashed(
                    f"its memory passed {self.memory_limit / 2**30:g} GiB; the worker was stopped"
                )

    def _memory(self) -> int:
        """The worker's memory: the resident memory of its keeper's family (:func:`_rss`)
        or, where larger, its cgroup's anonymous and shared memory (:mod:`.contain`)."""
        held = contain.memory(self._cgroup) if self._cgroup is not None else 0
        return max(_rss(self._proc.pid), held)

    def _read(self, n: int, deadline: float, time_limit: float) -> bytes:
        """``n`` bytes of the worker's answer as they come, by the deadline and with the
        worker's memory under the limit; ``EOFError`` where the worker ends first."""
        fd, chunks, got = self._proc.stdout.fileno(), [], 0
        while got < n:
            self._waited(deadline, time_limit)
            if self._ready(fd, False, deadline):
                chunk = os.read(fd, min(n - got, 1 << 20))
                if not chunk:
                    raise EOFError
                chunks.append(chunk)
                got += len(chunk)
            elif self._proc.poll() is not None:
                raise EOFError
        return b"".join(chunks)

    def _live(self) -> None:
        """A worker that runs: one that ended since the last call is stopped as a crashed
        one is (what it started, its pipes) and, as one never started, started."""
        if self._proc is not None and self._proc.poll() is not None:
            self._stop()
        if self._proc is None:
            self._start()

    def _call(self, message, time_limit: float | None = None, most: int | None = None):
        self._live()
        return self._request(message, time_limit, most)

    # --- the engine ---------------------------------------------------------------------
    def load(self, data: bytes) -> Loaded:
        key = hashlib.sha256(data).hexdigest()
        graph, unclaimable, known = _loaded(
            self._call(("load", key, data), most=GRAPH_SIZE * len(data) + SLACK)
        )
        self._loaded[key] = data
        self._in_worker.add(key)

        def run(inputs, scalars):
            self._live()
            if key not in self._in_worker:  # started again since
                self._call(("load", key, self._loaded[key]))
                self._in_worker.add(key)
            return self._call(
                ("run", key, [i for i in inputs], list(scalars)),
                most=_answer_bound(graph, inputs, scalars, graph.outputs),
            )

        def run_all(inputs, scalars):
            return self._call(
                ("run_all", key, list(inputs), list(scalars)),
                most=_answer_bound(graph, inputs, scalars),
            )

        return Loaded(graph, run, run_all, unclaimable=unclaimable, known=known)


#: The worker's start in isolated mode (``-I``: no current folder, script folder, user site
#: or ``PYTHON*`` variable): its path is the one the parent gives (:func:`_argv`), then the
#: worker module runs as ``__main__``.
_BOOT = (
    "import json, runpy, sys; sys.path[:] = json.loads(sys.argv.pop(1)); "
    "runpy.run_module('waiexport.targets.engines.worker', run_name='__main__', "
    "alter_sys=True)"
)


def _argv() -> list[str]:
    """The worker's command: this interpreter, isolated, on this process's ``sys.path``
    without the current folder (``''`` or the folder itself), so a file there (a
    ``tract.py``, a ``pickle.py``, a clone's ``waiexport/``) is never what the worker
    imports in place of a runtime or of this package."""
    here = os.path.realpath(os.getcwd())
    path = [p for p in (os.path.abspath(p) for p in sys.path if p) if os.path.realpath(p) != here]
    return [sys.executable, "-I", "-c", _BOOT, json.dumps(path)]


#: Bytes an answer may take beside its tensors' values: names, types, a refusal, pickling.
SLACK = 1 << 20
#: How many times the bytes of the WHG1 graph it loaded the answer to a load may take (the
#: graph's classes pickled: its weights as int64 arrays, where WHG1 holds int8).
GRAPH_SIZE = 16
#: The most bytes an answer about the engine may take (making it, its description, a probe).
SMALL = 16 << 20
#: Bytes one element of a tensor may take in an answer: an int64, or a Python integer of up
#: to 128 bits (an acc64 graph's wide values) in an object array, pickled.
PER_ELEMENT = 48


def _answer_bound(graph, inputs, scalars, tensors=None) -> int:
    """The most bytes an answer to a decode of ``graph`` on ``inputs`` can take: its
    ``tensors`` (every tensor where ``None``), at their planned shapes (§4), each element
    at most :data:`PER_ELEMENT` bytes; :data:`SLACK` where the decode plans no shape (its
    answer is a refusal). So the parent's memory for an answer follows what the graph's
    outputs hold, not the memory limit."""

    try:
        shapes = run_plan(
            graph, [tuple(getattr(i, "shape", ())) for i in inputs], [int(v) for v in scalars]
        )
    except Exception:  # a refusal, or what the engine reads as an error of its own
        return SLACK
    chosen = shapes if tensors is None else {t: shapes[t] for t in tensors}
    return SLACK + PER_ELEMENT * sum(prod(s) for s in chosen.values())


def _loaded(said) -> tuple:
    """The worker's answer to a load, the graph its engine runs, why no decode of it can
    pass and what its description says of each operator it computes otherwise, with the
    graph as this toolchain loads one: written and read again (§10.5's checks and the bounds
    pass), so what runs here on it (the order of its outputs, the reference in locating a
    difference) runs on a graph it would load."""
    try:
        graph, unclaimable, known = said
        if unclaimable is not None and type(unclaimable) is not str:
            raise TypeError(f"why no decode can pass is {type(unclaimable).__name__}")
        if type(known) is not dict or any(
            type(k) is not int or type(v) is not str for k, v in known.items()
        ):
            raise TypeError("what its description says of an operator is not text by index")
        return read_member(write(graph)).graph, unclaimable, known
    except Exception as e:
        raise EngineFailure(
            "its worker's answer to loading the graph is not a graph this "
            f"toolchain loads ({str(e)[:200]})"
        ) from None


def _namespaced(pid: int) -> bool:
    """Whether the children of process ``pid`` (a keeper) are in another PID namespace
    than this process."""
    try:
        return os.readlink(f"/proc/{pid}/ns/pid_for_children") != os.readlink("/proc/self/ns/pid")
    except OSError:
        return False


def _kill(proc, cgroup) -> None:
    """Stop a worker's keeper and all below it (what the runtime started can outlive a worker
    that ended), every process in its cgroup (then removed), and close the parent's ends of
    its pipes."""
    end(proc.pid)
    try:  # where there is no /proc to find them by: the keeper's process group
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    if cgroup is not None:
        contain.end(cgroup)
    proc.wait()
    swept()  # a temporary cache folder the worker, killed, could not remove
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        try:
            pipe.close()
        except OSError:  # what the parent had not written to a worker that ended
            pass


@functools.cache
def _kinds() -> tuple:
    """The engine's kinds of no, which an answer may hold: a refusal (a stage operator's
    with its index) and this toolchain's engine and export errors."""

    return (Refusal, StageRefusal, *(getattr(errors, name) for name in errors.__all__))


@functools.cache
def _kind_names() -> frozenset:
    """Each of :func:`_kinds` as a pickle names it: its module and its name."""
    return frozenset((k.__module__, k.__qualname__) for k in _kinds())


def _sent(e: Exception) -> Exception:
    """``e`` as the parent reads it: one of the engine's kinds of no as it is, another
    rebuilt as the nearest kind it derives from (a plug-in's own subclass is no class the
    parent finds), or, for any other error, :class:`EngineFailure` naming it: the runtime
    failing that call."""
    kind = next((k for k in type(e).__mro__ if k in _kinds()), None)
    try:
        if kind is StageRefusal:
            return StageRefusal(e.code, e.at, e.detail)
        if kind is Refusal:
            return Refusal(e.code, e.where, e.detail)
        if kind is not None:
            return kind(str(e))
    except Exception:  # a subclass that broke what its kind holds
        pass
    return EngineFailure(f"{type(e).__name__}: {str(e)[:300]}")


def _plain(outputs):
    """A decode's outputs as the parent reads them: each array as the plain array it holds
    (the parent finds no subclass, and reads an array's values, not its type's word on
    them)."""
    if not isinstance(outputs, dict):
        return outputs
    return {k: np.asarray(v) if isinstance(v, np.ndarray) else v for k, v in outputs.items()}


def _watch(keeper_pid: int) -> None:
    """End this worker and all it started once its keeper has gone (which stops them
    itself when the parent does; a keeper killed outright cannot): a runtime hung in a call
    would never read that its requests have ended."""
    while os.getppid() == keeper_pid:
        time.sleep(0.5)
    end(os.getsid(0))
    os.killpg(0, signal.SIGKILL)


def _serve(keeper_pid: int) -> None:
    """The worker's loop: requests on standard input, answers on the standard output it
    was started with; a thread watches for its keeper's end (:func:`_watch`)."""
    subreap()  # an orphan below stays below the worker too, should its keeper be killed
    threading.Thread(target=_watch, args=(keeper_pid,), daemon=True).start()
    stdin, answers = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # what the runtime prints, from Python or its native code, goes to
    sys.stdout = sys.stderr  # standard error, not into the answers
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
                value = {
                    "profile": eng.profile,
                    "subset": eng.subset,
                    "target": eng.target,
                    "provider": getattr(eng, "provider", None),
                    "probes": list(eng.probes()) if hasattr(eng, "probes") else [],
                    "stage": hasattr(eng, "stage"),
                }
            elif message[0] == "probe":
                value = eng.probe_one(message[1])
            elif message[0] == "probed":
                eng._probed, value = message[1], None
            elif message[0] == "describe":
                value = eng.describe()
            elif message[0] == "load":
                loaded[message[1]] = eng.load(message[2])
                it = loaded[message[1]]
                value = it.graph, it.unclaimable, it.known
            elif message[0] == "run":
                value = _plain(loaded[message[1]].run(message[2], message[3]))
            elif message[0] == "run_all":
                run_all = loaded[message[1]].run_all
                value = None if run_all is None else _plain(run_all(message[2], message[3]))
            else:
                value = eng.stage(*message[1:])
        except Exception as e:
            _send(answers, ("error", _sent(e)))
            continue
        try:
            _send(answers, ("ok", value))
        except Exception as e:  # a value that does not pickle
            _send(answers, ("error", EngineFailure(f"its answer cannot be sent: {e}"[:300])))


if __name__ == "__main__":
    _serve(int(sys.argv[1]))
