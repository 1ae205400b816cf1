"""Write a large torch module (realistic code with findings) to measure the plugin's memory.

    python benchmarks/big_module.py OUT.py [--lines 50000]
    /usr/bin/time -v flake8 -j1 --select TEN OUT.py     # "Maximum resident set size"

Blocks of a model, a training step and helpers are repeated with fresh names until the file
has ``--lines`` lines; about one line in ten holds a finding. Nothing of it is committed.
"""

import argparse
from pathlib import Path

HEADER = '''"""A generated module: big, ordinary torch code."""
import copy

import numpy as np
import torch
from torch import nn
'''

BLOCK = '''

class Block{n}(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.norm = nn.LayerNorm(width)
        self.register_buffer("scale", torch.ones(width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.norm(self.proj(x))
        kept = torch.tensor(h)
        return kept * self.scale + x


def train_step{n}(model: nn.Module, batch: torch.Tensor, optimizer) -> float:
    out = model(batch)
    loss = (out - batch).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    snapshot = out.clone().detach()
    return float(snapshot.sum())


def to_numpy{n}(t: torch.Tensor) -> np.ndarray:
    array = t.numpy()
    t.add_(1)
    return array


def summary{n}(values: list, weights: torch.Tensor) -> torch.Tensor:
    total = weights.sum(dim=0)
    scaled = [value * 2 for value in values]
    return total / max(len(scaled), 1)
'''


def module_text(lines: int) -> str:
    parts = [HEADER]
    count = HEADER.count("\n")
    block_lines = BLOCK.count("\n")
    number = 0
    while count + block_lines <= lines:
        parts.append(BLOCK.format(n=number))
        count += block_lines
        number += 1
    return "".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--lines", type=int, default=50_000)
    arguments = parser.parse_args()
    text = module_text(arguments.lines)
    arguments.out.write_text(text, encoding="utf-8")
    print(f"{arguments.out}: {text.count(chr(10))} lines, {len(text.encode())} bytes")


if __name__ == "__main__":
    main()
