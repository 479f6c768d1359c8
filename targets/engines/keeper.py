"""The keeper of an engine's worker: the worker's parent, and, as Linux's child subreaper
(``PR_SET_CHILD_SUBREAPER``), the parent of every process below it whose own parent has
ended. Whatever a runtime starts, in whatever session or process group, so stays a
descendant of the keeper: counted in the worker's memory and stopped with it
(:func:`family`, :func:`end`). The keeper runs none of the runtime's code: it starts the
worker on its own standard input, output and error and lets go of its copies (so the
worker's end is the end of its pipes), reaps what ends below it, and, when the worker ends,
stops every process left below and exits as the worker did; when the process that started
it ends, it stops the worker and all below it first.

Where the machine allows it, the keeper also holds the worker in a PID namespace of its
own: it forks the namespace's first process, which keeps the worker (nothing inside can
kill it, and when it ends the kernel ends every process in the namespace, however it left
the keeper's tree), and joins the memory cgroup the parent made for it (CGROUP, or ``-``).

Run as ``python -I -S keeper.py PARENT CGROUP WORKER-ARGV...`` (the worker is told its
keeper's process id, last): standard library only, so it starts in milliseconds."""

from __future__ import annotations

import ctypes
import os
import resource
import select
import signal
import sys
import time

__all__ = ["end", "family", "kill_all", "subreap"]


def family(pid: int) -> list[int]:
    """Process ``pid``, the processes of the session it leads, and every descendant of
    those, by one look at ``/proc`` (none where there is none); ended ones (zombies) left
    out."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    children: dict = {}
    found = []
    for name in names:
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as f:  # state, ppid, pgrp, session
                    state, ppid, _, sid = f.read().rsplit(b")", 1)[1].split()[:4]
            except (OSError, ValueError):
                continue
            if state != b"Z":
                children.setdefault(int(ppid), []).append(int(name))
                found += [int(name)] if int(name) == pid or int(sid) == pid else []
    seen = set(found)
    for p in found:  # grows as it is walked: each one's children after it
        new = [c for c in children.get(p, ()) if c not in seen]
        seen.update(new)
        found += new
    return found


def end(pid: int) -> None:
    """Kill ``pid``'s family (:func:`family`) but the caller and ``pid``, and look again
    until none of it is left (a process can start another between a look and a kill; while
    the keeper lives, the orphan comes back to it), then ``pid`` where it is not the
    caller."""
    me = os.getpid()
    kill_all(lambda: [p for p in family(pid) if p not in (pid, me)])
    if pid != me:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def kill_all(left, rounds: int = 100, pause: float = 0.0) -> None:
    """Kill every process ``left()`` lists, and look again (``pause`` seconds later) until
    it lists none or ``rounds`` looks have passed: a process can start another between a
    look and a kill."""
    for _ in range(rounds):
        pids = left()
        if not pids:
            return
        for p in pids:
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(pause)


def _reaped(worker: int):
    """Reap every child that has ended; the worker's wait status if it is among them."""
    status = None
    while True:
        try:
            p, s = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return status
        if p == 0:
            return status
        status = s if p == worker else status


def _exit_as(status: int | None) -> None:
    """End as the worker ended: by its signal (no core file) or with its exit status."""
    if status is None:
        os._exit(1)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        try:
            signal.signal(sig, signal.SIG_DFL)
        except (OSError, ValueError):  # SIGKILL's and SIGSTOP's cannot be set
            pass
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
        os.kill(os.getpid(), sig)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def subreap() -> None:
    """Make this process the parent of every orphan below it (Linux's
    ``PR_SET_CHILD_SUBREAPER``); elsewhere nothing (the session alone holds them)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _keep(argv: list[str], alive) -> int | None:
    """Start the worker (``argv``, told this process's id as the worker sees it), reap what
    ends below, and return the worker's wait status once it has ended, or ``None`` once
    ``alive()`` is false first."""
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGCHLD])
    worker = os.fork()
    if worker == 0:
        try:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGCHLD])
            os.execv(argv[0], argv + [str(os.getppid())])
        finally:
            os._exit(127)
    _let_go()
    status = None
    while status is None and alive():
        _wait_a_little()
        status = _reaped(worker)
    return status


def _let_go() -> None:
    """Let go of this process's standard input, output and error (the worker's pipes), so
    the end of the processes that hold them is their end."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)


def _wait_a_little() -> None:
    if hasattr(signal, "sigtimedwait"):
        signal.sigtimedwait([signal.SIGCHLD], 0.5)
    else:  # macOS has none: a look every 50 ms
        time.sleep(0.05)


def join(cgroup: str) -> None:
    """Move this process into the cgroup folder ``cgroup`` (where it is not ``-``), so
    everything it starts is counted and found there, whatever session it moves to."""
    if cgroup != "-":
        try:
            with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))
        except OSError:  # the parent sees that it is not in it, and says so
            pass


def _pid_namespace() -> bool:
    """Whether this process's next child is the first process of a PID namespace of its
    own (Linux's ``unshare(CLONE_NEWPID)``, which needs the privilege to make one)."""
    try:
        return ctypes.CDLL(None, use_errno=True).unshare(0x20000000) == 0
    except (OSError, AttributeError):
        return False


def _first_in_namespace(argv: list[str], outer_alive: int, said: int) -> None:
    """The first process of the worker's PID namespace: keep the worker while the outer
    keeper lives (its end closes ``outer_alive``), write the worker's wait status to
    ``said``, and end, which ends every process left in the namespace. Nothing below can
    end this process (the kernel ignores a signal a namespace's first process has no
    handler for, sent from inside)."""

    def alive() -> bool:
        return not select.select([outer_alive], [], [], 0)[0]

    status = _keep(argv, alive)
    os.write(said, (b"" if status is None else str(status).encode()))
    os._exit(0)


def main(parent: int, cgroup: str, argv: list[str]) -> None:
    join(cgroup)
    subreap()
    namespaced = _pid_namespace()
    if namespaced:
        alive_r, alive_w = os.pipe()
        said_r, said_w = os.pipe()
        first = os.fork()
        if first == 0:
            os.close(alive_w)
            os.close(said_r)
            _first_in_namespace(argv, alive_r, said_w)
        os.close(alive_r)
        os.close(said_w)
        _let_go()
    else:
        status = _keep(argv, lambda: os.getppid() == parent)
        end(os.getpid())
        _exit_as(status)
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGCHLD])
    while os.getppid() == parent and _reaped(first) is None:
        _wait_a_little()
    end(os.getpid())  # the namespace's first process, and so all in it
    said = os.read(said_r, 64)
    _exit_as(int(said) if said else None)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2], sys.argv[3:])
