"""A hazard the monitor saw: its rule, where it completed, the related places, the rule's fix,
and the static findings it confirms (the linter run once on each user file a report names)."""

import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from flake8_tensorcopy.engine import SourceError, lint_source
from flake8_tensorcopy.rules import RULES_BY_CODE
from flake8_tensorcopy.runtime.frames import Location

JSON_SCHEMA_VERSION = 1


@dataclass
class Report:
    code: str
    message: str
    where: Optional[Location]
    related: Dict[str, Location] = field(default_factory=dict)
    confirms: List[str] = field(default_factory=list)

    @property
    def fix(self) -> str:
        return RULES_BY_CODE[self.code].summary

    @property
    def key(self):
        return (self.code, self.where, tuple(sorted(self.related.items(), key=lambda item: item[0])))

    def render(self) -> str:
        lines = [f"{self.where or '<unknown>'}: {self.code} {self.message}"]
        lines += [f"    {label} at {location}" for label, location in self.related.items()]
        lines.append(f"    fix: {self.fix}")
        lines += [f"    confirms {finding}" for finding in self.confirms]
        return "\n".join(lines)

    def as_json(self) -> dict:
        return {
            "code": self.code,
            "message": self.message,
            "path": self.where.path if self.where else None,
            "line": self.where.line if self.where else None,
            "related": {label: {"path": loc.path, "line": loc.line} for label, loc in self.related.items()},
            "fix": self.fix,
            "confirms": self.confirms,
        }


class StaticFindings:
    """The linter's findings per user file, computed once per file on first need."""

    def __init__(self):
        self._by_path: Dict[str, set] = {}

    def at(self, location: Location) -> set:
        path = location.path
        if path not in self._by_path:
            self._by_path[path] = self._lint(path)
        return {code for line, code in self._by_path[path] if line == location.line}

    @staticmethod
    def _lint(path: str) -> set:
        if not os.path.isfile(path):
            return set()
        try:
            with open(path, encoding="utf-8") as handle:
                return {(finding.line, finding.code) for finding in lint_source(handle.read())}
        except (OSError, UnicodeDecodeError, SourceError):
            return set()

    def confirm(self, report: Report) -> None:
        places = dict.fromkeys([report.where, *report.related.values()])
        report.confirms = [
            f"{_shown(location.path)}:{location.line} {report.code}"
            for location in places
            if location is not None and report.code in self.at(location)
        ]


def _shown(path: str) -> str:
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative
