"""TEN401/TEN402 messages: the finding is on the copy and names the line of the read or write."""

import libcst

from flake8_tensorcopy.engine import lint_source

HOST_READ = '''import torch

def scores(x: torch.Tensor):
    host = x.to("cpu", non_blocking=True)
    total = 0
    return host.numpy()
'''

REFILLED_NEXT_ITERATION = '''import torch

def stream_rows(rows):
    ring = torch.empty(64, pin_memory=True)
    sent = []
    for row in rows:
        ring.copy_(row)
        sent.append(ring.to("cuda", non_blocking=True))
    return sent
'''


def test_host_read_is_named_in_the_message_of_the_copy():
    (finding,) = lint_source(HOST_READ)
    assert (finding.code, finding.line, finding.col) == ("TEN401", 4, 11)
    assert "read on line 6 before any synchronization" in finding.message


def test_a_write_in_the_next_iteration_is_named():
    (finding,) = lint_source(REFILLED_NEXT_ITERATION)
    assert (finding.code, finding.line) == ("TEN402", 8)
    assert "written on line 7 before any synchronization" in finding.message


def test_a_synchronize_only_under_a_branch_is_not_a_sync_on_every_path():
    """Issue #23: ``if flag: torch.cuda.synchronize()`` leaves a path where the copy still runs
    (the old scan stopped at any synchronize it met, even under a branch)."""
    synced = REFILLED_NEXT_ITERATION.replace("        ring.copy_(row)\n",
                                             "        if sent:\n            torch.cuda.synchronize()\n"
                                             "        ring.copy_(row)\n")
    (finding,) = lint_source(synced)
    assert (finding.code, finding.line, finding.col) == ("TEN402", 10, 20)
    assert "written on line 9 before any synchronization" in finding.message


def test_a_synchronize_on_every_path_of_the_loop_body_is_one():
    synced = REFILLED_NEXT_ITERATION.replace("        ring.copy_(row)\n",
                                             "        torch.cuda.synchronize()\n        ring.copy_(row)\n")
    assert lint_source(synced) == []


NON_ASCII_BEFORE_THE_COPY = '''import torch

def scores(x: torch.Tensor):
    note = "é"; host = x.to("cpu", non_blocking=True)
    return host.numpy()
'''


def test_the_copy_is_found_in_characters_where_the_ast_counts_bytes():
    """ast columns are UTF-8 byte offsets (the copy starts at byte 24), LibCST's characters (23)."""
    (finding,) = lint_source(NON_ASCII_BEFORE_THE_COPY)
    assert (finding.code, finding.line, finding.col, finding.end_col) == ("TEN401", 4, 23, 53)
    assert finding.fix.replacement.deep_equals(libcst.parse_expression('x.to("cpu", non_blocking=False)'))
    assert not finding.fix.safe
