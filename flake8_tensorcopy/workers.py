"""Worker processes for ``tensorcopy-fix -j N``: they die with the run, and one dying costs
only the files it had.

A worker asks the kernel for SIGTERM when its parent dies (Linux ``PR_SET_PDEATHSIG``; elsewhere
a thread watches its parent's and the run's pids), and on SIGTERM or SIGINT removes the
temporary it is writing and exits: a killed run leaves no worker rewriting files behind it.
"""

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Deque, Iterable, Iterator, List, TypeVar

from flake8_tensorcopy.files import process_running, remove_temporaries_and_exit

Item = TypeVar("Item")
Result = TypeVar("Result")

CHUNK = 4  # items per task: fewer round trips, and a dead worker had at most this many
_PR_SET_PDEATHSIG = 1
# fork where it is safe (Python 3.14 would start a fork server, which outlives a killed run)
_CONTEXT = multiprocessing.get_context("fork") if sys.platform.startswith("linux") else None


def map_in_workers(work: Callable[[Item], Result], items: Iterable[Item], jobs: int,
                   lost: Callable[[Item], Result]) -> Iterator[Result]:
    """``work(item)`` for every item, in order, in ``jobs`` processes; at most a few tasks are
    queued, so results are not held up. When a worker dies, the items that were in flight run
    again one at a time; one that kills its worker even alone gives ``lost(item)``."""
    todo: Deque[Item] = deque(items)
    while todo:
        suspects = yield from _until_a_worker_dies(work, todo, jobs)
        for item in suspects:
            if (yield from _until_a_worker_dies(work, deque([item]), 1)):
                yield lost(item)


def _until_a_worker_dies(work, todo: Deque, jobs: int):
    """Yield results of the items taken from ``todo``; when a worker dies, return the items taken
    whose results did not come back (an empty list when all went well)."""
    with ProcessPoolExecutor(max_workers=jobs, mp_context=_CONTEXT, initializer=_die_with_parent,
                             initargs=(os.getpid(),)) as pool:
        in_flight: Deque = deque()
        while todo or in_flight:
            while todo and len(in_flight) < 2 * jobs:
                chunk = [todo.popleft() for _ in range(min(CHUNK, len(todo)))]
                in_flight.append((pool.submit(_run_chunk, work, chunk), chunk))
            future, chunk = in_flight.popleft()
            try:
                results = future.result()
            except BrokenProcessPool:
                suspects = list(chunk)
                for future, chunk in in_flight:
                    if future.done() and future.exception() is None:
                        yield from future.result()
                    else:
                        suspects.extend(chunk)
                return suspects
            yield from results
    return []


def _run_chunk(work, chunk: List) -> List:
    return [work(item) for item in chunk]


def _die_with_parent(run: int) -> None:
    """Worker initializer: exit cleanly on SIGTERM/SIGINT, and get SIGTERM when the run dies.
    Its parent is the run, or (another start method) a fork server that may outlive it."""
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, remove_temporaries_and_exit)
    parent = os.getppid()
    if not (_set_parent_death_signal(signal.SIGTERM) and parent == run):
        threading.Thread(target=_watch, args=(parent, run), daemon=True).start()
    if not _run_goes_on(parent, run):  # it died before we asked
        remove_temporaries_and_exit(signal.SIGTERM)


def _set_parent_death_signal(signum: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _run_goes_on(parent: int, run: int) -> bool:
    """An orphan is re-parented, so its parent pid changes; the run's pid says the rest."""
    return os.getppid() == parent and process_running(run)


def _watch(parent: int, run: int) -> None:
    """Where the kernel cannot tell us that the run died."""
    while _run_goes_on(parent, run):
        time.sleep(0.5)
    remove_temporaries_and_exit(signal.SIGTERM)
