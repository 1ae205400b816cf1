"""TEN204: a view kept as a separate value while one side is written, as a query of the model."""

from typing import Optional

import libcst as cst

from flake8_tensorcopy.fixes import Fix, bare, method
from flake8_tensorcopy.knowledge.conventions import snapshot_named
from flake8_tensorcopy.rules.sharing import (
    AliasRule, Sharing, alias_place, collected, held_by_receiver, returned_side, source_local, source_written_itself,
    undone, unsafe, views_a_blank_buffer, writes_arguments,
)


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
        """The view read after its base changed is a hazard, except a view of a part read inside
        the function (a window onto the base), unless it was stored in a container (a record
        kept, ``rows.append(x[i])``) and its base is still the one written, or the base is a
        blank buffer it was made to look into (unless its name says it keeps an earlier value:
        ``self.prev_frame = self.frames[-1]``). A write through the view is not where it fills a
        buffer of the function, where the function says it writes its arguments, writes the base
        through its own name too or hands the base back (an updater), undoes the write (a
        perturbation), or fills part of its own object's state; nor a view no name holds, made on
        the spot as what the write writes (``out=buf[i:j]``): writing the base is its purpose."""
        alias = sharing.alias
        if not sharing.written_alias:
            place = alias_place(model, alias) or ""
            kept_as_earlier = snapshot_named(place)
            # kept past the call under such a name (``self.prev_frame = self.frames[-1]``), not a
            # local ``prev = ring[i - 1]`` read within it
            kept_for_later = kept_as_earlier and ("." in place or "[" in place or returned_side(model, alias, True))
            window = sharing.kind == "partial_view" and (sharing.observation.startswith("read") and not (
                returned_side(model, alias, True) or kept_as_earlier or collected(model, alias, sharing.write))
                or views_a_blank_buffer(model, alias) and not kept_for_later)
            return not window
        return not (alias_place(model, alias) is None or source_local(model, alias) or writes_arguments(alias.function)
                    or source_written_itself(model, alias) or returned_side(model, alias, False)
                    or undone(model, sharing.write)
                    or sharing.kind == "partial_view" and held_by_receiver(alias, sharing))

    def fix(self, node, alias, site) -> Optional[Fix]:
        if alias.detail["in_container"]:
            # ``a, b = t.chunk(2)``: every item gets its own copy.
            item = cst.Name("view")
            copies = cst.ListComp(elt=method(item, "clone"), for_in=cst.CompFor(target=item, iter=bare(node)))
            return unsafe(node, copies)
        return unsafe(node, method(bare(node), "clone"))


RULE = ViewShares()
