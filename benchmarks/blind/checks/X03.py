"""Check for blind case X03 (flag TEN208 line 24): runs the case program and asserts its labelled behaviour.

Usage: python X03.py cpu|cuda  -> prints "OK X03 <device>" or "SKIP X03 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X03")
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1).to(device)
    x = torch.randn(32, 4, device=device) * 4
    y = torch.randn(32, 1, device=device)
    trainer = ns["Trainer"](model, lr=1.0)
    trainer.run((x, y), (x, y), epochs=1)
    at_best = model.weight.detach().clone()
    trainer.run((x, y), (x, y), epochs=3)  # diverges: no later epoch is better
    trainer.restore_best()
    assert not torch.allclose(model.weight, at_best), "restore_best() returned the best weights"
    assert trainer.best_model["weight"].data_ptr() == model.weight.data_ptr()


if __name__ == "__main__":
    run("X03", check, cuda_only=False)
