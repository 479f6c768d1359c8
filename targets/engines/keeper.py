"""The keeper of an engine's worker: the worker's parent, and, as Linux's child subreaper
(``PR_SET_CHILD_SUBREAPER``), the parent of every process below it whose own parent has
ended. Whatever a runtime starts, in whatever session or process group, so stays a
descendant of the keeper: counted in the worker's memory and stopped with it
(:func:`family`, :func:`end`). The keeper runs none of the runtime's code: it starts the
worker on its own standard input, output and error and lets go of its copies (so the
worker's end is the end of its pipes), reaps what ends below it, and, when the worker ends,
stops every process left below and exits as the worker did; when the process that started
it ends, it stops the worker and all below it first.

Run as ``python -I -S keeper.py PARENT WORKER-ARGV...`` (the worker is told the keeper's
process id, last): standard library only, so it starts in milliseconds."""

from __future__ import annotations

import os
import signal
import sys
import time

__all__ = ["end", "family", "subreap"]


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
                with open(f"/proc/{name}/stat", "rb") as f:    # state, ppid, pgrp, session
                    state, ppid, _, sid = f.read().rsplit(b")", 1)[1].split()[:4]
            except (OSError, ValueError):
                continue
            if state != b"Z":
                children.setdefault(int(ppid), []).append(int(name))
                found += [int(name)] if int(name) == pid or int(sid) == pid else []
    seen = set(found)
    for p in found:              # grows as it is walked: each one's children after it
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
    for _ in range(100):
        left = [p for p in family(pid) if p not in (pid, me)]
        if not left:
            break
        for p in left:
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
    if pid != me:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


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
        import resource
        sig = os.WTERMSIG(status)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        try:
            signal.signal(sig, signal.SIG_DFL)
        except (OSError, ValueError):     # SIGKILL's and SIGSTOP's cannot be set
            pass
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
        os.kill(os.getpid(), sig)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def subreap() -> None:
    """Make this process the parent of every orphan below it (Linux's
    ``PR_SET_CHILD_SUBREAPER``); elsewhere nothing (the session alone holds them)."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def main(parent: int, argv: list[str]) -> None:
    subreap()
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGCHLD])
    worker = os.fork()
    if worker == 0:
        try:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGCHLD])
            os.execv(argv[0], argv + [str(os.getppid())])
        finally:
            os._exit(127)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    status = None
    while status is None and os.getppid() == parent:
        if hasattr(signal, "sigtimedwait"):
            signal.sigtimedwait([signal.SIGCHLD], 0.5)
        else:                       # macOS has none: a look every 50 ms
            time.sleep(0.05)
        status = _reaped(worker)
    end(os.getpid())
    _exit_as(status)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2:])
