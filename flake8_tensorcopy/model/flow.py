"""The flow graph of one function (or of module-level code), built once over the stdlib ast.

Blocks hold operations in order; edges join blocks. An operation is an ast statement (a simple
one: assignment, expression, return, ...) or a tuple for what a compound statement does:

- ``("test", expr)``: evaluate a condition (its reads and calls happen here, once);
- ``("assume", expr, truth)``: the condition held / failed: narrowing is a flow node (pyright);
- ``("iterate", node)``: evaluate a for loop's iterable, once, before the loop;
- ``("for", node)``: bind a for loop's target to an item of its iterable;
- ``("with", item)``, ``("except", handler)``, ``("case", case, subject)``: their bindings;
  ``("with_end", item)``: leaving a ``with`` block normally (a context it entered ends);
- ``("def", node)``: a nested function, lambda-free class or function definition binds a name.

Loops get a header block (``Block.loop``) where the solver widens; ``break`` goes past the
``else`` block, ``continue`` back to the header; every statement of a ``try`` body may jump to
its handlers; ``finally`` is entered from every way out of the ``try`` and leaves both to the
next statement and to the exit (a re-raised exception, a return inside the ``try``).
"""

import ast
from typing import List, Optional

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


class Block:
    __slots__ = ("index", "ops", "succ", "pred", "loop")

    def __init__(self, index: int):
        self.index = index
        self.ops: list = []
        self.succ: List[int] = []
        self.pred: List[int] = []
        self.loop = False


class FlowGraph:
    """``blocks[0]`` is the entry, ``blocks[1]`` the exit; ``node`` the function (or module)."""

    def __init__(self, node: ast.AST):
        self.node = node
        self.blocks: List[Block] = [Block(0), Block(1)]
        self.declared_global: set = set()
        self.declared_nonlocal: set = set()
        self.nested: list = []  # functions, lambdas and classes defined directly inside

    @property
    def exit(self) -> Block:
        return self.blocks[1]


class _Builder:
    def __init__(self, graph: FlowGraph):
        self.graph = graph
        self.loops: list = []  # (header, after) per enclosing loop
        self.finals: list = []  # finally entry blocks of enclosing try statements

    def new(self) -> int:
        block = Block(len(self.graph.blocks))
        self.graph.blocks.append(block)
        return block.index

    def link(self, source: Optional[int], target: int) -> None:
        if source is None:
            return
        blocks = self.graph.blocks
        if target not in blocks[source].succ:
            blocks[source].succ.append(target)
            blocks[target].pred.append(source)

    def add(self, block: int, op) -> None:
        self.graph.blocks[block].ops.append(op)

    def branch(self, source: int, op) -> int:
        block = self.new()
        self.link(source, block)
        self.add(block, op)
        return block

    def body(self, statements, current: Optional[int]) -> Optional[int]:
        for statement in statements:
            if current is None:
                break  # unreachable code after return, raise, break or continue
            current = self.statement(statement, current)
        return current

    def leave(self, current: int) -> None:
        """A return or raise: through the innermost finally, else to the exit."""
        self.link(current, self.finals[-1] if self.finals else 1)

    def statement(self, node: ast.stmt, current: int) -> Optional[int]:
        kind = type(node)
        handler = _COMPOUND.get(kind)
        if handler is not None:
            return handler(self, node, current)
        if kind in _FUNCTIONS or kind is ast.ClassDef:
            self.graph.nested.append(node)
            self.add(current, ("def", node))
            return current
        if kind is ast.Global:
            self.graph.declared_global.update(node.names)
            return current
        if kind is ast.Nonlocal:
            self.graph.declared_nonlocal.update(node.names)
            return current
        self.add(current, node)
        if kind is ast.Return or kind is ast.Raise:
            self.leave(current)
            return None
        if kind is ast.Break:
            self.link(current, self.loops[-1][1])
            return None
        if kind is ast.Continue:
            self.link(current, self.loops[-1][0])
            return None
        if kind is ast.Assert:
            self.add(current, ("assume", node.test, True))
        return current

    def if_(self, node: ast.If, current: int) -> Optional[int]:
        self.add(current, ("test", node.test))
        then = self.body(node.body, self.branch(current, ("assume", node.test, True)))
        other = self.body(node.orelse, self.branch(current, ("assume", node.test, False)))
        return self.merge(then, other)

    def merge(self, *ends) -> Optional[int]:
        live = [end for end in ends if end is not None]
        if not live:
            return None
        after = self.new()
        for end in live:
            self.link(end, after)
        return after

    def loop(self, node, current: int, header_op, enter_op, leave_op) -> Optional[int]:
        header = self.new()
        self.graph.blocks[header].loop = True
        self.link(current, header)
        if header_op is not None:
            self.add(header, header_op)
        after = self.new()
        self.loops.append((header, after))
        end = self.body(node.body, self.branch(header, enter_op))
        self.loops.pop()
        self.link(end, header)
        if leave_op is not False:
            out = self.new()
            self.link(header, out)
            if leave_op is not None:
                self.add(out, leave_op)
            self.link(self.body(node.orelse, out), after)
        return after if self.graph.blocks[after].pred else None

    def for_(self, node, current: int) -> Optional[int]:
        self.add(current, ("iterate", node))
        return self.loop(node, current, None, ("for", node), None)

    def while_(self, node: ast.While, current: int) -> Optional[int]:
        forever = type(node.test) is ast.Constant and bool(node.test.value)
        leave = False if forever else ("assume", node.test, False)
        return self.loop(node, current, ("test", node.test), ("assume", node.test, True), leave)

    def with_(self, node, current: int) -> Optional[int]:
        for item in node.items:
            self.add(current, ("with", item))
        end = self.body(node.body, current)
        if end is not None:
            for item in reversed(node.items):
                self.add(end, ("with_end", item))
        return end

    def try_(self, node, current: int) -> Optional[int]:
        final = self.new() if node.finalbody else None
        if final is not None:
            self.finals.append(final)
        raised = self.new()  # where an exception inside the try body lands
        self.link(current, raised)
        for statement in node.body:  # one block per statement: each may raise midway
            if current is None:
                break
            start = self.new()
            self.link(current, start)
            current = self.statement(statement, start)
            self.link(current, raised)
        ends = [self.body(node.orelse, current)]
        for handler in node.handlers:
            ends.append(self.body(handler.body, self.branch(raised, ("except", handler))))
        if final is None:
            return self.merge(*ends)
        self.finals.pop()
        for end in ends:
            self.link(end, final)
        self.link(raised, final)  # an exception no handler takes
        end = self.body(node.finalbody, final)
        self.leave(end) if end is not None else None
        after = self.new()
        self.link(end, after)
        return after if end is not None else None

    def match(self, node, current: int) -> Optional[int]:
        self.add(current, ("test", node.subject))
        ends, test = [], current
        for case in node.cases:
            block = self.branch(test, ("case", case, node.subject))
            if case.guard is not None:
                self.add(block, ("test", case.guard))
                test = block
                block = self.branch(block, ("assume", case.guard, True))
            else:
                test = block
            ends.append(self.body(case.body, block))
        ends.append(test)  # no case matched
        return self.merge(*ends)


_COMPOUND = {
    ast.If: _Builder.if_,
    ast.For: _Builder.for_,
    ast.AsyncFor: _Builder.for_,
    ast.While: _Builder.while_,
    ast.With: _Builder.with_,
    ast.AsyncWith: _Builder.with_,
    ast.Try: _Builder.try_,
}
if hasattr(ast, "Match"):
    _COMPOUND[ast.Match] = _Builder.match
if hasattr(ast, "TryStar"):
    _COMPOUND[ast.TryStar] = _Builder.try_


def build_graph(node: ast.AST) -> FlowGraph:
    """The flow graph of a module, a function or a lambda (whose body is one return)."""
    graph = FlowGraph(node)
    builder = _Builder(graph)
    if type(node) is ast.Lambda:
        body = [ast.Return(value=node.body, lineno=node.body.lineno, col_offset=node.body.col_offset,
                           end_lineno=node.body.end_lineno, end_col_offset=node.body.end_col_offset)]
    else:
        body = node.body
    builder.link(builder.body(body, 0), 1)
    return graph
