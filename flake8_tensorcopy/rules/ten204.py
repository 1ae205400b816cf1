"""TEN204: a view kept as a separate value while one side is written, as a query of the model."""

import ast
from typing import Optional

import libcst as cst

from flake8_tensorcopy.fixes import Fix, bare, method
from flake8_tensorcopy.knowledge.conventions import snapshot_named
from flake8_tensorcopy.model.summaries import parameter_holding
from flake8_tensorcopy.rules.sharing import (
    AliasRule, Sharing, alias_place, collected, held_by_receiver, of_its_own_object, returned_side, source_local,
    source_written_itself, undone, unsafe, views_a_blank_buffer, writes_arguments,
)
from flake8_tensorcopy.rules.writes import takes_everything


class ViewShares(AliasRule):
    """
    ## What it does
    Flags views (`view`, `reshape`, `flatten`, `transpose`, `permute`, `t()`, `.T`, `squeeze`,
    `unsqueeze`, `expand`, `narrow`, `select`, `diagonal`, basic indexing and slicing, the
    items of `split`/`chunk`/`unbind`) kept as separate values while one side is written.

    ## Why is this bad?
    A view shares its base's storage. `reshape` and `flatten` copy only when the layout cannot
    be viewed, so "reshape makes a copy" holds for some inputs and not others.

    ## Example
    ```python
    import torch

    def first_row(x: torch.Tensor):
        row = x[0]
        x.zero_()
        return row
    ```

    ## Use instead
    ```python
    import torch

    def first_row(x: torch.Tensor):
        row = x[0].clone()
        x.zero_()
        return row
    ```

    ## Fix safety
    Unsafe: the view becomes a copy, which changes code that fills a buffer through a view.
    """

    code = "TEN204"
    kinds = ("view", "partial_view")
    summary = "a view (`view`, `reshape`, slicing, ...) shares storage, then one side is written; add `.clone()`"
    use_instead = "a .clone() of the view"

    def hazard(self, model, sharing: Sharing) -> bool:
        """The view read after its base changed is a hazard, except a view of a part read inside the
        function (a window onto the base), unless the base was rewritten whole through its own name,
        or the view was stored in a container (a record kept, ``rows.append(x[i])``) and its base is
        still the one written, or the base is a blank buffer it was made to look into (unless its
        name says it keeps an earlier value: ``self.prev_frame = self.frames[-1]``). A write through
        the view is not where it fills a buffer of the function, where the function says it writes
        its arguments, writes the base through its own name too or hands the base back (an updater),
        undoes the write (a perturbation), or fills part of its own object's state; nor a view no
        name holds, made on the spot as what the write writes (``out=buf[i:j]``): writing the base
        is its purpose."""
        alias = sharing.alias
        if _fills_what_it_hands_back(model, sharing):
            return False
        if not sharing.written_alias:
            place = alias_place(model, alias) or ""
            kept_as_earlier = snapshot_named(place)
            # kept past the call under such a name (``self.prev_frame = self.frames[-1]``), or read
            # after a write of the whole base (``old_mean = stats.mean(); stats.update(x)``), not a
            # local ``prev = ring[i - 1]`` read within it while another slot is written
            kept_for_later = kept_as_earlier and ("." in place or "[" in place or returned_side(model, alias, True)
                                                  or _writes_whole(sharing.write))
            # a window sees its slot change; a part read after its base was rewritten whole through the
            # base's own name (``q, k = qkv.chunk(2); qkv.zero_(); use(q)``) was taken for its old values
            rewritten = sharing.write.place is not None and sharing.write.place == alias.place \
                and _writes_whole(sharing.write)
            window = sharing.kind == "partial_view" and (sharing.observation.startswith("read") and not (
                returned_side(model, alias, True) or kept_as_earlier or collected(model, alias, sharing.write)
                or rewritten)
                or views_a_blank_buffer(model, alias) and not (kept_for_later or _wiped_then_handed_back(model, sharing)))
            return not window
        # a view no name holds is a write's own target (``out=buf[i:j]``), unless it is handed back
        # (``return {"left": img[..., :w]}``, written by the caller); not one of its object's own
        # state a method hands out to be filled (``return self.k[i], self.v[i]`` of a cache)
        unheld = alias_place(model, alias) is None and not (
            returned_side(model, alias, True) and not of_its_own_object(alias))
        # a row a loop visits, written through the loop's name (``for q in Q: q.sub_(d)``): updating the
        # tensor it iterates is that loop's purpose
        visited = alias.detail["op"] == "iteration" and sharing.write.place == alias_place(model, alias)
        return not (unheld or visited or source_local(model, alias) or writes_arguments(alias.function)
                    or source_written_itself(model, alias)
                    or returned_side(model, alias, False) and not (
                        sharing.write.function is alias.function and _argument_read_again_by_a_caller(alias))
                    or undone(model, sharing.write)
                    or sharing.kind == "partial_view" and held_by_receiver(alias, sharing))

    def fix(self, node, alias, site) -> Optional[Fix]:
        if alias.detail["in_container"]:
            # ``a, b = t.chunk(2)``: every item gets its own copy.
            item = cst.Name("view")
            copies = cst.ListComp(elt=method(item, "clone"), for_in=cst.CompFor(target=item, iter=bare(node)))
            return unsafe(node, copies)
        return unsafe(node, method(bare(node), "clone"))


def _fills_what_it_hands_back(model, sharing: Sharing) -> bool:
    """Whether the write is made, through views a helper handed it, by a function that returns
    the base itself (``views = param_views(flat); views["w"].copy_(w); return flat``): it fills
    the buffer it hands back, as an updater does."""
    write, alias = sharing.write, sharing.alias
    if write.function is alias.function:
        return False
    return any(event.kind == "return" and event.function is write.function and event.value is not None
               and event.value.storages & write.storages and not event.value.made & write.value.made
               for event in model.events.of_function(write.function))


def _argument_read_again_by_a_caller(alias) -> bool:
    """Whether a caller of the file reads the argument the view is of again after the call: a
    function that writes its argument through the view and hands it back is an updater where its
    callers take the result in its place (``img = cutout(img)``), not where one reads the argument
    beside what it got back (``augmented = cutout(sample)``, then ``sample``: it took the result for
    a copy)."""
    function = alias.function
    indices = {parameter_holding(storage, function.name) for storage in alias.value.storages} - {None}
    return any(function.read_again_by_callers.get(index) for index in indices if index >= function.receiver_offset)


def _wiped_then_handed_back(model, sharing: Sharing) -> bool:
    """Whether the alias's own function writes the whole base after taking the view and then
    returns the view, not filling it since (``episode = mem.rows[:n]; mem.reset(); return
    episode``): what it hands back is gone before anyone reads it, blank buffer or not. A
    clear-then-refill (``buf.zero_(); buf[:n] = src``) fills it."""
    alias, write = sharing.alias, sharing.write
    if write.function is not alias.function or not _writes_whole(write) or not returned_side(model, alias, True):
        return False
    made = alias.detail["made"]
    # filled since: through the view, or through the base in the same straight run as the wipe
    # (``self.buf.zero_(); self.buf[:n] = src``; not a later pass of a loop)
    return not any(other.function is write.function and other is not write and other.value is not None and (
        made in other.value.made and model.events.after(write, other)
        or other.block == write.block and other.order > write.order and other.storages & write.storages)
        for other in model.events.find("write"))


def _writes_whole(write) -> bool:
    """Whether ``write`` writes the tensor as a whole (``x.zero_()``, ``x *= r``, a helper's
    write), not an item or a slice of it (``x[i] = v``, ``x[i] += v``)."""
    if "items_only" in write.detail or "[" in (write.place or ""):
        return False
    if "part" in write.detail:  # ``x[:] = v``, ``x[...] = 0``: every position of every dimension
        return type(write.node) is ast.Subscript and takes_everything(write.node.slice)
    return True


RULE = ViewShares()
