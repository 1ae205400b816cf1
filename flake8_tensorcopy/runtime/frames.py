"""Where an event happened in the user's code: the innermost frame that is not torch, numpy,
the standard library's copy machinery or this monitor."""

import copy
import os
import sys
from dataclasses import dataclass
from typing import Dict, Optional

import numpy
import torch

_LIBRARY_DIRS = tuple(
    os.path.dirname(module.__file__) + os.sep for module in (torch, numpy, sys.modules[__package__])
)
_LIBRARY_FILES = {copy.__file__, __import__("contextlib").__file__, __import__("weakref").__file__}
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


def user_frame(depth: int = 1):
    """The innermost frame of user code above the caller, or None (all library)."""
    frame = sys._getframe(depth)
    while frame is not None and is_library(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def user_location(depth: int = 2) -> Optional[Location]:
    frame = user_frame(depth + 1)
    return None if frame is None else Location(frame.f_code.co_filename, frame.f_lineno)


def inside(function_names, depth: int = 2) -> bool:
    """Whether a library frame between here and the user's code runs one of ``function_names``
    (e.g. ``state_dict``: an alias made there is the module's snapshot, not the user's detach)."""
    frame = sys._getframe(depth)
    while frame is not None and is_library(frame.f_code.co_filename):
        if frame.f_code.co_name in function_names:
            return True
        frame = frame.f_back
    return False
