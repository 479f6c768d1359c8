"""A crash is a result: an engine whose runtime aborts, hangs or runs away with memory fails
that vector (``crashed``, ``timed out``) and the report goes on, with no claim; so does an
answer cut short, past the limit, or naming what would run code in the judge; the plug-in
example in the repository is listed in help, runs in its worker and passes the corpus."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from waiexport import write
from waiexport.builder import GraphBuilder
from waiexport.cli import main
from waiexport.conformance.generate import CORPUS
from waiexport.conformance.validate import files_under, read_all
from waiexport.targets.engines import engine
from waiexport.targets.errors import EngineTimedOut

from _helpers import ROOT, with_extra

FILES = [str(CORPUS / "vectors" / f) for f in ("abs.jsonl", "relu.jsonl", "subpos_split.jsonl")]

DOUBLES = '''
import os, sys, time
import numpy as np
from waiexport.targets.engines.reference import ReferenceEngine
from waiexport.targets.engines.base import Loaded
from waiexport.targets.engines.tosa_ref import TosaRefEngine


def _relu(g):
    return any(op.name == "relu" for op in g.ops)


def _mark(text):
    """``text`` in the file MARK names, whole when the test reads it."""
    os.replace(_write(os.environ["MARK"] + ".part", text), os.environ["MARK"])


def _outer(pid):
    """Process ``pid`` as this process sees it, as the test sees it (in a PID namespace of
    the worker's own they differ: /proc, the test's, names each by the test's number and
    lists its number in each namespace, NSpid)."""
    me = os.readlink("/proc/self/ns/pid")
    for n in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.readlink(f"/proc/{n}/ns/pid") == me:
                for line in open(f"/proc/{n}/status"):
                    if line.startswith("NSpid:") and int(line.split()[-1]) == pid:
                        return int(n)
        except OSError:
            pass
    return pid


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


class Misbehaves(ReferenceEngine):
    """The reference, except on graphs with a relu: there it does what ``how`` says."""

    how = ""

    def load(self, data):
        loaded = super().load(data)
        if not _relu(loaded.graph):
            return loaded

        def run(inputs, scalars):
            if self.how == "abort":
                os.abort()
            if self.how == "sleep":
                time.sleep(600)
            if self.how == "memory":
                hog = [np.ones(1 << 27) for _ in range(64)]      # 64 GiB, page by page
            if self.how == "shout":       # 64 MiB to standard error, a last line, abort
                os.write(2, b"x" * (64 << 20) + b"\\nlast words\\n")
                os.abort()
            if self.how == "rant":        # 128 MiB to standard error, then the answer
                for _ in range(128):
                    os.write(2, b"y" * (1 << 20))
            if self.how in ("spawn", "hide"):  # a helper in a process group of its own
                import subprocess              # (its pid and the worker's in MARK's file),
                helper = subprocess.Popen(["sleep", "600"], process_group=0)   # then abort
                _mark(f"{_outer(helper.pid)} {_outer(os.getpid())}")              # or sleep
                if self.how == "spawn":
                    os.abort()
                time.sleep(600)
            if self.how.startswith("escape"):  # a helper that leaves the worker's session
                import subprocess              # and, its parent ended, the worker's children
                mark = os.environ["MARK"]      # (holding 768 MiB where it hogs)
                if os.path.exists(mark + ".helper"):
                    os.remove(mark + ".helper")
                if "breaks out" in self.how:   # no longer a subreaper, its keeper killed
                    import ctypes
                    ctypes.CDLL(None).prctl(36, 0, 0, 0, 0)
                    os.kill(os.getppid(), 9)
                subprocess.run([sys.executable, "-c", (
                    "import os, sys, time; os.fork() and os._exit(0); os.setsid(); "
                    + ("x = b'1' * (768 << 20); " if "hogs" in self.how else "")
                    + "open(sys.argv[1] + '.part', 'w').write(os.readlink('/proc/self')); "
                    "os.rename(sys.argv[1] + '.part', sys.argv[1] + '.helper'); "
                    "time.sleep(600)"), mark])
                while not os.path.exists(mark + ".helper"):
                    time.sleep(0.05)
                _mark(f"{open(mark + '.helper').read()} {_outer(os.getpid())}")
                if self.how in ("escape", "escape, breaks out"):
                    os.abort()
                if self.how.endswith("kills its keeper"):
                    os.kill(os.getppid(), 9)
                time.sleep(600)
            if self.how == "memfd":       # 768 MiB written to a memfd, never mapped: in
                fd = os.memfd_create("hoard")  # no process's resident set
                for _ in range(768):
                    os.write(fd, b"1" * (1 << 20))
                time.sleep(600)
            if self.how == "helper hogs":  # a helper process holds 768 MiB for 5 s
                import subprocess
                subprocess.run([sys.executable, "-c", "import time; x = b'1' * (768 << 20); "
                                "time.sleep(5)"])
            if self.how == "leave":       # end the worker a moment after this answer
                import threading
                threading.Thread(target=lambda: (time.sleep(0.2), os._exit(3)),
                                 daemon=True).start()
            if self.how == "hang up":     # close every file it did not open itself, sleep
                os.closerange(3, 4096)
                time.sleep(600)
            return loaded.run(inputs, scalars)
        return Loaded(loaded.graph, run)


HOW = {}      # the test module's MISBEHAVING: a double's engine name, what it does
for _name, _how in HOW.items():
    globals()[_name.replace("-", "_")] = type(_name, (Misbehaves,), {"name": _name, "how": _how})


class Stalls(Misbehaves):
    """Begins an answer, 100 bytes announced, and sends no more."""

    name = "double-stalls"

    def load(self, data):
        worker = sys.modules["__main__"]        # the worker's module, run as a script
        if _relu(super().load(data).graph):
            def begun(stream, obj):
                stream.write((100).to_bytes(8, "little") + b"\\x80")
                stream.flush()
                time.sleep(600)
            worker._send = begun
        return super().load(data)


class Floods(Misbehaves):
    """Announces an answer of 2^62 bytes."""

    name = "double-floods"

    def load(self, data):
        worker = sys.modules["__main__"]
        if _relu(super().load(data).graph):
            def flood(stream, obj):
                stream.write((1 << 62).to_bytes(8, "little"))
                stream.flush()
            worker._send = flood
        return super().load(data)


class Streams(Misbehaves):
    """Announces an answer just under a 3 GiB limit and streams zeros: small itself, it
    would cost a judge that reads to the limit twice that."""

    name = "double-streams"

    def load(self, data):
        worker, loaded = sys.modules["__main__"], super().load(data)

        def stream(s, obj):
            s.write(((3 << 30) - 1).to_bytes(8, "little"))
            for _ in range(3 << 10):
                s.write(bytes(1 << 20))
            s.flush()

        def run(inputs, scalars):       # the decode's answer streamed, not the load's
            worker._send = stream
            return loaded.run(inputs, scalars)
        return Loaded(loaded.graph, run) if _relu(loaded.graph) else loaded


class Deaf(Misbehaves):
    """Stops reading requests once it has loaded a graph with a relu."""

    name = "double-deaf"

    def load(self, data):
        if _relu(super().load(data).graph):
            sys.modules["__main__"]._recv = lambda stream: time.sleep(600)
        return super().load(data)


class Prints(Misbehaves):
    """Writes to file descriptor 1 on every decode, as a runtime's native code may."""

    name = "double-prints"

    def load(self, data):
        loaded = super().load(data)

        def run(inputs, scalars):
            os.write(1, b"[runtime] kernels warm\\n")
            return loaded.run(inputs, scalars)
        return Loaded(loaded.graph, run)


class Smuggles(ReferenceEngine):
    """Every output one more than the reference's, and in its description an object whose
    unpickling runs code (here: writes the file MARK names; it could as well make the judge
    pass what differs)."""

    name = "double-smuggles"

    class _Payload:
        def __reduce__(self):
            return exec, (f"open({os.environ['MARK']!r}, 'w').write('ran')",)

    def describe(self):
        return {**super().describe(), "note": self._Payload()}

    def load(self, data):
        loaded = super().load(data)
        return Loaded(loaded.graph, lambda inputs, scalars: {
            k: np.asarray(v) + 1 for k, v in loaded.run(inputs, scalars).items()})


class LoadAborts(ReferenceEngine):
    """Aborts loading any graph."""

    name = "double-load-aborts"

    def load(self, data):
        os.abort()


class RunAborts(ReferenceEngine):
    """Aborts running any graph."""

    name = "double-run-aborts"

    def load(self, data):
        return Loaded(super().load(data).graph, lambda inputs, scalars: os.abort())


class GraphLies(ReferenceEngine):
    """Says the graph it loaded is nothing."""

    name = "double-graph-lies"

    def load(self, data):
        return Loaded(None, super().load(data).run)


class AbortingTosaRef(TosaRefEngine):
    """tosa-ref, aborting inside its worker on a graph with a relu."""

    name = "double-tosa-aborts"

    def open(self, model):
        run = super().open(model)
        return lambda feed: os.abort() if len(feed) == 1 and model.native.inputs and \\
            self._relu else run(feed)

    def load(self, data):
        from waiexport.load import read_member
        self._relu = _relu(read_member(data).graph)
        return super().load(data)
'''

#: The doubles that misbehave one way on a graph with a relu (``Misbehaves``): each one's
#: engine name and what it does.
MISBEHAVING = {
    "double-aborts": "abort",
    "double-sleeps": "sleep",
    "double-hogs": "memory",
    "double-shouts": "shout",
    "double-rants": "rant",
    "double-spawns": "spawn",
    "double-hangs-up": "hang up",
    "double-helper-hogs": "helper hogs",
    "double-hides": "hide",
    "double-leaves": "leave",
    "double-escapes": "escape",
    "double-escapes-hides": "escape and hide",
    "double-escapee-hogs": "escape, hogs",
    "double-escapes-kills-keeper": "escape, kills its keeper",
    "double-breaks-out": "escape, breaks out",
    "double-memfd": "memfd",
}

ENTRY_POINTS = (
    "[waiexport.engines]\n"
    + "".join(f"{name} = waiexport_doubles:{name.replace('-', '_')}\n" for name in MISBEHAVING)
    + """\
double-tosa-aborts = waiexport_doubles:AbortingTosaRef
double-stalls = waiexport_doubles:Stalls
double-floods = waiexport_doubles:Floods
double-streams = waiexport_doubles:Streams
double-prints = waiexport_doubles:Prints
double-deaf = waiexport_doubles:Deaf
double-load-aborts = waiexport_doubles:LoadAborts
double-run-aborts = waiexport_doubles:RunAborts
double-graph-lies = waiexport_doubles:GraphLies
double-smuggles = waiexport_doubles:Smuggles
"""
)


@pytest.fixture
def doubles(tmp_path, monkeypatch):
    """The doubles as an installed plug-in distribution: a module and its dist-info on
    PYTHONPATH, which the worker processes inherit."""
    (tmp_path / "waiexport_doubles.py").write_text(
        DOUBLES.replace("HOW = {}", f"HOW = {MISBEHAVING!r}", 1)
    )
    info = tmp_path / "waiexport_doubles-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: waiexport-doubles\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv(
        "PYTHONPATH",
        os.pathsep.join([str(tmp_path), *filter(None, [os.environ.get("PYTHONPATH")])]),
    )
    return tmp_path


def _validate(*args):
    r = CliRunner().invoke(main, ["validate", "--json", *args, *FILES])
    return r, json.loads(r.stdout) if r.stdout.startswith("{") else None


@pytest.mark.parametrize(
    "engine, status, words, limits",
    [
        ("double-aborts", "crashed", "killed by signal SIGABRT", []),
        ("double-sleeps", "timed_out", "no answer within 2 s", ["--time-limit", "2"]),
        ("double-hogs", "crashed", "memory passed 0.5 GiB", ["--memory-limit", "0.5"]),
        ("double-helper-hogs", "crashed", "memory passed 0.5 GiB", ["--memory-limit", "0.5"]),
        ("double-hangs-up", "crashed", "closed its pipes and was stopped", []),
    ],
)
def test_a_crash_is_that_vector_s_result_and_the_report_goes_on(
    doubles, engine, status, words, limits
):
    r, rep = _validate("--engine", engine, *limits)
    assert r.exit_code == 1, r.output
    by_id = {v["id"]: v for v in rep["vectors"]}
    assert by_id["relu_basic"]["status"] == status and words in by_id["relu_basic"]["reason"]
    after = [v for v in rep["vectors"] if v["file"] == "subpos_split"]
    assert after and all(v["status"] in ("pass", "skip") for v in after)
    assert int(rep["totals"]["pass"]) > 2 and rep["claim"] is None


@pytest.mark.parametrize(
    "engine, status, words, limits",
    [
        ("double-stalls", "timed_out", "no answer within 2 s", ["--time-limit", "2"]),
        ("double-floods", "fail", "announced an answer of 4611686018427387904 bytes", []),
        # relu_basic's one 30-element output: 48 bytes an element and 1 MiB beside, not the
        # 3 GiB limit
        (
            "double-streams",
            "fail",
            "past the 1050016 bytes its answer can hold",
            ["--memory-limit", "3"],
        ),
    ],
)
def test_an_answer_cut_or_past_the_limit_is_that_vector_s_result(
    doubles, engine, status, words, limits
):
    r, rep = _validate("--engine", engine, *limits)
    assert r.exit_code == 1, r.output
    by_id = {v["id"]: v for v in rep["vectors"]}
    assert by_id["relu_basic"]["status"] == status and words in by_id["relu_basic"]["reason"]
    assert by_id["abs_basic"]["status"] == "pass" and rep["claim"] is None


def test_a_crash_s_message_is_read_from_the_end_of_the_runtime_s_log(doubles):
    import tracemalloc

    tracemalloc.start()
    try:
        r, rep = _validate("--engine", "double-shouts")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    relu = {v["id"]: v for v in rep["vectors"]}["relu_basic"]
    assert relu["status"] == "crashed" and relu["reason"].endswith("x | last words")
    assert peak < 16 << 20, peak


def test_a_runtime_s_log_costs_the_parent_no_disk(doubles):
    """What a runtime writes to standard error is read as it comes and only its end kept: no
    file the parent holds grows with it (a runtime that wrote without end filled the
    temporary folder until the call's time limit)."""
    import stat

    b = GraphBuilder()
    b.output(b.op("relu", b.input(1, -5, 5, max_h=4, max_w=4)))
    rants = engine("double-rants", isolate=True)
    x = (np.arange(16) % 11 - 5).reshape(1, 4, 4)
    got = rants.load(write(b.build())).run([x], [])
    assert np.array_equal(got["out0"], np.maximum(x, 0))
    sizes = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            st = os.stat(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        sizes += [st.st_size] if stat.S_ISREG(st.st_mode) else []
    assert max(sizes, default=0) < 64 << 20, sizes


def _ended(pid: int) -> bool:
    """Whether process ``pid`` has ended, waiting a little for a signal sent to land."""
    stat = Path(f"/proc/{pid}/stat")
    for _ in range(50):
        try:
            if stat.read_text().rsplit(")", 1)[1].split()[0] in "ZX":
                return True
        except FileNotFoundError:
            return True
        time.sleep(0.1)
    return False


def _none_running(mark: Path) -> bool:
    """Whether no process that names ``mark`` in its arguments (every helper an escaping
    double started) runs, waiting a little for a signal sent to land."""
    for _ in range(50):
        running = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                running += (
                    [pid] if str(mark).encode() in Path(f"/proc/{pid}/cmdline").read_bytes() else []
                )
            except OSError:
                pass
        if not running:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize(
    "engine", ["double-spawns", "double-escapes", "double-escapes-kills-keeper"]
)
def test_what_a_crashed_runtime_started_is_stopped_with_it(doubles, tmp_path, monkeypatch, engine):
    """A worker that dies leaves no process it started running: a helper in a process group
    of its own, or one that left the worker's session and whose parent ended (so it is no
    child of the worker's), is still a descendant of the worker's keeper, stopped with it,
    and of the worker, which stops it where the runtime killed the keeper."""
    mark = tmp_path / "helper"
    monkeypatch.setenv("MARK", str(mark))
    r, rep = _validate("--engine", engine, "--time-limit", "8")
    relu = {v["id"]: v for v in rep["vectors"]}["relu_basic"]
    # in a PID namespace of the worker's own, its keeper is the namespace's first process,
    # which nothing inside can kill: the double then sleeps to the time limit
    assert (
        relu["status"] == "crashed"
        or engine.endswith("keeper")
        and relu["status"] == "timed_out"
        and "PID namespace" in _isolation()
    ), relu
    assert _ended(int(mark.read_text().split()[0])) and _none_running(mark)


def _isolation() -> str:
    """How this machine holds a worker, as a claim says it."""
    return engine("double-aborts", isolate=True).describe()["isolation"]


def _needs(mechanism: str) -> str:
    """The claim's isolation, where it names ``mechanism``; else the test skips by name."""
    held = _isolation()
    if mechanism not in held:
        pytest.skip(f"needs a {mechanism} (Linux, as root or with one delegated): {held}")
    return held


def test_a_runtime_that_breaks_out_of_its_keeper_leaves_nothing_running(
    doubles, tmp_path, monkeypatch
):
    """Code in the worker clears its subreaper, kills its keeper and leaves a helper in a
    session of its own whose parent ended: in a PID namespace of the worker's own the keeper
    outlives it and the helper ends with the namespace, so nothing runs on after validate."""
    _needs("PID namespace")
    mark = tmp_path / "helper"
    monkeypatch.setenv("MARK", str(mark))
    r, rep = _validate("--engine", "double-breaks-out", "--time-limit", "20")
    relu = {v["id"]: v for v in rep["vectors"]}["relu_basic"]
    assert relu["status"] in ("crashed", "timed_out") and rep["claim"] is None, relu
    assert _ended(int(mark.read_text().split()[0])) and _none_running(mark)


def test_memory_held_in_a_memfd_counts(doubles):
    """768 MiB written to a memfd and never mapped is in no process's resident set; the
    worker's memory cgroup counts it, so the 0.5 GiB limit stops the worker."""
    _needs("memory cgroup")
    r, rep = _validate("--engine", "double-memfd", "--memory-limit", "0.5", "--time-limit", "60")
    relu = {v["id"]: v for v in rep["vectors"]}["relu_basic"]
    assert relu["status"] == "crashed" and "memory passed 0.5 GiB" in relu["reason"], relu


def test_the_claim_names_what_held_the_worker(doubles):
    r = CliRunner().invoke(
        main,
        ["validate", "--json", "--engine", "double-aborts", str(CORPUS / "vectors" / "abs.jsonl")],
    )
    assert r.exit_code == 0, r.output
    held = json.loads(r.stdout)["claim"]["isolation"]
    assert "in a worker process of its own" in held
    assert ("PID namespace" in held) != ("subreaper" in held), held
    assert ("memory cgroup" in held) != ("resident sets" in held), held


def test_a_helper_that_left_the_worker_s_session_counts_in_its_memory(
    doubles, tmp_path, monkeypatch
):
    """The memory limit holds for what the runtime started however it left the worker's
    session: a helper that did so holds 768 MiB past a 0.5 GiB limit and the worker waits."""
    mark = tmp_path / "helper"
    monkeypatch.setenv("MARK", str(mark))
    r, rep = _validate(
        "--engine", "double-escapee-hogs", "--memory-limit", "0.5", "--time-limit", "60"
    )
    relu = {v["id"]: v for v in rep["vectors"]}["relu_basic"]
    assert relu["status"] == "crashed" and "memory passed 0.5 GiB" in relu["reason"], relu
    assert _none_running(mark)


@pytest.mark.parametrize("engine", ["double-hides", "double-escapes-hides"])
def test_a_worker_ends_with_a_parent_killed_outright(doubles, tmp_path, monkeypatch, engine):
    """A parent killed with SIGKILL (or a SIGTERM, which runs no finalizer) cannot stop its
    worker: the worker's keeper ends the worker and every process it started once the
    parent has gone, so a runtime hung in a call and what it started do not run on."""
    mark = tmp_path / "helper"
    monkeypatch.setenv("MARK", str(mark))
    b = GraphBuilder()
    b.output(b.op("relu", b.input(1, -5, 5, max_h=4, max_w=4)))
    (tmp_path / "g.whg1").write_bytes(write(b.build()))
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "import sys, numpy as np; from waiexport.targets.engines import engine; "
                f"engine({engine!r}, isolate=True).load(open(sys.argv[1], 'rb').read())"
                ".run([np.zeros((1, 4, 4), np.int64)], [])"
            ),
            str(tmp_path / "g.whg1"),
        ]
    )
    try:
        for _ in range(300):
            if mark.exists():
                break
            time.sleep(0.1)
        helper, worker = map(int, mark.read_text().split())
    finally:
        parent.kill()
        parent.wait()
    assert _ended(worker) and _ended(helper)


def test_a_worker_that_ended_between_calls_is_started_again_for_the_next(doubles):
    """A worker that ends after it answered (its runtime's thread exits the process) is
    stopped like a crashed one, its pipes closed, and the next call starts another, with
    the graph loaded again (that call failed with the worker's KeyError for the graph)."""
    b = GraphBuilder()
    b.output(b.op("relu", b.input(1, -5, 5, max_h=4, max_w=4)))
    loaded = engine("double-leaves", isolate=True).load(write(b.build()))
    x = (np.arange(16) % 11 - 5).reshape(1, 4, 4)
    held = []
    for _ in range(4):
        assert np.array_equal(loaded.run([x], [])["out0"], np.maximum(x, 0))
        time.sleep(0.5)
        held.append(len(os.listdir("/proc/self/fd")))
    assert held == held[:1] * 4, held


def test_a_crashed_worker_leaves_no_file_open_in_the_parent(doubles):
    """Each crash's worker is restarted with new pipes; the old ones are closed (they were
    held, three files a crash, until a long run over a crashing runtime ran out of them)."""
    from waiexport.targets.errors import EngineCrashed

    b = GraphBuilder()
    b.output(b.op("relu", b.input(1, -5, 5, max_h=4, max_w=4)))
    aborts = engine("double-aborts", isolate=True)
    loaded = aborts.load(write(b.build()))
    held = []
    for _ in range(4):
        with pytest.raises(EngineCrashed, match="SIGABRT"):
            loaded.run([np.zeros((1, 4, 4), np.int64)], [])
        held.append(len(os.listdir("/proc/self/fd")))
    assert held == held[:1] * 4, held


def test_a_worker_that_cannot_be_started_is_the_engine_s_failure(doubles, monkeypatch):
    """Out of files or processes, the restart after a crash is that call's failure, in a
    line (it was ``OSError``'s traceback)."""
    import errno
    import waiexport.targets.engines.worker as worker
    from waiexport.targets.errors import EngineCrashed, EngineFailure

    b = GraphBuilder()
    b.output(b.op("relu", b.input(1, -5, 5, max_h=4, max_w=4)))
    loaded = engine("double-aborts", isolate=True).load(write(b.build()))
    with pytest.raises(EngineCrashed):
        loaded.run([np.zeros((1, 4, 4), np.int64)], [])

    def no_files(*args, **kw):
        raise OSError(errno.EMFILE, "Too many open files")

    monkeypatch.setattr(worker.subprocess, "Popen", no_files)
    with pytest.raises(EngineFailure, match="its worker could not be started: Too many open"):
        loaded.run([np.zeros((1, 4, 4), np.int64)], [])


def test_a_worker_that_stops_reading_does_not_hold_the_parent(doubles):
    """A request larger than the pipe holds is written as the worker takes it, within the
    time limit."""
    b = GraphBuilder()
    b.output(b.op("relu", b.input(1, -5, 5, max_h=512, max_w=512)))
    deaf = engine("double-deaf", isolate=True, time_limit=2)
    loaded = deaf.load(write(b.build()))
    with pytest.raises(EngineTimedOut, match="no answer within 2 s"):
        loaded.run([np.zeros((1, 512, 512), np.int64)], [])


JPEGAI = ROOT / "examples" / "jpegai"


@pytest.mark.parametrize("command", ["run", "jpegai"])
@pytest.mark.parametrize(
    "engine, words",
    [
        ("double-load-aborts", "killed by signal SIGABRT"),
        ("double-run-aborts", "killed by signal SIGABRT"),
        (
            "double-graph-lies",
            "its worker's answer to loading the graph is not a graph this toolchain loads",
        ),
    ],
)
def test_an_engine_that_fails_ends_run_and_jpegai_decode_in_one_line(
    doubles, tmp_path, command, engine, words
):
    streams = JPEGAI / "streams"
    args = (
        [
            "run",
            str(ROOT / "examples" / "tiny_synth.whg1"),
            "--decode",
            str(ROOT / "examples" / "tiny_synth_decode.json"),
        ]
        if command == "run"
        else [
            "jpegai",
            "decode",
            str(JPEGAI),
            *(
                a
                for opt in ("soz", "sorp", "sors")
                for a in (f"--{opt}", str(streams / f"{opt}.bin"))
            ),
            "--grfs-y",
            str(streams / "grfs_y.txt"),
            "--grfs-uv",
            str(streams / "grfs_uv.txt"),
            "--no-validate",
            "-o",
            str(tmp_path / "o"),
        ]
    )
    r = CliRunner().invoke(main, [*args, "--engine", engine])
    assert r.exit_code == 2 and isinstance(r.exception, SystemExit), r.exception
    assert ": engine-failure: " in r.output and words in " ".join(r.output.split())
    assert len(r.output.strip().splitlines()) == 1, r.output


def test_an_engine_that_fails_at_load_is_the_self_check_s_difference(doubles):
    from waiexport.descriptions import target
    from waiexport.targets.exporter import export, self_check

    exp = export((ROOT / "examples" / "tiny_synth.whg1").read_bytes(), target("ort-cpu"))
    n, difference = self_check(exp, engine=engine("double-load-aborts", isolate=True))
    assert n > 0 and difference.startswith(
        "at load: the runtime's process killed by signal SIGABRT"
    )


def test_what_a_runtime_prints_from_native_code_leaves_the_answers_whole(doubles):
    """And the refusals of the stage vectors, a stage operator's kind of no with its index,
    come back as they are."""
    r, rep = _validate("--engine", "double-prints", str(CORPUS / "stage"))
    assert r.exit_code == 0, r.output
    assert rep["claim"] is not None and int(rep["totals"]["fail"]) == 0
    assert int(rep["totals"]["pass"]) > 200


def test_an_answer_that_would_run_code_in_the_judge_is_not_read(doubles, tmp_path, monkeypatch):
    mark = tmp_path / "ran"
    monkeypatch.setenv("MARK", str(mark))
    r = CliRunner().invoke(main, ["validate", "--engine", "double-smuggles", *FILES])
    assert r.exit_code == 2 and not mark.exists(), r.output
    assert (
        "its worker's answer was not read (it names builtins.exec, which no answer "
        "holds)" in " ".join(r.output.split())
    )
    assert "waiexport_doubles" not in sys.modules


@with_extra("tosa_reference_model", "tosa")
def test_an_abort_inside_the_tosa_ref_worker_is_a_result(doubles):
    r, rep = _validate("--engine", "double-tosa-aborts")
    by_id = {v["id"]: v for v in rep["vectors"]}
    assert by_id["relu_basic"]["status"] == "crashed", by_id["relu_basic"]
    assert int(rep["totals"]["pass"]) > 2 and rep["claim"] is None and r.exit_code == 1


def test_plugins_are_listed_in_help_and_the_unknown_engine_error(doubles):
    help_text = " ".join(CliRunner().invoke(main, ["validate", "--help"]).output.split())
    assert "double-aborts (plug-in from waiexport-doubles)" in help_text.replace("- ", "-")
    r = CliRunner().invoke(main, ["validate", "--engine", "nope"])
    assert r.exit_code == 2 and "double-sleeps" in r.output


@with_extra("onnxruntime", "ort")
def test_the_example_plugin_passes_the_corpus_in_its_worker(example_plugin):
    env = {**os.environ, "PYTHONPATH": str(example_plugin)}
    listed = subprocess.run(
        [sys.executable, "-m", "waiexport.cli", "validate", "--help"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert "example-ort-sequential" in " ".join(listed.stdout.split()).replace("- ", "-")
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "waiexport.cli",
            "validate",
            "--json",
            "--engine",
            "example-ort-sequential",
            str(CORPUS / "vectors"),
            str(CORPUS / "graphs"),
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    rep = json.loads(r.stdout)
    applicable = sum(
        1
        for _, vectors in read_all(files_under([CORPUS / "vectors", CORPUS / "graphs"]))
        for v in vectors
        if "stage" not in v and "acc32" in v["profiles"]
    )
    assert rep["claim"] is not None and int(rep["totals"]["pass"]) == applicable
    assert "in a worker process of its own" in rep["claim"]["isolation"]
    assert rep["claim"]["target"] == "ort-cpu"
