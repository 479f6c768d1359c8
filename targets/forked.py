"""A format's judge run on several decodes side by side, one forked process a core, where the
judge computes on one core and holds the interpreter while it does (the TOSA reference
model: ``Format.forks``); elsewhere, or with one core or one decode, each decode in this
process when its result is asked for, the judge opening each model once. Only on Linux:
elsewhere a fork is not the safe default (macOS) or does not exist."""

from __future__ import annotations

import os
import signal
import sys
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from functools import partial
from multiprocessing import get_context

from .errors import EngineCrashed

__all__ = ["cores", "judged"]


def cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@contextmanager
def judged(fmt, runs: list):
    """Yield one callable per ``(model, feed)`` of ``runs``, in order, that returns the
    model's outputs on ``fmt``'s judge by name or raises what the run raised; a judge's
    process that dies is :class:`~.errors.EngineCrashed` for its decode (each decode whose
    answer the death took is run again alone, so the one that dies is named). Forked runs
    start at once; those not begun when the block ends are cancelled."""
    workers = min(cores(), len(runs)) if fmt.forks and sys.platform == "linux" else 1
    if workers < 2:
        opened: dict = {}  # the judge's runner of each model, by identity, with the model

        def run(model, feed):
            if id(model) not in opened:
                opened[id(model)] = model, fmt.runner(model)
            return opened[id(model)][1](feed)

        yield [partial(run, model, feed) for model, feed in runs]
        return
    with _pool(workers) as pool:
        yield [
            partial(_result, fmt, model, feed, pool.submit(fmt.run, model, feed))
            for model, feed in runs
        ]


@contextmanager
def _pool(workers: int):
    """Forked processes that ignore Ctrl-C (the parent answers it); work not begun when the
    block ends is cancelled."""
    pool = ProcessPoolExecutor(
        workers,
        mp_context=get_context("fork"),
        initializer=signal.signal,
        initargs=(signal.SIGINT, signal.SIG_IGN),
    )
    try:
        yield pool
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _result(fmt, model, feed, future) -> dict:
    try:
        return future.result()
    except BrokenProcessPool:  # one process died, and every decode not yet answered with it
        pass
    with _pool(1) as alone:  # this decode again, alone, to say whether it is the one
        try:
            return alone.submit(fmt.run, model, feed).result()
        except BrokenProcessPool:
            raise EngineCrashed(
                f"{fmt.judge}: the process running it died without an "
                "answer (a signal or an abort in the runtime)"
            ) from None
