"""``[tool.tensorcopy]`` of the nearest ``pyproject.toml``, read strictly.

A typo must not pass for a setting: an unknown key, an unknown ``[tool.tensorcopy.*]`` table,
a value of the wrong type or a file that cannot be read is a ``ConfigError`` whose one-line
message names the file and the key (the CLI prints it and exits 2), as ruff does.
"""

import difflib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from flake8_tensorcopy.knowledge.conventions import Conventions
from flake8_tensorcopy.rules import ALL_RULES

try:
    import tomllib
except ImportError:  # Python 3.9/3.10
    import tomli as tomllib

# key -> the type its value must have ("list": of strings, "codes": of rule codes or prefixes,
# "table": file patterns to lists of codes); the naming-convention keys (``extend-snapshot-names``,
# ...) belong to conventions.py
KEYS = {"select": "codes", "extend-select": "codes", "ignore": "codes", "extend-ignore": "codes",
        "per-file-ignores": "table", "exclude": "list", "extend-exclude": "list", "respect-gitignore": "bool",
        "unsafe-fixes": "bool", **{key: "list" for key in Conventions.KEYS}}
_TABLE = "tool.tensorcopy"


class ConfigError(ValueError):
    """The configuration is wrong; the message is one line naming the file and the key."""


@dataclass
class Config:
    select: List[str] = field(default_factory=list)
    extend_select: List[str] = field(default_factory=list)
    ignore: List[str] = field(default_factory=list)
    extend_ignore: List[str] = field(default_factory=list)
    per_file_ignores: Dict[str, List[str]] = field(default_factory=dict)
    exclude: Optional[List[str]] = None  # None: the default list (files.DEFAULT_EXCLUDE)
    extend_exclude: List[str] = field(default_factory=list)
    respect_gitignore: bool = True
    unsafe_fixes: bool = False
    conventions: Dict[str, List[str]] = field(default_factory=dict)  # the ``extend-*`` keys given
    path: Optional[Path] = None  # the pyproject.toml read, None when there is none

    @property
    def root(self) -> Optional[Path]:
        """The project's directory: where the pyproject.toml is."""
        return None if self.path is None else self.path.parent


def unknown_codes(codes: Sequence[str]) -> List[str]:
    """The codes or prefixes in ``codes`` that name no rule (``TEN2`` names a family)."""
    return [code for code in codes if not any(rule.code.startswith(code.upper()) for rule in ALL_RULES)]


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
        expected = KEYS.get(key)
        if expected is None:
            if isinstance(value, dict):
                raise ConfigError(f"{shown}: unknown table [{_TABLE}.{key}]")
            close = difflib.get_close_matches(key, KEYS, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else f" (known: {', '.join(sorted(KEYS))})"
            raise ConfigError(f"{shown}: [{_TABLE}] unknown key '{key}'{hint}")
        where = f"{shown}: [{_TABLE}] {key}"
        if expected == "table":
            if not isinstance(value, dict):
                raise ConfigError(f"{where} must be a table of file patterns to lists of codes, not {_toml(value)}")
            for pattern, codes in value.items():
                _check_list(codes, f'{where} "{pattern}"', codes=True)
        elif expected == "bool":
            if not isinstance(value, bool):
                raise ConfigError(f"{where} must be true or false, not {_toml(value)}")
        else:
            _check_list(value, where, codes=expected == "codes")
        if key in Conventions.KEYS:
            config.conventions[key] = value
        else:
            setattr(config, key.replace("-", "_"), value)
    return config


def _check_list(value: object, where: str, codes: bool) -> None:
    if not (isinstance(value, list) and all(isinstance(item, str) for item in value)):
        raise ConfigError(f"{where} must be a list of strings, not {_toml(value)}")
    unknown = unknown_codes(value) if codes else []
    if unknown:
        raise ConfigError(f"{where}: unknown code or prefix: {', '.join(unknown)}")


def _toml(value: object) -> str:
    """A value as TOML spells it, for a message."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def _tool_table(text: str) -> Dict[str, object]:
    tool = tomllib.loads(text).get("tool", {})
    table = tool.get("tensorcopy", {}) if isinstance(tool, dict) else {}
    if not isinstance(table, dict):
        raise ValueError(f"{_TABLE} must be a table")
    return table
