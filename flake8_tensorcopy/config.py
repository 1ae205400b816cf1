"""``[tool.tensorcopy]`` of the nearest ``pyproject.toml``, read strictly.

A typo must not pass for a setting: an unknown key, an unknown ``[tool.tensorcopy.*]`` table,
a value of the wrong type or a file that cannot be read is a ``ConfigError`` whose one-line
message names the file and the key (the CLI prints it and exits 2), as ruff does.
"""

import ast
import difflib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

from flake8_tensorcopy.analysis.conventions import Conventions

# key -> the type its value must have ("list" means a list of strings); the naming-convention
# keys (``extend-snapshot-names``, ...) belong to conventions.py
KEYS = {"select": "list", "ignore": "list", "exclude": "list", "unsafe-fixes": "bool",
        **{key: "list" for key in Conventions.KEYS}}
_TABLE = "tool.tensorcopy"


class ConfigError(ValueError):
    """The configuration is wrong; the message is one line naming the file and the key."""


@dataclass
class Config:
    select: List[str] = field(default_factory=list)
    ignore: List[str] = field(default_factory=list)
    exclude: List[str] = field(default_factory=list)
    unsafe_fixes: bool = False
    conventions: Dict[str, List[str]] = field(default_factory=dict)  # the ``extend-*`` keys given
    path: Optional[Path] = None  # the pyproject.toml read, None when there is none

    @property
    def root(self) -> Optional[Path]:
        """The project's directory: where the pyproject.toml is."""
        return None if self.path is None else self.path.parent


def find_pyproject(start: Path) -> Optional[Path]:
    for directory in [start, *start.parents]:
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load_config(start: Path) -> Config:
    """The configuration of the nearest pyproject.toml at or above ``start`` (defaults if none)."""
    path = find_pyproject(start.resolve())
    if path is None:
        return Config()
    shown = _shown(path)
    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{shown}: cannot read: {_reason(error)}") from None
    try:
        table = _tool_table(text)
    except ValueError as error:  # tomllib.TOMLDecodeError is one
        raise ConfigError(f"{shown}: cannot parse: {error}") from None
    return _checked(table, shown, path)


def _shown(path: Path) -> str:
    """The path as the user would type it from here."""
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)


def _reason(error: Exception) -> str:
    return error.strerror if isinstance(error, OSError) and error.strerror else str(error)


def _checked(table: Dict[str, object], shown: str, path: Path) -> Config:
    config = Config(path=path)
    for key, value in table.items():
        if isinstance(value, dict):
            raise ConfigError(f"{shown}: unknown table [{_TABLE}.{key}]")
        expected = KEYS.get(key)
        if expected is None:
            close = difflib.get_close_matches(key, KEYS, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else f" (known: {', '.join(sorted(KEYS))})"
            raise ConfigError(f"{shown}: [{_TABLE}] unknown key '{key}'{hint}")
        if expected == "bool" and not isinstance(value, bool):
            raise ConfigError(f"{shown}: [{_TABLE}] {key} must be true or false, not {_toml(value)}")
        if expected == "list" and not (isinstance(value, list) and all(isinstance(item, str) for item in value)):
            raise ConfigError(f"{shown}: [{_TABLE}] {key} must be a list of strings, not {_toml(value)}")
        if key in Conventions.KEYS:
            config.conventions[key] = value
        else:
            setattr(config, key.replace("-", "_"), value)
    return config


def _toml(value: object) -> str:
    """A value as TOML spells it, for a message."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def _tool_table(text: str) -> Dict[str, object]:
    try:
        import tomllib  # Python 3.11+
    except ImportError:
        return _tool_table_without_tomllib(text)
    tool = tomllib.loads(text).get("tool", {})
    table = tool.get("tensorcopy", {}) if isinstance(tool, dict) else {}
    if not isinstance(table, dict):
        raise ValueError(f"{_TABLE} must be a table")
    return table


def _tool_table_without_tomllib(text: str) -> Dict[str, object]:
    """The few TOML shapes our table uses (strings, booleans, arrays of strings), for Python
    3.9/3.10, which have no tomllib and where we add no dependency to get one."""
    table: Dict[str, object] = {}
    inside = False
    pending = ""
    for line in text.splitlines():
        stripped = _without_comment(line).strip()
        if stripped.startswith("[") and not pending:
            header = stripped.strip("[]").strip()
            if header.startswith(_TABLE + "."):
                table[header[len(_TABLE) + 1:]] = {}  # a sub-table: reported as unknown
            inside = header == _TABLE
            continue
        if not inside or not stripped:
            continue
        pending = f"{pending} {stripped}" if pending else stripped
        key, _, value = pending.partition("=")
        value = value.strip()
        if value.startswith("[") and not value.endswith("]"):
            continue  # an array spread over lines
        pending = ""
        value = {"true": "True", "false": "False"}.get(value, value)
        try:
            table[key.strip().strip('"')] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            raise ValueError(f"[{_TABLE}] cannot read {key.strip()} = {value}") from None
    if pending:
        raise ValueError(f"[{_TABLE}] unclosed array: {pending}")
    return table


def _without_comment(line: str) -> str:
    """The line before a ``#`` outside quotes: ``x = ["a"]  # why`` must not read as an open array."""
    quote = None
    escaped = False
    for index, char in enumerate(line):
        if escaped:
            escaped = False
        elif quote == '"' and char == "\\":
            escaped = True
        elif char == quote:
            quote = None
        elif quote is None and char in "\"'":
            quote = char
        elif quote is None and char == "#":
            return line[:index]
    return line
