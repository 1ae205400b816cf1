"""TEN401/TEN402 messages: the finding is on the copy and names the line of the read or write."""

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


def test_a_synchronize_anywhere_on_the_way_ends_the_search():
    synced = REFILLED_NEXT_ITERATION.replace("        ring.copy_(row)\n",
                                             "        if sent:\n            torch.cuda.synchronize()\n"
                                             "        ring.copy_(row)\n")
    assert lint_source(synced) == []
