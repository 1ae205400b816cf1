"""TEN206: ``y = x`` of a tensor, two names for one tensor while one is written, as a query of the model."""

import ast
from typing import Optional

from flake8_tensorcopy import knowledge as k
from flake8_tensorcopy.knowledge.conventions import snapshot_named
from flake8_tensorcopy.fixes import Fix, bare, method
from flake8_tensorcopy.model.values import Evidence
from flake8_tensorcopy.rules.sharing import (
    AliasRule, Sharing, alias_place, held_by_receiver, kept_by_its_object, of_its_own_object, parameter_attribute,
    returned_side, source_written_itself, undone, unsafe, writes_arguments, written_for_its_source,
)


class AssignmentShares(AliasRule):
    """
    ## What it does
    Flags `y = x` (or `self.y = x`) of a tensor when `x` or `y` is then written in place and
    the other observed; not a parameter handed to a layer's own parameter
    (`dec.weight = enc.weight`: weights tied on purpose). A method returning its object's tensor
    as it is (`return self.state`) hands out the tensor itself: reported where the caller keeps
    it under a name that says snapshot (`prev = env.current()`, then `env.step()` writes it);
    under another name it is a handle (`keys = cache.current()`). An object keeping a model's
    parameter it is handed under the parameter's own name (`self.weight = weight`) and reading it
    while training updates it (an optimizer's step) watches it live, unless the caller keeps the
    object under a snapshot name (`best = Weights(model.weight)`); under another name
    (`self.shadow = weight`, `self.anchor = weight`) it was meant to differ.

    ## Why is this bad?
    Assignment never copies: both names are one tensor, and `y += 1` changes `x` too.

    ## Example
    ```python
    import torch

    def bump(x: torch.Tensor):
        y = x
        y += 1
        return y
    ```

    ## Use instead
    ```python
    import torch

    def bump(x: torch.Tensor):
        y = x.clone()
        y += 1
        return y
    ```

    ## Fix safety
    Unsafe: the new name holds a copy, which changes code that meant to update in place. None
    where a parameter is bound to an attribute of what may be a module: a module refuses a
    plain tensor under a parameter's name (TypeError).
    """

    code = "TEN206"
    kinds = ("assignment", "handed")
    summary = "`y = x` of a tensor makes two names for one tensor, then one is written; use `x.clone()`"
    use_instead = "a .clone() of the assigned tensor"

    def hazard(self, model, sharing: Sharing) -> bool:
        """Not a hazard: a second name for what another alias-making operation made (that
        operation's finding, ``_named_before``), for a module's output known only by the module's annotation (not
        surely a tensor), in a function that says it writes its arguments, for a parameter handed
        to a layer's own parameter (``dec.weight = enc.weight``: weights tied on purpose); nor, through the second
        name, a write the function also makes through the first, undoes, or makes to its own
        object's state, held or read back there, unless the alias is what it returns (``y =
        self.state; y[i] = v`` updates the state; ``scaled = slot; scaled.mul_(2); return scaled``
        meant a scaled result)."""
        alias = sharing.alias
        if alias.detail["operation"] == "handed" and not snapshot_named(alias_place(model, alias) or ""):
            return False  # ``keys = cache.current()``: a handle on the object's tensor, unless named as a snapshot
        if sharing.write.node is alias.node or alias_place(model, alias) == alias.place:
            # a helper that writes its argument and hands it back (written before the name), or
            # a name rebound to what it held (``tile = blend(prev, tile)``): no second name
            return False
        if _named_before(model, sharing) or alias.value.evidence("kind") is Evidence.ANNOTATED_MODULE:
            return False
        if writes_arguments(alias.function) or _tied(model, alias) or _anchored_anew_by_the_writer(
                model, alias, sharing.write):
            return False
        if not sharing.written_alias:  # the source is written and the second name read: unless the object
            # keeps a model's parameter it was handed by its own name, to watch training update it
            # (not where the caller keeps the object under a snapshot name: ``best = Weights(model.weight)``)
            return not (_kept_as_handed(model, alias) and _a_parameter(sharing.write.value)
                        and not any(snapshot_named(part) for part in (sharing.observed or "").split(".")))
        return not (source_written_itself(model, alias) or undone(model, sharing.write)
                    or written_for_its_source(model, alias, sharing)
                    or held_by_receiver(alias, sharing, read_back=True) and (
                        not returned_side(model, alias, True) or of_its_own_object(alias) and _partial(sharing.write)))

    def fix(self, node, alias, site) -> Optional[Fix]:
        """``x.clone()``, or ``a.copy()`` of a NumPy array; none where the value may be either."""
        kinds = alias.value.kinds & {"tensor", "ndarray"}
        if len(kinds) != 1:
            return None
        return unsafe(node, method(bare(node), "copy" if kinds == {"ndarray"} else "clone"))


RULE = AssignmentShares()


def _partial(write) -> bool:
    """A write of some positions of the tensor (``k_out[:, :, pos] = k``, ``k_out.index_copy_(2,
    pos, k)``): filling a buffer, not transforming all of it."""
    if type(write.node) is ast.Subscript:
        return True
    method = str(write.detail.get("method", ""))
    return method.startswith(("index_", "scatter", "masked_scatter")) or method == "put_"


def _tied(model, alias) -> bool:
    """A parameter (a leaf requiring grad) bound to a layer's parameter (``.weight``, ``.bias``)
    of what may be a module: two modules sharing one parameter, the way weights are tied; on an
    object that is no module (``snap.weight = layer.weight``) it is a second name, no tie."""
    name = alias_place(model, alias) or ""
    return "module_parameter" in k.role_of("attribute", name.rpartition(".")[2]) and parameter_attribute(model, alias)


def _a_parameter(value) -> bool:
    """A leaf that requires grad (``model.weight``, what an optimizer steps)."""
    return value.grad and not value.graph


def _kept_as_handed(model, alias) -> bool:
    """``self.weight = weight``: a method storing on its object, under the parameter's own name,
    a parameter it was handed; an object keeping a handle on what it watches. Kept under another
    name (``self.shadow = weight``, ``self.anchor = weight``) it is meant to differ from it."""
    function = alias.function
    offset = getattr(function, "receiver_offset", 0)
    return bool(offset) and alias.place in function.names[offset:] and \
        alias_place(model, alias) == f"{function.names[0]}.{alias.place}"


def _named_before(model, sharing) -> bool:
    """Whether the value is an alias another operation made: any other than an assignment, or
    an assignment in the same function (``snap = state; history[i] = snap``: the first name is
    the finding), unless the first is how the object keeps what its caller passed, written by
    another of its methods, and the two names are read side by side (``self.pos = start;
    self.origin = self.pos``, then ``self.pos - self.origin``: the second name is). A
    name another method bound (``self.weights = weights`` in ``__init__``) is
    how the object keeps what it was given, not a finding of its own. A view of new memory no
    name holds (``grid = torch.arange(12.0).reshape(3, 4)``) is no finding: a second name for it
    is, where the write and the observation are of those two names; so is a second name for a
    handle a method hands out on its object's tensor (``frame = cam.grab(); last = frame``)."""
    alias = sharing.alias
    others = alias.value.made - {alias.detail["made"]}
    made_by = {event.detail["made"]: event for event in model.events.find("alias")}
    for made in others:
        if made[2] == "handed" and made in made_by and not snapshot_named(alias_place(model, made_by[made]) or ""):
            continue  # ``frame = cam.grab()``, a handle on the object's buffer: no finding; ``last = frame`` is
        if made[2] != "assignment" and not (made in made_by and made_by[made].detail.get("fresh_source")
                                            and _between_its_two_names(model, sharing)):
            return True
        if made[2] == "assignment" and any(
                event.detail["made"] == made and event.function is alias.function
                and not (kept_by_its_object(event, alias_place(model, event), sharing.write)
                         and _read_side_by_side(model, alias))
                for event in model.events.find("alias")):
            return True
    return False


def _read_side_by_side(model, alias) -> bool:
    """Whether some function reads both of an object's names for one tensor (``self.pos -
    self.origin``): it takes them for two tensors. Names read apart (``self.dec_weight`` in
    ``decode``, ``self.enc_weight`` written in ``sgd``) are one tensor in two roles, as tied
    weights are."""
    first, second = alias.place or "", alias_place(model, alias) or ""
    if "." not in first or "." not in second:
        return False
    wanted = {first.split(".", 1)[1], second.split(".", 1)[1]}
    read = {}
    for event in model.events.find("read"):
        if event.place is not None and "." in event.place:
            holder, attribute = event.place.split(".", 1)
            read.setdefault((id(event.function), holder), set()).add(attribute)
    return any(wanted <= attributes for attributes in read.values())


def _anchored_anew_by_the_writer(model, alias, write) -> bool:
    """Whether the writing method's class is a subclass of the alias's whose own ``__init__``
    binds the second name anew (``self.origin = self.pos.clone()`` after ``super().__init__()``):
    its instances never hold the base's alias."""
    owner, second = alias.function.owner, alias_place(model, alias)
    if owner is None or second is None:
        return False
    # the method's own class, or, for a write a call makes (``s.move(v)``), the called method's
    called = [model.functions_by_name.get(call.detail.get("callee", "")) for call in model.events.find("call")
              if call.node is write.node]
    writers = {function.owner for function in [write.function] + called if function is not None} - {None, owner}
    initializers = [writer.methods.get("__init__") for writer in writers if owner in writer.lineage(model.classes)]
    return any(initializer is not None and any(bind.function is initializer and bind.place == second
                                               for bind in model.events.find("bind"))
               for initializer in initializers)


def _between_its_two_names(model, sharing) -> bool:
    """Whether the write and the observation are of the assignment's own two names (``origin =
    grid``, then ``grid`` written and ``origin`` read), not of another alias of the same memory
    that is a finding of its own (``kept.append(logits[:, 1:])``)."""
    names = {sharing.alias.place, alias_place(model, sharing.alias)}
    return sharing.write.place in names and sharing.observed in names
