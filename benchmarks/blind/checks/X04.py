"""Check for blind case X04 (flag TEN306 line 16): runs the case program and asserts its labelled behaviour.

Usage: python X04.py cpu|cuda  -> prints "OK X04 <device>" or "SKIP X04 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X04")
    model = torch.nn.Linear(6, 3).to(device)
    loader = [(torch.randn(8, 6, device=device), torch.randint(0, 3, (8,), device=device)) for _ in range(5)]
    e_train, _ = ns["run_epoch"](model, loader, torch.optim.SGD(model.parameters(), lr=0.1))
    assert e_train.requires_grad and e_train.grad_fn is not None, "the epoch total holds no graph"
    depth, node = 0, e_train.grad_fn
    while node is not None and node.name().startswith("Add"):
        depth += 1
        node = next((f for f, _ in node.next_functions if f is not None and f.name().startswith("Add")), None)
    assert depth >= 4, f"the graphs of earlier batches are not retained (depth {depth})"


if __name__ == "__main__":
    run("X04", check, cuda_only=False)
