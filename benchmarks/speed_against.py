"""The plugin's own cost on this checkout and on another one, measured in one interleaved run.

    python benchmarks/speed_against.py OTHER_CHECKOUT [--rounds 3] [--corpus DIR]

On the accelerate + peft + lightning slice, ``flake8 --select TEN -j 1``, one process per
measurement (speed.py's ``run``: CPU seconds and peak RSS), round by round: read, the bare
LibCST parse, flake8 alone, flake8 with this checkout's plugin, flake8 with OTHER_CHECKOUT's
plugin (the same interpreter, OTHER_CHECKOUT first on PYTHONPATH). Prints each plugin's own
cost (flake8 with it − flake8 alone) over the bare parse (read excluded), medians.
"""

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

from speed import CACHE, SLICE, SNIPPETS, run, venv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--corpus", type=Path, default=CACHE / "corpus")
    args = parser.parse_args()
    paths = sorted(str(path) for name in SLICE for path in (args.corpus / name).rglob("*.py"))
    CACHE.mkdir(exist_ok=True)
    list_file = CACHE / "speed-paths.txt"
    list_file.write_text("\n".join(paths))
    version = subprocess.run([sys.executable, "-m", "flake8", "--version"], capture_output=True,
                             text=True).stdout.split()[0]
    alone = venv("flake8-alone", [[f"flake8=={version}"]])
    prelude = f"paths = open({str(list_file)!r}).read().split('\\n')\n"
    flake8 = ["-m", "flake8", "--select", "TEN", "-j", "1", *paths]
    other = dict(os.environ, PYTHONPATH=str(args.other.resolve()))
    commands = {
        "read": ([sys.executable, "-c", prelude + SNIPPETS["read"]], None),
        "libcst": ([sys.executable, "-c", prelude + SNIPPETS["libcst"]], None),
        "flake8": ([str(alone / "bin" / "python"), *flake8], None),
        "this": ([sys.executable, *flake8], None),
        "other": ([sys.executable, *flake8], other),
    }
    samples = {name: [] for name in commands}
    for number in range(args.rounds):
        for name, (command, env) in commands.items():
            samples[name].append(run(command, env=env))
            print(f"round {number + 1} {name}: {samples[name][-1]}", file=sys.stderr)
    cpu = {name: statistics.median(sample["cpu"] for sample in runs) for name, runs in samples.items()}
    parse = cpu["libcst"] - cpu["read"]
    print(f"{len(paths)} files; bare LibCST parse {parse:.1f} CPU s (median of {args.rounds} rounds)")
    for name, label in (("this", "this checkout"), ("other", str(args.other))):
        own = cpu[name] - cpu["flake8"]
        peak = max(sample["rss"] for sample in samples[name])
        print(f"{label}: plugin's own cost {own:.1f} CPU s = {own / parse:.2f}x the bare parse; "
              f"peak RSS {peak:.0f} MB")


if __name__ == "__main__":
    main()
