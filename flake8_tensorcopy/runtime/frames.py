"""Where an event happened in the user's code: the innermost frame that is not torch, numpy,
the standard library's copy and thread machinery or this monitor. Work that torch runs in a
thread of its own (CUDA's backward runs in autograd's device threads, whose stacks hold no user
frame) is placed where the user started it."""

import contextlib
import copy
import os
import sys
import threading
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional

import numpy
import torch

_LIBRARY_DIRS = tuple(
    os.path.dirname(module.__file__) + os.sep for module in (torch, numpy, sys.modules[__package__])
)
_LIBRARY_FILES = {copy.__file__, contextlib.__file__, __import__("weakref").__file__, threading.__file__}
_is_library: Dict[str, bool] = {}


@dataclass(frozen=True)
class Location:
    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


def is_library(path: str) -> bool:
    known = _is_library.get(path)
    if known is None:
        known = path.startswith(_LIBRARY_DIRS) or path in _LIBRARY_FILES or path.startswith("<frozen")
        _is_library[path] = known
    return known


def frame_above(depth: int):
    """``sys._getframe(depth + 1)`` seen from the caller, or None where the stack is shallower (a
    hook that a thread with no Python frame calls)."""
    try:
        return sys._getframe(depth + 1)
    except ValueError:
        return None


def user_frame(depth: int = 1):
    """The innermost frame of user code above the caller, or None (all library)."""
    frame = frame_above(depth)
    while frame is not None and is_library(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def user_location(depth: int = 2) -> Optional[Location]:
    """Where the caller's caller was called from in the user's code; in a thread with no user
    frame, where the user started the work it runs."""
    frame = user_frame(depth + 1)
    return started_at() if frame is None else Location(frame.f_code.co_filename, frame.f_lineno)


# the places of the calls in flight whose work torch may run in other threads (backward, grad)
_STARTED_AT: List[Optional[Location]] = []


@contextlib.contextmanager
def starting_work(location: Optional[Location]) -> Iterator[None]:
    _STARTED_AT.append(location)
    try:
        yield
    finally:
        _STARTED_AT.pop()


def started_at() -> Optional[Location]:
    """The place of the innermost such call in flight (several threads running backward at once
    share it: the latest started is named)."""
    return _STARTED_AT[-1] if _STARTED_AT else None


def inside(function_names, depth: int = 2) -> bool:
    """Whether a library frame between here and the user's code runs one of ``function_names``
    (e.g. ``state_dict``: an alias made there is the module's snapshot, not the user's detach)."""
    frame = frame_above(depth)
    while frame is not None and is_library(frame.f_code.co_filename):
        if frame.f_code.co_name in function_names:
            return True
        frame = frame.f_back
    return False
