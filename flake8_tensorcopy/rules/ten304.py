"""TEN304: object identity (``id()``, ``is``) used as a memory-sharing test."""

from collections import Counter
from typing import Optional

import libcst as cst

from flake8_tensorcopy.fixes import Fix, bare, chain, keep_parentheses
from flake8_tensorcopy.rules.base import Rule, short_source


def _alias_between(model, left, right) -> Optional[str]:
    """The operation that made one of two values from the other: they share memory, and one
    is an alias the other is not (different objects). A move (``x.to(d)``, ``x.float()``) is
    no such operation: it hands back the tensor itself or a copy, so identity tells sharing. Nor
    two calls of one helper handing back what the same operation of it made of memory it holds
    (``a1 = gen.anchors(f); a2 = gen.anchors(f)``): a helper that caches returns one object twice
    (a view of its argument, ``first_rows(x)`` twice, is two objects)."""
    if not (left.storages & right.storages):
        return None
    mine, theirs = (model.alias_operations(value._replace(made=frozenset(
        made for made in value.made if made[2] != "move"))) for value in (left, right))
    different = [mine[where] for where in mine.keys() - theirs.keys()] + [
        theirs[where] for where in theirs.keys() - mine.keys()]
    # what two calls of one helper hand back, made by one operation of it on memory the helper
    # holds (not on the argument), may be one cached object
    by_name = (Counter(mine.values()) - Counter(theirs.values())) + (Counter(theirs.values()) - Counter(mine.values()))
    held = {op for made, op in model.held_by_callee if made in left.made | right.made}
    named = sorted((op for op in different if op in by_name or op not in held), key=lambda op: (op in held, op))
    return named[0] if named else None


def _made_here(model, call) -> Optional[str]:
    """The operation that made ``id()``'s argument right there (``id(x.data)``): a temporary, freed
    once ``id()`` returns."""
    argument = call.node.args[0]
    return model.alias_operations(call.detail["arguments"][0]).get(f"{argument.lineno}:{argument.col_offset}")


def _storage_pointer(node: cst.BaseExpression) -> cst.BaseExpression:
    return chain(bare(node), "untyped_storage", "data_ptr")


class IdentityAsSharingTest(Rule):
    """
    ## What it does
    Flags `id(a) == id(b)`, `id(a) != id(b)`, `a is b` where one side is an alias of the
    other (`detach()`, `.data`, a view, `.numpy()`), and `id()` of such a temporary
    (`id(x.detach())`, `id(x.view(-1))`) used anywhere. Not a move (`x.to(d)`, `x.float()`,
    `x.cpu()`): it hands back the tensor itself or a copy, so identity tells sharing exactly.

    ## Why is this bad?
    Object identity says nothing about memory: `x.detach() is x` is False although both
    share storage, and the id of a temporary can be reused by an unrelated tensor as soon as
    the temporary dies, so `id()` keys collide.

    ## Example
    ```python
    import torch

    def shares(x: torch.Tensor):
        d = x.detach()
        return id(d) == id(x)
    ```

    ## Use instead
    ```python
    import torch

    def shares(x: torch.Tensor):
        d = x.detach()
        return d.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    ```

    ## Fix safety
    Unsafe: the comparison now answers a different question (shared memory, not identity).
    """

    code = "TEN304"
    summary = "`id()`/`is` as a memory-sharing test is wrong for aliases; compare `untyped_storage().data_ptr()`"
    calls = ("id",)
    events = ("identity comparison",)

    def query(self, model, site) -> None:
        ids = {id(event.node): event for event in model.events.find("call")
               if event.detail.get("callee") == "id" and len(event.node.args) == 1 and not event.node.keywords}
        compared, reported = set(), set()
        for event in model.events.find("compare"):
            identity = type(event.node.ops[0]).__name__ in ("Is", "IsNot")
            operands = [event.node.left, event.node.comparators[0]]
            if "compared" in event.detail:  # a helper's test, on the values one call passes
                values = event.detail["compared"]
                compared.update(id(operand) for operand in operands if not identity)
            elif identity:
                values = event.detail["operands"]
            elif all(id(operand) in ids for operand in operands):
                values = [ids[id(operand)].detail["arguments"][0] for operand in operands]
                compared.update(id(operand) for operand in operands)
            else:
                continue
            # two temporaries made in the comparison: true of them whatever memory they share
            made = [] if identity or not all(id(operand) in ids for operand in operands) else [
                _made_here(model, ids[id(operand)]) for operand in operands]
            freed = bool(made) and all(made)
            operation = made[0] if freed else _alias_between(model, *values)
            node = site.node_of(event.node) if operation is not None and id(event.node) not in reported else None
            if node is not None:
                reported.add(id(event.node))
                self._comparison(site, node, operation, identity, freed)
        for key, event in ids.items():
            if key not in compared:
                self._temporary(model, site, event)

    def _comparison(self, site, node: cst.Comparison, operation: str, identity: bool, freed: bool) -> None:
        left, right = node.left, node.comparisons[0].comparator
        if not identity:
            left, right = left.args[0].value, right.args[0].value
        same = type(node.comparisons[0].operator) in (cst.Equal, cst.Is)
        fixed = cst.Comparison(
            left=_storage_pointer(left),
            comparisons=[cst.ComparisonTarget(cst.Equal() if same else cst.NotEqual(), _storage_pointer(right))],
        )
        if freed:
            why = (f"the ids of two temporaries ({operation} made each) can coincide: the first is freed before "
                   "the second is made, whatever memory they share")
        else:
            why = (f"{short_source(site, left)} and {short_source(site, right)} share memory ({operation} does not "
                   "copy) yet are different objects")
        site.report(self.code, node, f"identity is not memory sharing: {why}; compare .untyped_storage().data_ptr() instead",
                    Fix(keep_parentheses(node, fixed), safe=False))

    def _temporary(self, model, site, event) -> None:
        """``id(x.detach())``: the id of an alias made right there, freed right after."""
        operation = _made_here(model, event)
        call = site.node_of(event.node) if operation is not None else None
        if call is None:
            return
        temporary = call.args[0].value
        source = temporary.func.value if type(temporary) is cst.Call else temporary.value
        site.report(self.code, call,
                    f"id() of the temporary {short_source(site, temporary)} can be reused by another tensor once "
                    f"it is freed, and {operation} shares memory with '{short_source(site, source)}' anyway; "
                    "key by the tensor itself or by untyped_storage().data_ptr()")


RULES = (IdentityAsSharingTest(),)
