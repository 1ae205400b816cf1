"""The LibCST codemod face: ``python -m libcst.tool codemod -x flake8_tensorcopy.codemod.TensorCopyFix PATH``."""

import argparse

import libcst as cst
from libcst.codemod import CodemodCommand, CodemodContext, SkipFile

from flake8_tensorcopy.engine import SourceError
from flake8_tensorcopy.fixer import fix_source


class TensorCopyFix(CodemodCommand):
    DESCRIPTION = "Fix PyTorch tensor copying, conversion and aliasing bugs (flake8-tensorcopy)."

    @staticmethod
    def add_args(arg_parser: argparse.ArgumentParser) -> None:
        arg_parser.add_argument("--unsafe-fixes", action="store_true", help="also apply unsafe fixes")

    def __init__(self, context: CodemodContext, unsafe_fixes: bool = False) -> None:
        super().__init__(context)
        self.unsafe_fixes = unsafe_fixes

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        try:
            result = fix_source(tree.code, unsafe=self.unsafe_fixes)
        except SourceError as error:
            raise SkipFile(f"cannot analyse: {error}") from error
        if not result.changed:
            raise SkipFile("nothing to fix")
        return cst.parse_module(result.source)
