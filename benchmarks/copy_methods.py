"""How fast are the ways to copy a tensor, and to get an independent ndarray?

Times the five tensor copies (``x.new_tensor(x)``, ``x.clone().detach()``,
``torch.empty_like(x).copy_(x)``, ``torch.tensor(x)``, ``x.detach().clone()``) and the three
ndarray copies (``x.detach().numpy().copy()``, ``x.clone().detach().numpy()``,
``x.detach().clone().numpy()``) over sizes 2^0..2^20, with and without ``requires_grad``, on
every device present. Writes ``benchmarks/results/copy_methods.png`` (a perfplot-style log-log
plot made with matplotlib) and ``benchmarks/results/copy_methods.md`` (medians in µs).

    python benchmarks/copy_methods.py [--max-power 20] [--repeat 15]

Needs torch, numpy and matplotlib. Timings are medians of ``--repeat`` runs, each run as
many calls as fill ~2 ms (CUDA runs synchronize before reading the clock).
"""

import argparse
import statistics
import time
import warnings
from pathlib import Path

import torch

RESULTS = Path(__file__).resolve().parent / "results"

TENSOR_COPIES = {
    "x.new_tensor(x)": lambda x: x.new_tensor(x),
    "x.clone().detach()": lambda x: x.clone().detach(),
    "torch.empty_like(x).copy_(x)": lambda x: torch.empty_like(x).copy_(x),
    "torch.tensor(x)": lambda x: torch.tensor(x),
    "x.detach().clone()": lambda x: x.detach().clone(),
}
ARRAY_COPIES = {
    "x.detach().numpy().copy()": lambda x: x.detach().numpy().copy(),
    "x.clone().detach().numpy()": lambda x: x.clone().detach().numpy(),
    "x.detach().clone().numpy()": lambda x: x.detach().clone().numpy(),
}


def _time(function, x, device: str, repeat: int) -> float:
    """Median seconds per call."""
    synchronize = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    calls = 1
    while True:  # find a batch size that takes ~2 ms
        synchronize()
        start = time.perf_counter()
        for _ in range(calls):
            function(x)
        synchronize()
        elapsed = time.perf_counter() - start
        if elapsed > 2e-3 or calls >= 1 << 16:
            break
        calls *= 4
    samples = []
    for _ in range(repeat):
        synchronize()
        start = time.perf_counter()
        for _ in range(calls):
            function(x)
        synchronize()
        samples.append((time.perf_counter() - start) / calls)
    return statistics.median(samples)


def measure(max_power: int, repeat: int):
    """{(device, requires_grad): {method: [seconds per size]}} and the sizes."""
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    sizes = [2**power for power in range(max_power + 1)]
    results = {}
    warnings.simplefilter("ignore")  # torch.tensor(x) and new_tensor(x) warn on every call
    for device in devices:
        for requires_grad in (False, True):
            methods = dict(TENSOR_COPIES)
            if device == "cpu":
                methods.update(ARRAY_COPIES)  # numpy() needs a CPU tensor
            table = {name: [] for name in methods}
            for size in sizes:
                x = torch.rand(size, device=device, requires_grad=requires_grad)
                for name, function in methods.items():
                    table[name].append(_time(function, x, device, repeat))
            results[(device, requires_grad)] = table
    return sizes, results


def write_markdown(sizes, results, path: Path) -> None:
    lines = [f"# Copy methods: median µs per call (torch {torch.__version__})", ""]
    for (device, requires_grad), table in results.items():
        lines += [f"## {device}, requires_grad={requires_grad}", ""]
        names = list(table)
        lines.append("| elements | " + " | ".join(f"`{name}`" for name in names) + " |")
        lines.append("|---:|" + "---:|" * len(names))
        for index, size in enumerate(sizes):
            cells = " | ".join(f"{table[name][index] * 1e6:.2f}" for name in names)
            lines.append(f"| 2^{size.bit_length() - 1} | {cells} |")
        lines.append("")
    lines += ["Ratio `x.clone().detach()` / `x.detach().clone()` (requires_grad=True, CPU):", ""]
    table = results[("cpu", True)]
    for index, size in enumerate(sizes):
        if index % 4 == 0 or index == len(sizes) - 1:
            ratio = table["x.clone().detach()"][index] / table["x.detach().clone()"][index]
            lines.append(f"- 2^{size.bit_length() - 1} elements: {ratio:.2f}x")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_plot(sizes, results, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = list(results)
    figure, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 5), squeeze=False)
    for axis, key in zip(axes[0], panels):
        device, requires_grad = key
        for name, seconds in results[key].items():
            axis.loglog(sizes, seconds, marker=".", label=name)
        axis.set_title(f"{device}, requires_grad={requires_grad}")
        axis.set_xlabel("elements")
        axis.set_ylabel("seconds per call (median)")
        axis.grid(True, which="both", alpha=0.3)
    axes[0][0].legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-power", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    RESULTS.mkdir(parents=True, exist_ok=True)
    sizes, results = measure(args.max_power, args.repeat)
    write_markdown(sizes, results, RESULTS / "copy_methods.md")
    write_plot(sizes, results, RESULTS / "copy_methods.png")
    print(f"wrote {RESULTS / 'copy_methods.md'} and {RESULTS / 'copy_methods.png'}")


if __name__ == "__main__":
    main()
