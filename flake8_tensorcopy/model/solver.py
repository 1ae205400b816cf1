"""The worklist solver: one function's flow graph to a fixpoint.

Each block's in-state is the join of its predecessors' out-states; a block is re-run when its
in-state changed. Blocks are taken lowest index first (the builder numbers them roughly in
program order), and a loop header visited more than ``WIDEN_AFTER`` times widens instead of
joining, so a loop costs a few passes. Summaries record nothing. A function's final solve
records as it goes (``solve_recording``): each block's events and call-site facts of its last
run are kept, since a block runs again whenever its in-state changes, so its last run started
from its final in-state. Where that does not hold (the solver gave up on a block) or a run may
have read something that changed after it (``Model.solve_function``: a use proved later, a
class, function or closure made known later), and for module-level code (it reads the module's
exit state), ``record`` runs every reachable block once more from its final in-state instead.
"""

import heapq
from typing import Dict, List, Optional, Tuple

from flake8_tensorcopy.model.values import DEAD, join_states, widen_states

WIDEN_AFTER = 3
# A block still changing after this many visits keeps the state it has (values the widening
# does not bound, such as containers nested in themselves through calls, would never settle):
# a solve always ends, and a file never hangs the linter.
GIVE_UP_AFTER = 24


def solve(graph, transfer, entry: dict) -> List[Optional[dict]]:
    """The final in-state of every block (None: unreachable); ``[1]`` is the exit's."""
    return _iterate(graph, transfer, entry, None)[0]


def solve_recording(graph, transfer, entry: dict) -> Tuple[List[Optional[dict]], Optional[list]]:
    """``solve``, and what ``record`` would record, kept back, from each block's last run (one
    run of every block fewer); None instead where the solver gave up on a block, whose last
    run then did not start from its final in-state."""
    kept: Dict[int, list] = {}
    transfer.recording = True
    try:
        states, settled = _iterate(graph, transfer, entry, kept)
    finally:
        transfer.recording = False
        transfer.effects = None
    return states, [kept[index] for index in sorted(kept)] if settled else None


def commit_or_record(graph, transfer, states: List[Optional[dict]], kept: Optional[list]) -> None:
    """Make what ``solve_recording`` kept back, or record the blocks again where it kept nothing."""
    if kept is None:
        record(graph, transfer, states)
        return
    for changes in kept:
        transfer.commit(changes)


def _iterate(graph, transfer, entry: dict, kept: Optional[Dict[int, list]]) -> Tuple[List[Optional[dict]], bool]:
    """The worklist iteration: the final in-states, and whether every block's last run started
    from its final in-state (False where the solver gave up on one). With ``kept``, each run of
    a block keeps what the transfer records in ``kept[index]``, replacing its earlier runs'."""
    blocks = graph.blocks
    states: List[Optional[dict]] = [None] * len(blocks)
    visits = [0] * len(blocks)
    states[0] = entry
    work, queued = [0], {0}
    execute = transfer.execute
    settled = True
    while work:
        index = heapq.heappop(work)
        queued.discard(index)
        block = blocks[index]
        visits[index] += 1
        state = dict(states[index])
        transfer.block = index
        if kept is not None:
            transfer.order = 0
            transfer.effects = kept[index] = []
        for op in block.ops:
            execute(op, state)
            if DEAD in state:
                break
        for successor in block.succ if DEAD not in state else ():
            old = states[successor]
            if old is None:
                new = state
            elif blocks[successor].loop and visits[successor] >= WIDEN_AFTER:
                new = widen_states(old, state)
            else:
                new = join_states(old, state)
            if new is not old and new != old:
                states[successor] = new
                if successor in queued:
                    continue
                if visits[successor] < GIVE_UP_AFTER:
                    queued.add(successor)
                    heapq.heappush(work, successor)
                else:
                    settled = False
    return states, settled


def record(graph, transfer, states: List[Optional[dict]]) -> None:
    """Run every reachable block once from its final in-state with events on."""
    transfer.recording = True
    try:
        for block in graph.blocks:
            if states[block.index] is not None and block.ops:
                transfer.block = block.index
                transfer.order = 0
                state = dict(states[block.index])
                for op in block.ops:
                    transfer.execute(op, state)
                    if DEAD in state:
                        break
    finally:
        transfer.recording = False
