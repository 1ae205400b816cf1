"""Summaries of this module's functions and methods, read at their call sites.

A call to a function of the same module (``to_grid(images)``, ``self.window(x)``) says nothing
by itself; its summary says what the callee does to its parameters: which of them it may
return memory of (``return x``, ``return x.transpose(-1, -2)``, ``return self.buf[:n]``) and
which it writes in place (directly, or through a local alias of the parameter). A summary is
made from the callee's own statements once, the first time a call site asks, so a helper
defined after its caller is summarised as well; a callee that calls another summarised
function composes with it. Cross-module calls stay unknown.
"""

from typing import Dict, List, Optional, Sequence

import libcst as cst

from flake8_tensorcopy.analysis.facts import FunctionSummary, ReturnedAlias
from flake8_tensorcopy.analysis.scope import NDARRAY, TENSOR, dotted_name
from flake8_tensorcopy.analysis.statements import small_statements, suite_statements
from flake8_tensorcopy.data import INPLACE_METHODS

_IN_PROGRESS = FunctionSummary()  # a recursive call sees an empty summary


def positional_names(function: cst.FunctionDef) -> List[str]:
    params = function.params
    return [param.name.value for param in list(params.posonly_params) + list(params.params)]


class Summaries:
    """One summary per function node of the module, made on first use."""

    def __init__(self, analysis, tracker):
        self.analysis = analysis
        self.tracker = tracker
        self._made: Dict[int, FunctionSummary] = {}

    def of(self, function: cst.FunctionDef) -> FunctionSummary:
        summary = self._made.get(id(function))
        if summary is None:
            self._made[id(function)] = _IN_PROGRESS
            summary = self._made[id(function)] = self._summarize(function)
        return summary

    def _summarize(self, function: cst.FunctionDef) -> FunctionSummary:
        names = positional_names(function)
        statements = list(small_statements(suite_statements(function.body)))
        rebound = {name for small in statements for name in _bound_names(small)}
        returned = []
        for small in statements:
            if type(small) is cst.Return and small.value is not None:
                alias = self._returned_alias(small.value, names, rebound, function.name.value)
                if alias is not None and alias not in returned:
                    returned.append(alias)
        return FunctionSummary(tuple(returned), *self._written_parameters(function, names, statements))

    def _returned_alias(self, value: cst.BaseExpression, names: Sequence[str], rebound: set,
                        function_name: str) -> Optional[ReturnedAlias]:
        """The parameter (or attribute of one) whose memory ``return value`` hands back, if any."""
        steps, node = self.tracker.steps(value)
        key = dotted_name(node)
        if key is None:
            return None
        root, _dot, path = key.partition(".")
        if root not in names or root in rebound:
            return None
        operations = sum((step.operations for step in steps), ())
        op = f"{steps[0].op} in {function_name}()" if steps else None
        return ReturnedAlias(names.index(root), path, operations, op)

    def _written_parameters(self, function: cst.FunctionDef, names: Sequence[str], statements):
        """Indexes of the parameters written in place, directly or through a local alias, and
        (index, attribute path) of the attributes of parameters written in place (``self._obs[i] = 0``)."""
        annotation_kinds = {
            param.name.value: self.analysis.inference.annotation_kind(param.annotation.annotation, self.analysis.scope)
            for param in list(function.params.posonly_params) + list(function.params.params)
            if param.annotation is not None
        }
        holds = {name: name for name in names}  # local name -> the parameter whose memory it holds
        written = set()
        attributes = set()
        for small in statements:
            key = None
            small_type = type(small)
            if small_type is cst.Expr and type(small.value) is cst.Call:
                func = small.value.func
                if type(func) is cst.Attribute and func.attr.value in INPLACE_METHODS:
                    key = self.tracker.root_key(func.value)
            elif small_type is cst.Assign:
                for target in small.targets:
                    if type(target.target) is cst.Subscript:
                        key = self.tracker.root_key(target.target.value)
                    elif type(target.target) is cst.Name:
                        source = self.tracker.root_key(small.value)
                        name = target.target.value
                        if source in holds and source != name:
                            holds[name] = holds[source]
                        elif source != name:
                            holds.pop(name, None)
            elif small_type is cst.AugAssign:
                target = small.target
                if type(target) is cst.Subscript:
                    key = self.tracker.root_key(target.value)
                elif type(target) is cst.Name and (
                        holds.get(target.value) != target.value
                        or annotation_kinds.get(target.value) in (TENSOR, NDARRAY)):
                    key = target.value  # ``arr -= m`` on an array or tensor writes it in place
            parameter = holds.get(key.split("[", 1)[0] if key is not None else None)  # ``t[0]``: an item of t
            if parameter is not None:
                written.add(names.index(parameter))
            elif key is not None and "." in key:
                root, _dot, path = key.partition(".")
                if holds.get(root) == root:
                    attributes.add((names.index(root), path))
        return tuple(sorted(written)), tuple(sorted(attributes))


def _bound_names(small: cst.CSTNode):
    """Names a small statement rebinds (plain and augmented assignment to a name)."""
    if type(small) is cst.Assign:
        for target in small.targets:
            if type(target.target) is cst.Name:
                yield target.target.value
    elif type(small) is cst.AugAssign and type(small.target) is cst.Name:
        yield small.target.value
