"""The worklist solver: one function's flow graph to a fixpoint.

Each block's in-state is the join of its predecessors' out-states; a block is re-run when its
in-state changed. Blocks are taken lowest index first (the builder numbers them roughly in
program order), and a loop header visited more than ``WIDEN_AFTER`` times widens instead of
joining, so a loop costs a few passes. Nothing is recorded during the iteration: ``record`` runs
every reachable block once more from its final in-state with events on.
"""

import heapq
from typing import List, Optional

from flake8_tensorcopy.model.values import join_states, widen_states

WIDEN_AFTER = 3
# A block still changing after this many visits keeps the state it has (values the widening
# does not bound, such as containers nested in themselves through calls, would never settle):
# a solve always ends, and a file never hangs the linter.
GIVE_UP_AFTER = 24


def solve(graph, transfer, entry: dict) -> List[Optional[dict]]:
    """The final in-state of every block (None: unreachable); ``[1]`` is the exit's."""
    blocks = graph.blocks
    states: List[Optional[dict]] = [None] * len(blocks)
    visits = [0] * len(blocks)
    states[0] = entry
    work, queued = [0], {0}
    execute = transfer.execute
    while work:
        index = heapq.heappop(work)
        queued.discard(index)
        block = blocks[index]
        visits[index] += 1
        state = dict(states[index])
        transfer.block = index
        for op in block.ops:
            execute(op, state)
        for successor in block.succ:
            old = states[successor]
            if old is None:
                new = state
            elif blocks[successor].loop and visits[successor] >= WIDEN_AFTER:
                new = widen_states(old, state)
            else:
                new = join_states(old, state)
            if new is not old and new != old:
                states[successor] = new
                if successor not in queued and visits[successor] < GIVE_UP_AFTER:
                    queued.add(successor)
                    heapq.heappush(work, successor)
    return states


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
    finally:
        transfer.recording = False
