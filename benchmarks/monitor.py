"""The monitor's cost on a small training loop: runs with and without it, interleaved, and the
ratio of their median CPU times (``--device cuda``: wall time after a synchronize, since the
GPU's work is not CPU time).

    python benchmarks/monitor.py [--device cpu|cuda] [--rounds 7] [--steps 30] [--width 256]
    python benchmarks/monitor.py --baseline ../main/flake8_tensorcopy/runtime/monitor.py

``--baseline`` adds the default mode of another checkout's monitor to the same interleaved
rounds (its module loaded beside this one), for a before/after ratio on one loaded machine.
"""

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402
from torch import nn  # noqa: E402

from flake8_tensorcopy.runtime.monitor import Monitor  # noqa: E402


def train(device: str, steps: int, width: int = 256, batch: int = 64) -> float:
    """A small MLP classifier: forward, loss, backward, an optimizer step, an in-place
    activation, a metric read back to the host and a detached running loss."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, width), nn.ReLU(inplace=True), nn.Linear(width, width), nn.ReLU(),
                          nn.Linear(width, 10)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    data = torch.randn(steps, batch, 64, device=device)
    labels = torch.randint(0, 10, (steps, batch), device=device)
    running = 0.0
    for x, y in zip(data, labels):
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        running += loss.detach()
    return float(running)


def load_baseline(path: str):
    """The ``Monitor`` class of another checkout's ``runtime/monitor.py``."""
    spec = importlib.util.spec_from_file_location("baseline_monitor", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Monitor


def timed(device: str, steps: int, mode: str, width: int, baseline=None) -> float:
    clock = time.process_time if device == "cpu" else time.perf_counter
    start = clock()
    if mode == "off":
        train(device, steps, width)
    elif mode == "baseline":
        with baseline():
            train(device, steps, width)
    else:
        with Monitor(saved=mode == "default"):
            train(device, steps, width)
    if device != "cpu":
        torch.cuda.synchronize()
    return clock() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--width", type=int, default=256, help="hidden width (per-op overhead weighs more when small)")
    parser.add_argument("--baseline", metavar="MONITOR_PY", help="another checkout's runtime/monitor.py to time too")
    args = parser.parse_args()
    torch.set_num_threads(1)
    baseline = load_baseline(args.baseline) if args.baseline else None
    modes = ("off", "default", "cheap") + (("baseline",) if baseline else ())
    for mode in modes:  # warm-up: allocator, kernels, schemas
        timed(args.device, 3, mode, args.width, baseline)
    times = {mode: [] for mode in modes}
    for _ in range(args.rounds):
        for mode in modes:  # interleaved, so drift on a shared machine hits every mode alike
            times[mode].append(timed(args.device, args.steps, mode, args.width, baseline))
    medians = {mode: statistics.median(values) for mode, values in times.items()}
    what = "CPU" if args.device == "cpu" else "wall"
    print(f"device {args.device}, torch {torch.__version__}, {args.rounds} interleaved rounds of {args.steps} steps, width {args.width}")
    for mode in modes:
        print(f"{mode:8} median {what} time {medians[mode] * 1000:8.1f} ms  ratio {medians[mode] / medians['off']:.2f}x")


if __name__ == "__main__":
    main()
