"""The one walk over a LibCST module that every rule shares.

Statements are followed in program order with Python's scoping: imports and assignments bind
names, ``if``/``try``/loop branches are merged, function bodies are walked once the scope
defining them is complete (so they see module names bound after the ``def``). Every call is
offered to the rules interested in its name, at the point of the walk where the scope holds
what the program knows there. A hand-written walk, not a ``CSTVisitor``: it visits only the
nodes that can hold expressions, which costs a fraction of LibCST's generic visitor dispatch.
"""

import ast
from typing import Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Tuple

import libcst as cst

from flake8_tensorcopy.analysis.callers import Disputed, disputed_parameters

from flake8_tensorcopy.knowledge.conventions import inplace_named, inplace_parameter
from flake8_tensorcopy.analysis.facts import (
    BLANK,
    BlankBuffer,
    element_key,
    PARAMETER,
    ClassFacts,
    Function,
    HeldBy,
    Made,
    Layer,
    LikeBuffer,
    ModuleClass,
    ModuleInstance,
    Optimizer,
    PlainClass,
    ParameterOf,
    ParametersOf,
    StateSnapshot,
)
from flake8_tensorcopy.analysis.provenance import GradProvenance, combine
from flake8_tensorcopy.analysis.scope import (
    INSTANCE,
    LEAF,
    LIST,
    MODULE,
    NDARRAY,
    NO_GRAD,
    NONE,
    RETAINED,
    TENSOR,
    TENSOR_SEQ,
    UNKNOWN,
    Binding,
    Grad,
    Scope,
    bind_target,
    dotted_name,
    import_bindings,
    is_none,
    merge_grads,
)
from flake8_tensorcopy.analysis.aliases import BLANK_BUFFERS, AliasTracker
from flake8_tensorcopy.analysis.evidence import Evidence, weakest
from flake8_tensorcopy.analysis.statements import children_of, decorator_names, receiver_of, small_statements, suite_statements
from flake8_tensorcopy.analysis.rebinding import rebound_names
from flake8_tensorcopy.analysis.tensors import (
    TENSOR_ANNOTATIONS,
    TENSOR_ONLY_METHODS,
    TensorInference,
    called_parameters_owner,
    has_slice,
    is_module_class,
)
from flake8_tensorcopy.data import INPLACE_METHODS

# Allocations shaped like their argument: ``buf = torch.empty_like(t)`` remembers ``t``.
LIKE_FACTORIES = frozenset({"torch.empty_like", "torch.zeros_like", "torch.ones_like"})

# Context managers under which no graph is recorded.
NO_GRAD_CONTEXTS = frozenset({"torch.no_grad", "torch.inference_mode"})

_TERMINATORS = (cst.Return, cst.Raise, cst.Continue, cst.Break)
_LEAVES = frozenset({cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.Ellipsis})


class Report:
    """A rule's verdict on one node, before positions are computed.

    ``message`` is the text, or, when the finding names other lines (``refs``: name -> node),
    the rule's function from those lines ({name: line}) to the text.
    """

    __slots__ = ("code", "node", "message", "fix", "refs")

    def __init__(self, code: str, node: cst.CSTNode, message, fix=None, refs=None):
        self.code = code
        self.node = node
        self.message = message
        self.fix = fix
        self.refs = refs or {}

    def text(self, lines: Dict[str, int]) -> str:
        return self.message(lines) if self.refs else self.message


class Analysis:
    """Walks one module and collects the rules' reports.

    Rules query it while it walks: ``kind_of``, ``qualname`` and ``lookup`` answer for the
    current point of the program; ``report`` records a finding.
    """

    def __init__(self, module: cst.Module, rules: Sequence, tree: Optional[ast.Module] = None, scanned=None):
        self.module = module
        self._tree = tree  # the stdlib ast of the whole source, for its call sites (None: parsed when needed)
        self._scanned = scanned  # scan.scan_statements(tree), when the engine has it
        self._disputed: Optional[Disputed] = None
        self.inference = TensorInference()
        self.rules_by_call: Dict[str, list] = {}
        self.rules_by_attribute: Dict[str, list] = {}
        for rule in rules:
            for name in rule.calls:
                self.rules_by_call.setdefault(name, []).append(rule)
            for name in rule.attributes:
                self.rules_by_attribute.setdefault(name, []).append(rule)
        self.write_rules = [rule for rule in rules if "in-place write" in rule.events]
        self.binding_rules = [rule for rule in rules if rule.binds]
        self.aliases = AliasTracker(self, [rule for rule in rules if "sharing" in rule.events])
        self.provenance = GradProvenance(self)
        self.inference.provenance = self.provenance
        self._reports: Dict[tuple, Report] = {}
        self.scope = Scope()
        self.no_grad_depth = 0
        self.statement_index = 0  # counts small statements: "the next statement" for rules
        self.statement: Optional[cst.CSTNode] = None  # the small statement being walked
        self.returning = False  # walking the value of a return statement
        self._instance: Optional[Binding] = None  # ``self`` of the class body being walked
        self._deferred = set()
        self._alias_root: Optional[str] = None  # the key of the source being aliased right now
        self._class_facts: Optional[ClassFacts] = None  # of the class whose methods are walked
        self._class_name: Optional[str] = None  # that class's name
        self._function: Optional[cst.FunctionDef] = None  # the function being walked
        self._loops: List[Loop] = []  # the loops around the point of the walk, innermost last
        self._returned: Dict[int, frozenset] = {}
        self._restored: Dict[int, frozenset] = {}
        self._training_step: Optional[tuple] = None
        self._classes: Dict[int, ClassFacts] = {}  # id of a class's attribute table -> its facts

    # ----- the queries rules use -------------------------------------------------------
    def kind_of(self, node: cst.BaseExpression) -> Optional[str]:
        return self.inference.kind_of(node, self.scope)

    def qualname(self, node: cst.BaseExpression) -> Optional[str]:
        return self.inference.qualname(node, self.scope)

    def grad_of(self, node: cst.BaseExpression) -> Grad:
        return self.provenance.grad_of(node)

    def evidence_of(self, node: cst.BaseExpression) -> Optional[Evidence]:
        """Where ``kind_of(node)`` comes from: a safe fix needs ``.strong`` evidence."""
        return self.inference.evidence_of(node, self.scope)

    def lookup(self, name: str) -> Optional[Binding]:
        return self.scope.lookup(name)

    @property
    def function(self) -> Optional[cst.FunctionDef]:
        """The function being walked (None at module and class level)."""
        return self._function

    def source_of(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def report(self, code: str, node: cst.CSTNode, message, fix=None, refs=None) -> None:
        """Record a finding; a node is reported once per code (loops are walked twice)."""
        self._reports.setdefault((code, id(node)), Report(code, node, message, fix, refs))

    # ----- scopes -----------------------------------------------------------------------
    def run(self) -> List[Report]:
        self.inference.rebound = rebound_names(self._stdlib_tree())
        self._walk_scope(self.module.body, self.scope)
        return list(self._reports.values())

    def _walk_scope(self, statements: Sequence[cst.CSTNode], scope: Scope) -> None:
        outer = self.scope
        self.scope = scope
        self._walk_block(statements)
        while scope.deferred:
            deferred, scope.deferred = scope.deferred, []
            for function, instance in deferred:
                self._walk_function(function, instance)
        self.scope = outer

    def _walk_function(self, node: cst.FunctionDef, instance: Optional[Binding]) -> None:
        scope = Scope(self.scope)
        params = node.params
        ordered = list(params.posonly_params) + list(params.params)
        if self.scope.parent is None:
            disputed = self._disputed_parameters(node, None)
        elif self.scope.is_class and self.scope.parent.parent is None:
            disputed = self._disputed_parameters(node, self._class_name)
        else:
            disputed = frozenset()  # a nested function: its callers are not matched
        for index, param in enumerate(ordered):
            if index == 0 and instance is not None:
                scope.names[param.name.value] = instance
            else:
                self._bind_param(param, scope, disputed)
        for param in params.kwonly_params:
            self._bind_param(param, scope, disputed)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                scope.names[star.name.value] = UNKNOWN
        scope.writes_params_on_purpose = inplace_named(node.name.value) or any(
            inplace_parameter(param.name.value) for param in ordered + list(params.kwonly_params)
        )
        if self.scope.is_class:
            scope.receiver = receiver_of(node)
        saved = self.no_grad_depth, self._function, self._loops
        no_grad = any(
            self.qualname(getattr(decorator.decorator, "func", decorator.decorator)) in NO_GRAD_CONTEXTS
            for decorator in node.decorators
        )  # @torch.no_grad() / @torch.inference_mode()
        self.no_grad_depth, self._function, self._loops = int(no_grad), node, []
        self._walk_scope(suite_statements(node.body), scope)
        self.no_grad_depth, self._function, self._loops = saved

    def _disputed_parameters(self, node: cst.FunctionDef, class_name: Optional[str]) -> FrozenSet[str]:
        """The parameters of a top-level function or method that a call site of this file
        passes something that is not a tensor (``analysis.callers``): their annotation is not
        evidence. Computed once per module, and only for a function with an annotation."""
        params = node.params
        if all(param.annotation is None for param in list(params.posonly_params) + list(params.params)
               + list(params.kwonly_params)):
            return frozenset()
        if self._disputed is None:
            self._disputed = disputed_parameters(self._stdlib_tree(), self._scanned)
        return self._disputed.get((class_name, node.name.value), frozenset())

    def _stdlib_tree(self) -> ast.Module:
        """The stdlib ast of the whole source (parsed here when the engine did not give it)."""
        if self._tree is None:
            try:
                self._tree = ast.parse(self.module.code)
            except (SyntaxError, ValueError):
                self._tree = ast.Module(body=[], type_ignores=[])
        return self._tree

    def _bind_param(self, param: cst.Param, scope: Scope, disputed: FrozenSet[str] = frozenset()) -> None:
        """Bind a parameter as its annotation says, unless the file's callers dispute it."""
        if param.name.value in disputed:
            scope.names[param.name.value] = Binding(origin=PARAMETER)
            return
        annotation = param.annotation.annotation if param.annotation is not None else None
        kind = self.inference.annotation_kind(annotation, self.scope)
        grad = LEAF if annotation is not None and self.qualname(annotation) == "torch.nn.Parameter" else None
        attributes = None
        if type(annotation) is cst.Name:  # a module class of this file: its attributes are known
            annotated = self.lookup(annotation.value)
            if annotated is not None and type(annotated.origin) is ModuleClass:
                kind, attributes = MODULE, annotated.origin.facts.attributes
            elif annotated is not None and type(annotated.origin) is PlainClass:
                kind, attributes = INSTANCE, annotated.origin.facts.attributes
        scope.names[param.name.value] = Binding(kind, origin=PARAMETER, attrs=attributes, grad=grad,
                                                evidence=Evidence.ANNOTATION)

    def _define_function(self, node: cst.FunctionDef) -> None:
        for decorator in node.decorators:
            self.visit(decorator.decorator)
        params = node.params
        for param in list(params.posonly_params) + list(params.params) + list(params.kwonly_params):
            if param.default is not None:
                self.visit(param.default)
        self.scope.bind(node.name.value, Binding(origin=Function(node)))
        if id(node) in self._deferred:
            return  # a loop body walked twice defines it twice
        self._deferred.add(id(node))
        instance = self._instance if self.scope.is_class and not _is_static(node) else None
        self.scope.deferred.append((node, instance))

    def _walk_class(self, node: cst.ClassDef) -> None:
        for decorator in node.decorators:
            self.visit(decorator.decorator)
        for argument in list(node.bases) + list(node.keywords):
            self.visit(argument.value)
        methods = {
            statement.name.value: statement
            for statement in suite_statements(node.body)
            if type(statement) is cst.FunctionDef and not _is_static(statement)
        }
        attributes = self._instance_attributes(node)
        facts = ClassFacts(methods=methods)
        self._class_pass(methods.values(), facts, attributes)
        is_module = any(self._is_module_base(argument.value) for argument in node.bases)
        self.scope.bind(node.name.value, Binding(origin=ModuleClass(facts) if is_module else PlainClass(facts)))
        class_scope = Scope(self.scope, is_class=True)
        outer = self._instance, self._class_facts, self._class_name
        self._instance = Binding(INSTANCE, origin=PARAMETER, attrs=attributes)
        self._class_facts, self._class_name = facts, node.name.value
        facts.attributes = self._instance.attrs
        self._classes[id(facts.attributes)] = facts
        self._walk_scope(suite_statements(node.body), class_scope)
        self._instance, self._class_facts, self._class_name = outer

    def _class_pass(self, methods, facts: ClassFacts, attributes: Dict[str, Binding]) -> None:
        """Class facts from every method before any body is walked: the state_dict snapshots
        stored on self (``self.best = self.model.state_dict()``) and the tensor attributes
        written in place outside ``__init__``."""
        for method in methods:
            self_name = receiver_of(method)
            if self_name is None:
                continue
            for small in small_statements(suite_statements(method.body)):
                if type(small) is cst.Assign and type(small.value) in (cst.Call, cst.DictComp):
                    for target in small.targets:
                        attr = _self_attribute(target.target, self_name)
                        alias = self.aliases.describe(small.value) if attr is not None else None
                        if alias is not None and alias.made is Made.STATE_DICT and (
                                alias.source.startswith(self_name + ".")):
                            facts.state_snapshots[attr] = StateSnapshot(small.value, alias.source[len(self_name):], alias.op)
                if method.name.value == "__init__":
                    continue
                for written, node in _written_in_place(small, self.aliases.root):
                    attr = _self_attribute(_without_indexes(written), self_name)
                    binding = attributes.get(attr) if attr is not None else None
                    if binding is not None and binding.kind in (TENSOR, NDARRAY):
                        facts.written_attributes.setdefault(attr, node)
                    item_of = _self_attribute(written.value, self_name) if type(written) is cst.Subscript else None
                    if item_of is not None:
                        facts.written_items.add(item_of)

    def _is_module_base(self, base: cst.BaseExpression) -> bool:
        if is_module_class(self.qualname(base)):
            return True
        binding = self.lookup(base.value) if type(base) is cst.Name else None
        return binding is not None and type(binding.origin) is ModuleClass

    def _instance_attributes(self, node: cst.ClassDef) -> Dict[str, Binding]:
        """What ``self.x`` holds, from every method and class-level annotation of the class.

        An attribute is a tensor when every non-None value assigned to it is one; it requires
        grad when some value assigned to it does (``nn.Parameter``, a layer's output). Two
        rounds, so that ``self.out = self.fc(x)`` sees what ``self.fc`` is.
        """
        attributes: Dict[str, Binding] = {}
        for _round in range(2):
            attributes = self._collect_instance_attributes(node, Binding(INSTANCE, attrs=attributes))
        return attributes

    def _collect_instance_attributes(self, node: cst.ClassDef, instance: Binding) -> Dict[str, Binding]:
        seen: Dict[str, set] = {}
        for statement in suite_statements(node.body):
            if type(statement) is cst.SimpleStatementLine:
                for small in statement.body:
                    if type(small) is cst.AnnAssign and type(small.target) is cst.Name:
                        kind = self.inference.annotation_kind(small.annotation.annotation, self.scope)
                        seen.setdefault(small.target.value, set()).add((kind, None, None, Evidence.ANNOTATION))
            elif type(statement) is cst.FunctionDef and not _is_static(statement):
                ordered = list(statement.params.posonly_params) + list(statement.params.params)
                if not ordered:
                    continue
                method_scope = Scope(self.scope)
                top_level = self.scope.parent is None
                disputed = self._disputed_parameters(statement, node.name.value) if top_level else frozenset()
                for param in ordered[1:] + list(statement.params.kwonly_params):
                    self._bind_param(param, method_scope, disputed)
                self_name = ordered[0].name.value
                method_scope.names[self_name] = instance
                outer, self.scope = self.scope, method_scope
                smalls = list(small_statements(suite_statements(statement.body)))
                kept = _kept_on_self(smalls, self_name)
                for small in smalls:
                    for attr, (kind, grad, origin, evidence) in self._self_assignments(small, self_name):
                        if type(origin) is Optimizer:
                            origin = _owned_by_receiver(origin, self_name, kept)
                        seen.setdefault(attr, set()).add((kind, grad, origin, evidence))
                self.scope = outer
        attributes = {}
        for attr, found in seen.items():
            kinds = {kind for kind, _grad, _origin, _evidence in found} - {NONE}
            grad = None
            for _kind, found_grad, _origin, _evidence in found:
                grad = found_grad if grad is None else merge_grads(grad, found_grad)
            kept_origins = {origin for _kind, _grad, origin, _evidence in found
                            if type(origin) in (Layer, Optimizer, ParametersOf)}
            origin = kept_origins.pop() if len(kept_origins) == 1 and len(found) == 1 else None
            evidence = weakest(evidence for kind, _grad, _origin, evidence in found if kind != NONE)
            if len(kinds) <= 1:
                attributes[attr] = Binding(kinds.pop() if kinds else None, grad=grad, origin=origin, evidence=evidence)
        return attributes

    def _self_assignments(self, small: cst.CSTNode, self_name: str):
        """(attribute, (kind, grad, origin, evidence)) for each ``self.x = ...`` or registration in ``small``."""
        small_type = type(small)
        if small_type is cst.Assign:
            value = small.value
            for target in small.targets:
                attr = _self_attribute(target.target, self_name)
                if attr is not None:
                    yield attr, (self.kind_of(value), self.grad_of(value), self._origin_of(value), self.evidence_of(value))
        elif small_type is cst.AnnAssign:
            attr = _self_attribute(small.target, self_name)
            if attr is not None:
                kind, evidence = self._annotated_kind(small)
                yield attr, (kind, self.grad_of(small.value) if small.value is not None else None, None, evidence)
        elif small_type is cst.Expr and type(small.value) is cst.Call:
            call = small.value
            func = call.func
            if (
                type(func) is cst.Attribute
                and func.attr.value in ("register_buffer", "register_parameter")
                and type(func.value) is cst.Name
                and func.value.value == self_name
                and len(call.args) >= 2
                and type(call.args[0].value) is cst.SimpleString
            ):
                value = call.args[1].value
                registered = NONE if is_none(value) else TENSOR
                grad = LEAF if func.attr.value == "register_parameter" else NO_GRAD.because("a registered buffer")
                evidence = Evidence.TORCH_API if registered == TENSOR else None  # torch would refuse anything else
                yield call.args[0].value.evaluated_value, (registered, grad, None, evidence)

    # ----- statements -------------------------------------------------------------------
    def _walk_block(self, statements: Iterable[cst.CSTNode]) -> bool:
        """Walk statements in order; True when the block always leaves (return, raise, ...)."""
        leaves = False
        for statement in statements:
            leaves = self._walk_statement(statement)
        return leaves

    def _walk_statement(self, node: cst.CSTNode) -> bool:
        node_type = type(node)
        if node_type is cst.SimpleStatementLine:
            for small in node.body:
                self._walk_small(small)
            return bool(node.body) and isinstance(node.body[-1], _TERMINATORS)
        walker = _STATEMENT_WALKERS.get(node_type)
        if walker is not None:
            walker(self, node)
        return False

    def _walk_suite(self, suite) -> bool:
        if type(suite) is cst.SimpleStatementSuite:
            for small in suite.body:
                self._walk_small(small)
            return bool(suite.body) and isinstance(suite.body[-1], _TERMINATORS)
        return self._walk_block(suite.body)

    def _branch(self, start: tuple, suite) -> Optional[tuple]:
        """Walk one branch from ``start``; its end state, or None when it always leaves."""
        self.scope.restore(start)
        leaves = self._walk_suite(suite)
        return None if leaves else self.scope.snapshot()

    def _merge(self, start: tuple, ends: List[Optional[tuple]]) -> None:
        reached = [end for end in ends if end is not None]
        self.scope.merge_from(*(reached or [start]))

    def _walk_if(self, node: cst.If) -> None:
        self.visit(node.test)
        start = self.scope.snapshot()
        not_tensor, in_body, tested_tensor = self._isinstance_narrowing(node.test)
        body_start, else_start = start, start
        if not_tensor is not None:
            narrowed = (dict(start[0], **{not_tensor: UNKNOWN}), start[1])
            other = start
            binding = self.lookup(not_tensor)
            if tested_tensor and binding is not None and binding.kind == TENSOR and not _strong(binding):
                # the other branch runs only where isinstance(x, Tensor) held
                other = (dict(start[0], **{not_tensor: binding.with_evidence(Evidence.ISINSTANCE)}), start[1])
            body_start, else_start = (narrowed, other) if in_body else (other, narrowed)
        module = self._module_narrowing(node.test)
        if module is not None:
            body_start = (dict(body_start[0], **{module[0]: module[1]}), body_start[1])
        ends = [self._branch(body_start, node.body)]
        orelse = node.orelse
        if orelse is None:
            ends.append(else_start)
        elif type(orelse) is cst.If:
            self.scope.restore(else_start)
            self._walk_if(orelse)
            ends.append(self.scope.snapshot())
        else:
            ends.append(self._branch(else_start, orelse.body))
        self._merge(start, ends)

    def _isinstance_test(self, call: cst.BaseExpression) -> Optional[Tuple[str, list]]:
        """(name, the classes tested) for the builtin ``isinstance(name, C)`` or ``(C1, C2)``."""
        if (
            type(call) is not cst.Call
            or type(call.func) is not cst.Name
            or call.func.value != "isinstance"
            or self.lookup("isinstance") is not None
            or len(call.args) != 2
            or type(call.args[0].value) is not cst.Name
        ):
            return None
        classes = call.args[1].value
        elements = [element.value for element in classes.elements] if type(classes) is cst.Tuple else [classes]
        return call.args[0].value.value, elements

    def _module_narrowing(self, test: cst.BaseExpression) -> Optional[Tuple[str, Binding]]:
        """(name, a module binding) when ``if isinstance(m, nn.BatchNorm2d):`` proves ``m`` a module
        in the body (a class of this file brings what its attributes hold)."""
        tested = self._isinstance_test(test)
        if tested is None:
            return None
        name, elements = tested
        attributes = None
        for element in elements:
            local = self.lookup(element.value) if type(element) is cst.Name else None
            if local is not None and type(local.origin) is ModuleClass:
                attributes = local.origin.facts.attributes if len(elements) == 1 else None
            elif not is_module_class(self.qualname(element)):
                return None
        return name, Binding(MODULE, attrs=attributes, evidence=Evidence.ISINSTANCE)

    def _isinstance_narrowing(self, test: cst.BaseExpression):
        """(name, in the body?, tested Tensor?) when an ``isinstance`` test says a name is not a
        tensor in one branch (and, when it tested Tensor, that it is one in the other).

        ``if isinstance(size, torch.Size):`` and ``if not isinstance(m, Tensor):`` both do so in the
        body; ``if isinstance(t, Tensor): ... else:`` in the else branch.
        """
        negated = type(test) is cst.UnaryOperation and type(test.operator) is cst.Not
        tested = self._isinstance_test(test.expression if negated else test)
        if tested is None:
            return None, False, False
        name, elements = tested
        is_tensor_class = any(self.qualname(element) in TENSOR_ANNOTATIONS for element in elements)
        if is_tensor_class and len(elements) > 1:
            return None, False, False
        # isinstance(x, Tensor) true -> tensor; so "not a tensor" holds where the test is false.
        return name, negated if is_tensor_class else not negated, is_tensor_class

    def _walk_for(self, node) -> None:
        self.visit(node.iter)
        item_kind = self.inference.iter_kind(node.iter, self.scope)
        iterable = node.iter
        owner = self.inference.parameters_owner(iterable, self.scope)
        parameters = owner is not None
        grad = self.provenance.item_grad(iterable, self.scope)
        evidence = self.inference.iter_evidence(iterable, self.scope)

        def bind_item():
            bind_target(node.target, item_kind, self.scope, grad, evidence)
            if owner is not None:
                self._bind_parameter_item(node.target, owner)
            self._offer_binding(node.target, iterable, iterated=True)

        self._walk_loop(node, bind_item, parameters)

    def _bind_parameter_item(self, target: cst.BaseExpression, owner: str) -> None:
        """``for p in model.parameters()`` / ``for name, p in model.named_parameters()``: ``p`` is
        an item of the model's parameters (its alias facts are keyed so)."""
        if type(target) is cst.Tuple and len(target.elements) == 2:
            target = target.elements[1].value
        binding = self.scope.names.get(target.value) if type(target) is cst.Name else None
        if binding is not None:
            self.scope.names[target.value] = Binding(binding.kind, origin=ParameterOf(owner), grad=binding.grad,
                                                     evidence=binding.evidence)

    def _walk_while(self, node: cst.While) -> None:
        self.visit(node.test)
        self._walk_loop(node, lambda: None, False)

    def _walk_loop(self, node, bind_item, over_parameters: bool) -> None:
        """Walk the body; again while alias facts are live, so a later iteration is seen.

        As mypy's binder does: the state at a ``continue`` joins the loop head (the next
        iteration and the normal exit), the state at a ``break`` joins only the exit, past
        the ``else`` clause.
        """
        start = self.scope.snapshot()
        loop = Loop(self.scope.frame, frozenset(start[0]), over_parameters, node)
        self._loops.append(loop)
        bind_item()
        end = None if self._walk_suite(node.body) else self.scope.snapshot()
        heads = [start] + ([end] if end is not None else []) + loop.continues
        if self.scope.frame.aliases and len(heads) > 1:
            self.scope.merge_from(*heads)
            bind_item()
            end = None if self._walk_suite(node.body) else self.scope.snapshot()
            heads = [start] + ([end] if end is not None else []) + loop.continues
        self._loops.pop()
        self.scope.merge_from(*heads)
        if node.orelse is not None and self._walk_suite(node.orelse.body):
            exits = loop.breaks
        else:
            exits = [self.scope.snapshot()] + loop.breaks
        if exits:
            self.scope.merge_from(*exits)

    def _walk_try(self, node) -> None:
        start = self.scope.snapshot()
        after_body = self._branch(start, node.body)
        if after_body is not None and node.orelse is not None:
            after_body = self._branch(after_body, node.orelse.body)
        ends = [after_body]
        # A handler may start anywhere in the body: from the merge of its start and its end.
        self._merge(start, [start, after_body])
        handler_start = self.scope.snapshot()
        for handler in node.handlers:
            if handler.type is not None:
                self.visit(handler.type)
            self.scope.restore(handler_start)
            if handler.name is not None:
                bind_target(handler.name.name, None, self.scope)
            ends.append(self._branch(self.scope.snapshot(), handler.body))
        self._merge(start, ends)
        if node.finalbody is not None:
            self._walk_suite(node.finalbody.body)

    def _walk_with(self, node: cst.With) -> None:
        no_grad = False
        for item in node.items:
            self.visit(item.item)
            if type(item.item) is cst.Call and self.qualname(item.item.func) in NO_GRAD_CONTEXTS:
                no_grad = True
            if item.asname is not None:
                bind_target(item.asname.name, None, self.scope)
        self.no_grad_depth += no_grad
        self._walk_suite(node.body)
        self.no_grad_depth -= no_grad

    def _walk_match(self, node) -> None:
        self.visit(node.subject)
        start = self.scope.snapshot()
        ends = []
        for case in node.cases:
            self.scope.restore(start)
            for name in _pattern_names(case.pattern):
                self.scope.bind(name, UNKNOWN)
            if case.guard is not None:
                self.visit(case.guard)
            ends.append(self._branch(self.scope.snapshot(), case.body))
        ends.append(start)
        self._merge(start, ends)

    def _walk_small(self, node: cst.CSTNode) -> None:
        self.statement_index += 1
        self.statement = node
        node_type = type(node)
        if node_type is cst.Assign:
            self._walk_assign(node)
        elif node_type is cst.Expr:
            self.visit(node.value)
            self._track_collection_growth(node.value)
            self._track_grad_toggles(node.value)
            if self.scope.frame.aliases and type(node.value) is cst.Yield and node.value.value is not None:
                self._escape(node.value.value)
        elif node_type is cst.AnnAssign:
            if node.value is not None:
                self.visit(node.value)
            if type(node.target) is cst.Name:
                kind, evidence = self._annotated_kind(node)
                grad = self.grad_of(node.value) if node.value is not None else None
                self.scope.bind(node.target.value, Binding(kind, grad=grad, evidence=evidence))
            else:
                self.visit(node.target)
        elif node_type is cst.AugAssign:
            self._walk_aug_assign(node)
        elif node_type in (cst.Import, cst.ImportFrom):
            for local, qualname in import_bindings(node):
                self.scope.bind(local, Binding(qualname=qualname) if qualname else UNKNOWN)
        elif node_type is cst.Return:
            if node.value is not None:
                self.returning = True  # what is read here outlives the function
                self.visit(node.value)
                self.returning = False
        elif node_type is cst.Raise:
            for part in (node.exc, node.cause):
                if part is not None:
                    self.visit(part.item if type(part) is cst.From else part)
        elif node_type is cst.Assert:
            self.visit(node.test)
            if node.msg is not None:
                self.visit(node.msg)
        elif node_type is cst.Del:
            for name in _target_names(node.target):
                self.scope.bind(name, UNKNOWN)
        elif node_type is cst.Break and self._loops:
            self._loops[-1].breaks.append(self.scope.snapshot())
        elif node_type is cst.Continue and self._loops:
            self._loops[-1].continues.append(self.scope.snapshot())

    def _annotated_kind(self, node: cst.AnnAssign) -> tuple:
        """(kind, evidence) of ``x: T = value``: the value's when it agrees with the annotation."""
        kind = self.inference.annotation_kind(node.annotation.annotation, self.scope)
        value = node.value
        if value is not None and (kind is None or self.kind_of(value) == kind):
            return self.kind_of(value), self.evidence_of(value)
        return kind, Evidence.ANNOTATION

    def _walk_assign(self, node: cst.Assign) -> None:
        value = node.value
        if self.scope.frame.aliases and self.aliases.describe(value) is not None:
            # Taking a new alias of a value is not an observation of its contents.
            self._alias_root = self.aliases.root_key(value)
        self.visit(value)
        self._alias_root = None
        kind = self.kind_of(value)
        grad = self.grad_of(value)
        origin = self._origin_of(value)
        evidence = self.evidence_of(value) if kind is not None else None
        aliases = self.aliases
        if kind is None and type(value) is cst.Call:
            kind = aliases.summarized_kind(value)  # memory of a tensor argument, by the callee's summary
            evidence = Evidence.SUMMARY if kind is not None else None
        for assign_target in node.targets:
            target = assign_target.target
            target_type = type(target)
            if target_type is cst.Name:
                self.scope.bind(target.value, Binding(kind, origin=origin, grad=grad, evidence=evidence))
                aliases.made(target.value, value)
                self._offer_binding(target, value)
            elif target_type in (cst.Tuple, cst.List):
                if type(value) in (cst.Tuple, cst.List) and len(target.elements) == len(value.elements):
                    kinds = tuple(self.kind_of(element.value) for element in value.elements)
                    bind_target(target, kinds, self.scope,
                                evidence=tuple(self.evidence_of(element.value) for element in value.elements))
                else:
                    bind_target(target, kind, self.scope, grad, evidence)
                    aliases.made_sequence(target, value)
                self._offer_binding(target, value)
            elif target_type is cst.Attribute:
                self.visit(target.value)
                self._offer_attribute(target, store=True)
                self._note_requires_grad_set(target, value)
                if self._class_facts is not None and self._is_self(target.value):
                    self._note_stored_on_self(target.attr.value, kind, grad)
                key = dotted_name(target)
                if key is not None:
                    blank = self.scope.frame.blank_attributes
                    if type(origin) in (BlankBuffer, LikeBuffer):
                        blank.add(key)
                    else:
                        blank.discard(key)
                    self.scope.frame.forget(key)
                    self._escape(value)
                    aliases.made(key, value)
                    self._store_on_self(target.value, key, value)
                self._offer_binding(target, value)
            elif target_type is cst.Subscript:
                self._visit_store_target(target)
                self._offer_write(node, target, value)
                if type(target.value) is cst.Name and self.kind_of(target.value) == TENSOR_SEQ:
                    self._join_items(target.value.value, value, TENSOR_SEQ if has_slice(target) else TENSOR)
                item = aliases.item_key(target)
                if item is not None:
                    if not item.endswith("[*]"):
                        self.scope.frame.forget(item)  # the item now holds another object
                    aliases.made(item, value, stored=True)
                    self._store_on_self(target.value, item, value)
                written_key = _written_key(target.value)
                if written_key is not None:
                    self.aliases.written_directly(written_key)
                if self.scope.frame.aliases:
                    self._escape(value)
                    if self.kind_of(target.value) in (TENSOR, NDARRAY):
                        written = aliases.root_key(target.value)
                        if written is not None:
                            aliases.written(written, target)
            else:
                self.visit(target)

    def _note_stored_on_self(self, attr: str, kind: Optional[str], grad: Grad) -> None:
        """``self.attr = value``: a graph tensor stored there makes ``.attr`` of a receiver of
        unknown class one too (``layer.aux_loss``), unless a class also stores a non-tensor."""
        stored = self.inference.graph_attributes
        if grad.graph_non_leaf:
            if stored.get(attr, grad) is not None:
                where = f" in {self._function.name.value}()" if self._function is not None else ""
                stored[attr] = grad.because(f"a class of this file stores a tensor in a graph in self.{attr}{where}")
        elif kind not in (TENSOR, NONE):
            stored[attr] = None

    def _escape(self, value: cst.BaseExpression) -> None:
        """``value`` is stored away (attribute, container, yield): it outlives the function."""
        if self.scope.frame.aliases:
            key = dotted_name(value)
            if key is not None:
                self.aliases.escaped(key)

    def _origin_of(self, value: cst.BaseExpression):
        """How an assigned value was made, for rules and facts that follow it."""
        if type(value) is cst.Subscript:
            container = _written_key(value)
            holder = self.aliases.holder_of(container) if container is not None else None
            return HeldBy(holder) if holder is not None else None
        if type(value) is not cst.Call:
            return None
        held = self.aliases.returned_memory(value)
        if held is not None:
            return held
        owner = called_parameters_owner(value)
        if owner is not None:
            return ParametersOf(owner)
        qualname = self.qualname(value.func)
        if qualname is None:
            if type(value.func) is cst.Name:
                binding = self.lookup(value.func.value)
                if binding is not None and type(binding.origin) is ModuleClass:
                    return ModuleInstance(binding.origin.facts)
            return None
        if qualname in LIKE_FACTORIES and value.args:
            source = value.args[0].value
            source_binding = self.lookup(source.value) if type(source) is cst.Name else None
            return LikeBuffer(source, source_binding, self.statement_index)
        if qualname in BLANK_BUFFERS:
            return BLANK
        if is_module_class(qualname):
            return Layer(qualname)
        if qualname.startswith("torch.optim.") and value.args:
            owner = called_parameters_owner(value.args[0].value)
            if owner is not None:
                return Optimizer(owner)
        return None

    def _walk_aug_assign(self, node: cst.AugAssign) -> None:
        self.visit(node.value)
        target = node.target
        self._visit_store_target(target)
        self._offer_write(node, target, node.value)
        current = self.kind_of(target)
        added = self.kind_of(node.value)
        if current in (TENSOR, NDARRAY) and self.scope.frame.aliases:
            written = self.aliases.root_key(target.value if type(target) is cst.Subscript else target)
            if written is not None:
                self.aliases.written(written, node)
        if type(target) is not cst.Name:
            return
        if current in (LIST, TENSOR_SEQ) and added in (LIST, TENSOR_SEQ):
            kind = TENSOR_SEQ if TENSOR_SEQ in (current, added) else LIST
        elif TENSOR in (current, added):
            kind = TENSOR
        else:
            kind = current if current == added else None
        grad = self.grad_of(target)
        if not (current == TENSOR and (grad or self.no_grad_depth)):  # in place, a leaf stays a leaf
            grad = combine((grad, self.grad_of(node.value)))
        evidence = weakest(self.evidence_of(side) for side in (target, node.value) if self.kind_of(side) == kind)
        if current in (TENSOR, NDARRAY, LIST, TENSOR_SEQ):
            # In place: the same object, so its aliases and origin still hold.
            origin = self.lookup(target.value).origin
            self.scope.names[target.value] = Binding(kind, origin=origin, grad=grad, evidence=evidence)
        else:
            self.scope.bind(target.value, Binding(kind, grad=grad, evidence=evidence))

    def _store_on_self(self, target: cst.BaseExpression, key: str, value: cst.BaseExpression) -> None:
        """``value`` is stored under ``key`` on the receiver (``self.last = ...``, ``self.hist[i] = ...``,
        ``self.hist.append(...)``): it outlives the call, and other calls may write its source."""
        while type(target) is cst.Attribute:
            target = target.value
        if self._class_facts is not None and self._is_self(target):
            self.aliases.stored_on_self(key, value, self._class_facts)

    def training_step(self) -> Optional[cst.Call]:
        """The ``.step()`` call of a function of this module that also runs ``.backward()``
        (a training step: it writes the parameters of the model it trains), if there is one."""
        if self._training_step is None:
            self._training_step = (_training_step(self.module),)
        return self._training_step[0]

    def _track_collection_growth(self, value: cst.BaseExpression) -> None:
        """``losses.append(loss)`` makes a list known to hold tensors."""
        if type(value) is not cst.Call or type(value.func) is not cst.Attribute:
            return
        receiver = value.func.value
        method = value.func.attr.value
        container = dotted_name(receiver)
        if method in ("append", "insert") and value.args and container is not None:
            self.aliases.made(element_key(container), value.args[-1].value, stored=True)
            if type(receiver) is cst.Attribute:
                self._store_on_self(receiver, element_key(container), value.args[-1].value)
        if type(receiver) is not cst.Name or method not in ("append", "extend", "insert") or not value.args:
            return
        if method != "insert" and self.scope.frame.aliases:
            self._escape(value.args[-1].value)
        self._join_items(receiver.value, value.args[-1].value, TENSOR_SEQ if method == "extend" else TENSOR)

    def _join_items(self, name: str, added: cst.BaseExpression, tensors: str) -> None:
        """A list ``name`` takes ``added`` among its items (``append``, ``extend``, ``xs[i] = v``):
        it holds tensors once it takes some (``added`` of kind ``tensors``), and its items are
        only as well known as every one of them: one not known a tensor makes them weak."""
        binding = self.lookup(name)
        if binding is None or binding.kind not in (LIST, TENSOR_SEQ):
            return
        owner = self.scope.owner_of(name)
        if self.kind_of(added) == tensors:
            evidence = self.evidence_of(added) if binding.kind == LIST else weakest((binding.evidence, self.evidence_of(added)))
            grad = self.grad_of(added) if binding.kind == LIST else combine((binding.grad, self.grad_of(added)))
            owner.names[name] = Binding(TENSOR_SEQ, origin=binding.origin, grad=grad, evidence=evidence)
        elif binding.kind == TENSOR_SEQ:
            owner.names[name] = binding.with_evidence(weakest((binding.evidence, Evidence.SOME_ITEMS)))

    # ----- expressions ------------------------------------------------------------------
    def visit(self, node: cst.CSTNode) -> None:
        """Offer every call inside ``node`` to the rules, in evaluation order."""
        node_type = type(node)
        if node_type is cst.Name:
            if self.scope.frame.aliases and node.value != self._alias_root:
                self.aliases.read(node.value, node)
            return
        if node_type in _LEAVES:
            return
        if node_type is cst.Call:
            for argument in node.args:
                if argument.keyword is not None and argument.keyword.value == "out":
                    self._visit_store_target(argument.value)  # written, not read
                else:
                    self.visit(argument.value)
            self.visit(node.func)
            self._offer_call(node)
            func = node.func
            if type(func) is cst.Attribute and type(func.value) is cst.Name:
                if func.attr.value in TENSOR_ONLY_METHODS:
                    self._proven_tensor(func.value.value, Evidence.USE)
                elif func.attr.value in INPLACE_METHODS:
                    self._proven_tensor(func.value.value, Evidence.USE, unknown=True)
            if self.scope.frame.aliases:
                for key, training in self.aliases.call_writes(node):
                    self.aliases.written(key, node, training)
            elif type(node.func) is cst.Attribute and node.func.attr.value in INPLACE_METHODS:
                written_key = _written_key(node.func.value)
                if written_key is not None:
                    self.aliases.written_directly(written_key)
            if type(node.func) is cst.Name:
                self._note_module_call(node.func.value)
            elif type(func) is cst.Attribute and func.attr.value == "load_state_dict" and self._class_facts is not None:
                self.aliases.loaded_back(node)
            return
        if node_type is cst.Attribute:
            self._offer_attribute(node)
            if self.scope.frame.aliases:
                key = dotted_name(node)
                if key is not None:
                    root = self._alias_root
                    if root is None or (key != root and not key.startswith(root + ".")):
                        self.aliases.read(key, node)
                    return
            self.visit(node.value)
            return
        visitor = _EXPRESSION_VISITORS.get(node_type)
        if visitor is not None:
            visitor(self, node)
        else:
            for child in children_of(node):
                self.visit(child)

    def _offer_attribute(self, node: cst.Attribute, store: bool = False) -> None:
        for rule in self.rules_by_attribute.get(node.attr.value, ()):
            rule.check_attribute(node, self, store)

    def _offer_binding(self, target: cst.BaseExpression, value: cst.BaseExpression, iterated: bool = False) -> None:
        for rule in self.binding_rules:
            rule.check_binding(target, value, self, iterated)

    def _offer_write(self, node: cst.CSTNode, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        for rule in self.write_rules:
            rule.check_write(node, target, value, self)

    def returned_names(self) -> frozenset:
        """Names the function returns as they are in its last statement (``return x`` or
        ``return x, y``): an updater handing back what it changed (an early guard does not count)."""
        function = self._function
        if function is None:
            return frozenset()
        cached = self._returned.get(id(function))
        if cached is None:
            names = set()
            last = suite_statements(function.body)[-1]
            small = last.body[-1] if type(last) is cst.SimpleStatementLine and last.body else None
            if type(small) is cst.Return and small.value is not None:
                value = small.value
                values = [element.value for element in value.elements] if type(value) is cst.Tuple else [value]
                names.update(returned.value for returned in values if type(returned) is cst.Name)
            cached = self._returned[id(function)] = frozenset(names)
        return cached

    def undone(self, write: cst.CSTNode) -> bool:
        """Whether an element written at ``write`` (``flat[i] = v``) is later set back by the
        function to a value it read from that element first (``orig = flat[i].item()`` ...
        ``flat[i] = orig``): a perturbation the caller never sees."""
        function = self._function
        if function is None or type(write) is not cst.Subscript:
            return False
        restored = self._restored.get(id(function))
        if restored is None:
            restored = self._restored[id(function)] = _restored_targets(function, self.source_of)
        return self.source_of(write) in restored

    def _track_grad_toggles(self, value: cst.BaseExpression) -> None:
        """``x.retain_grad()`` keeps a non-leaf's .grad; ``x.requires_grad_()`` makes x require grad."""
        if type(value) is not cst.Call or type(value.func) is not cst.Attribute or type(value.func.value) is not cst.Name:
            return
        method = value.func.attr.value
        name = value.func.value.value
        binding = self.lookup(name)
        if binding is None:
            return
        if method == "retain_grad" and binding.grad:
            grad = RETAINED
        elif method == "requires_grad_":
            grad = self.grad_of(value)
        else:
            return
        owner = self.scope.owner_of(name)
        owner.names[name] = Binding(binding.kind, origin=binding.origin, attrs=binding.attrs, grad=grad,
                                    evidence=binding.evidence)

    def _note_requires_grad_set(self, target: cst.Attribute, value: cst.BaseExpression) -> None:
        """``x.requires_grad = True`` makes ``x`` a leaf that requires grad (False: one that cannot)."""
        if target.attr.value != "requires_grad" or type(target.value) is not cst.Name:
            return
        name = target.value.value
        binding = self.lookup(name)
        if binding is None or type(value) is not cst.Name or value.value not in ("True", "False"):
            return
        grad = LEAF.because("requires_grad = True was set") if value.value == "True" else NO_GRAD.because(
            "requires_grad = False was set")
        owner = self.scope.owner_of(name)
        owner.names[name] = Binding(binding.kind, origin=binding.origin, attrs=binding.attrs, grad=grad,
                                    evidence=binding.evidence)

    def _note_module_call(self, name: str) -> None:
        """Calling an instance of a module class of this file runs its forward."""
        binding = self.lookup(name)
        if binding is not None and type(binding.origin) is ModuleInstance and not binding.origin.forward_ran:
            owner = self.scope.owner_of(name)
            origin = ModuleInstance(binding.origin.facts, True)
            owner.names[name] = Binding(binding.kind, origin=origin, grad=binding.grad, evidence=binding.evidence)

    def _proven_tensor(self, name: str, evidence: Evidence, unknown: bool = False) -> None:
        """A name of this function known a tensor only by its annotation is proven one from here
        on (``x.detach()`` ran); with ``unknown``, so is a name of unknown kind (``x.mul_(2)``: only
        a tensor has torch's in-place methods). A name of an enclosing function is not: it is used
        elsewhere too."""
        binding = self.lookup(name)
        owner = self.scope.owner_of(name)
        if binding is None or owner.frame is not self.scope.frame:
            return
        if binding.kind == TENSOR and not _strong(binding):
            owner.names[name] = binding.with_evidence(evidence)
        elif unknown and binding.kind is None and binding.qualname is None:
            owner.names[name] = Binding(TENSOR, origin=binding.origin, grad=binding.grad, evidence=evidence)

    def _is_self(self, node: cst.BaseExpression) -> bool:
        return type(node) is cst.Name and self._instance is not None and self.lookup(node.value) is self._instance

    def is_receiver(self, node: cst.BaseExpression) -> bool:
        """Whether ``node`` is the instance of the class whose method is being walked."""
        return self._is_self(node)

    def state_snapshot(self, attr: str) -> Optional[StateSnapshot]:
        """The state_dict snapshot of its own model that a method of the class being walked
        stores in ``self.attr``, if one does."""
        return self._class_facts.state_snapshots.get(attr) if self._class_facts is not None else None

    def method_of(self, receiver: cst.BaseExpression, name: str) -> Optional[cst.FunctionDef]:
        """The method ``name`` of the class of this file that ``receiver`` (a name annotated with
        that class) is an instance of."""
        binding = self.lookup(receiver.value) if type(receiver) is cst.Name else None
        facts = self._classes.get(id(binding.attrs)) if binding is not None and binding.attrs is not None else None
        return facts.methods.get(name) if facts is not None else None

    def own_method(self, name: str) -> Optional[cst.FunctionDef]:
        """The instance method ``name`` of the class whose methods are being walked."""
        return self._class_facts.methods.get(name) if self._class_facts is not None else None

    def _offer_call(self, node: cst.Call) -> None:
        func = node.func
        if type(func) is cst.Attribute:
            name = func.attr.value
        elif type(func) is cst.Name:
            name = func.value
            binding = self.scope.lookup(name)
            if binding is not None and binding.qualname is not None:
                name = binding.qualname.rsplit(".", 1)[-1]
        else:
            return
        for rule in self.rules_by_call.get(name, ()):
            rule.check_call(node, self)

    def _visit_subscript(self, node: cst.Subscript) -> None:
        item = self.aliases.item_key(node) if self.scope.frame.aliases else None
        if item is None:
            self.visit(node.value)
            self._visit_subscript_parts(node)
            return
        self._offer_chain(node.value)  # an item of a dict or list is read, not every item
        self._visit_subscript_parts(node)
        self.aliases.read(item, node)

    def _visit_store_target(self, node: cst.BaseExpression) -> None:
        """A target written in place (``a[i] += ``, ``out=a[i]``): its indexes are read."""
        if type(node) is cst.Subscript:
            self._visit_subscript_parts(node)
            self._offer_chain(node.value)
        elif type(node) is cst.Attribute:
            self.visit(node.value)
            self._offer_attribute(node, store=True)
        elif type(node) is not cst.Name:
            self.visit(node)

    def _offer_chain(self, node: cst.BaseExpression) -> None:
        """Offer the attributes of a written chain (``p.data[0] = 1``) without reading it."""
        while type(node) in (cst.Attribute, cst.Subscript):
            if type(node) is cst.Attribute:
                self._offer_attribute(node)
            node = node.value

    def _visit_subscript_parts(self, node: cst.Subscript) -> None:
        """The index expressions only: for a store target, the base is written, not read."""
        for element in node.slice:
            part = element.slice
            if type(part) is cst.Index:
                self.visit(part.value)
            else:
                for bound in (part.lower, part.upper, part.step):
                    if bound is not None:
                        self.visit(bound)

    def _visit_elements(self, node) -> None:
        for element in node.elements:
            if type(element) is cst.DictElement:
                self.visit(element.key)
            self.visit(element.value)

    def _visit_lambda(self, node: cst.Lambda) -> None:
        scope = Scope(self.scope, frame=False)
        params = node.params
        for param in list(params.posonly_params) + list(params.params) + list(params.kwonly_params):
            if param.default is not None:
                self.visit(param.default)
            scope.names[param.name.value] = UNKNOWN
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                scope.names[star.name.value] = UNKNOWN
        outer, self.scope = self.scope, scope
        self.visit(node.body)
        self.scope = outer

    def _visit_comprehension(self, node) -> None:
        self.visit(node.for_in.iter)
        outer = self.scope
        self.scope = self.inference.comprehension_scope(node.for_in, outer)
        clause = node.for_in
        while clause is not None:
            if clause is not node.for_in:
                self.visit(clause.iter)
            for condition in clause.ifs:
                self.visit(condition.test)
            clause = clause.inner_for_in
        if type(node) is cst.DictComp:
            self.visit(node.key)
            self.visit(node.value)
        else:
            self.visit(node.elt)
        self.scope = outer

    def _visit_comparison(self, node: cst.Comparison) -> None:
        self.visit(node.left)
        for comparison in node.comparisons:
            self.visit(comparison.comparator)

    def _visit_named(self, node: cst.NamedExpr) -> None:
        self.visit(node.value)
        bind_target(node.target, self.kind_of(node.value), self.scope, evidence=self.evidence_of(node.value))




class Loop:
    """A loop being walked: where it is, and the states at its ``break`` and ``continue`` statements."""

    __slots__ = ("frame", "outer_names", "over_parameters", "node", "breaks", "continues")

    def __init__(self, frame: Scope, outer_names: frozenset, over_parameters: bool, node: cst.CSTNode):
        self.frame = frame
        self.outer_names = outer_names  # names bound before the loop: they live across iterations
        self.over_parameters = over_parameters  # ``for p in model.parameters()``
        self.node = node
        self.breaks: List[tuple] = []
        self.continues: List[tuple] = []


def _strong(binding: Binding) -> bool:
    return binding.evidence is not None and binding.evidence.strong


def _written_key(node: cst.BaseExpression) -> Optional[str]:
    """``x`` for ``x`` and ``x[0]``, ``self.buf`` for ``self.buf[:, 1:]``: what a written chain writes."""
    while type(node) is cst.Subscript:
        node = node.value
    return dotted_name(node)


def _training_step(module: cst.Module) -> Optional[cst.Call]:
    """The first ``.step()`` call found in a function that also calls ``.backward()``."""
    stack = [module]
    while stack:
        node = stack.pop()
        if type(node) is cst.FunctionDef:
            calls = {}
            inner = [node.body]
            while inner:
                part = inner.pop()
                if type(part) is cst.Call and type(part.func) is cst.Attribute:
                    calls.setdefault(part.func.attr.value, part)
                inner.extend(children_of(part))
            if "backward" in calls and "step" in calls:
                return calls["step"]
        stack.extend(children_of(node))
    return None


def _restored_targets(function: cst.FunctionDef, source_of) -> frozenset:
    """Source text of the subscripts ``T`` that the function saves (``v = T``, ``v = T.item()``,
    ``v = T.clone()``) and later assigns that saved name back to (``T = v``)."""
    saved: Dict[str, str] = {}  # name -> the subscript text it saved
    restored = set()
    for small in small_statements(suite_statements(function.body)):
        if type(small) is not cst.Assign or len(small.targets) != 1:
            continue
        target, value = small.targets[0].target, small.value
        if type(target) is cst.Name:
            saved_from = value
            if type(value) is cst.Call and not value.args and type(value.func) is cst.Attribute and (
                    value.func.attr.value in ("item", "clone")):
                saved_from = value.func.value
            if type(saved_from) is cst.Subscript:
                saved[target.value] = source_of(saved_from)
            else:
                saved.pop(target.value, None)
        elif type(target) is cst.Subscript and type(value) is cst.Name and saved.get(value.value) == source_of(target):
            restored.add(saved[value.value])
    return frozenset(restored)


def _self_attribute(target: cst.BaseExpression, self_name: str) -> Optional[str]:
    if type(target) is cst.Attribute and type(target.value) is cst.Name and target.value.value == self_name:
        return target.attr.value
    return None


def _written_in_place(small: cst.CSTNode, root) -> Iterator[Tuple[cst.BaseExpression, cst.CSTNode]]:
    """(written expression, writing node) for the in-place writes a small statement makes at
    its top level: ``x.add_(...)`` (``root`` follows views and in-place chains), ``out=x``,
    ``x[i] = ...`` (``x`` is written), ``x += ...`` (the caller checks that ``x`` is a tensor)."""
    small_type = type(small)
    if small_type is cst.Expr and type(small.value) is cst.Call:
        call = small.value
        if type(call.func) is cst.Attribute and call.func.attr.value in INPLACE_METHODS:
            yield root(call.func.value), call
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == "out":
                yield arg.value, call
    elif small_type is cst.Assign:
        for target in small.targets:
            if type(target.target) is cst.Subscript:
                yield target.target.value, small
    elif small_type is cst.AugAssign:
        yield small.target, small


def _without_indexes(node: cst.BaseExpression) -> cst.BaseExpression:
    while type(node) is cst.Subscript:
        node = node.value
    return node


def _kept_on_self(smalls, self_name: str) -> Dict[str, str]:
    """name -> attribute for each ``self.attr = name`` of a method (``self.model = model``)."""
    kept = {}
    for small in smalls:
        if type(small) is cst.Assign and type(small.value) is cst.Name:
            for target in small.targets:
                attr = _self_attribute(target.target, self_name)
                if attr is not None:
                    kept[small.value.value] = attr
    return kept


def _owned_by_receiver(optimizer: Optimizer, self_name: str, kept: Dict[str, str]) -> Optional[Optimizer]:
    """An optimizer stored on self, its owner as a path under the receiver (``.model``), when it
    was built from the parameters of ``self.model`` or of a name the method keeps on self."""
    owner = optimizer.owner
    if owner.startswith(self_name + "."):
        return Optimizer(owner[len(self_name):])
    root, dot, rest = owner.partition(".")
    if root in kept:
        return Optimizer("." + kept[root] + dot + rest)
    return None


def _is_static(node: cst.FunctionDef) -> bool:
    """A static or class method: its first parameter is not the instance."""
    return not {"staticmethod", "classmethod"}.isdisjoint(decorator_names(node))


def _target_names(target: cst.BaseExpression) -> Iterator[str]:
    if type(target) is cst.Name:
        yield target.value
    elif type(target) in (cst.Tuple, cst.List):
        for element in target.elements:
            yield from _target_names(element.value)


def _pattern_names(node: cst.CSTNode) -> Iterator[str]:
    """Names a match-case pattern captures."""
    if isinstance(node, (cst.MatchAs, cst.MatchStar)) and node.name is not None:
        yield node.name.value
    for child in children_of(node):
        yield from _pattern_names(child)


_STATEMENT_WALKERS = {
    cst.FunctionDef: Analysis._define_function,
    cst.ClassDef: Analysis._walk_class,
    cst.If: Analysis._walk_if,
    cst.For: Analysis._walk_for,
    cst.While: Analysis._walk_while,
    cst.Try: Analysis._walk_try,
    cst.TryStar: Analysis._walk_try,
    cst.With: Analysis._walk_with,
    cst.Match: Analysis._walk_match,
}

_EXPRESSION_VISITORS = {
    cst.Subscript: Analysis._visit_subscript,
    cst.List: Analysis._visit_elements,
    cst.Tuple: Analysis._visit_elements,
    cst.Set: Analysis._visit_elements,
    cst.Dict: Analysis._visit_elements,
    cst.Lambda: Analysis._visit_lambda,
    cst.ListComp: Analysis._visit_comprehension,
    cst.SetComp: Analysis._visit_comprehension,
    cst.GeneratorExp: Analysis._visit_comprehension,
    cst.DictComp: Analysis._visit_comprehension,
    cst.NamedExpr: Analysis._visit_named,
    cst.Comparison: Analysis._visit_comparison,
}
