"""What the findings cache saves: ``tensorcopy-fix --no-fix`` over the real-world corpus, once
with an empty cache and once more over the unchanged files; the second run should cost under
20% of the first, and both must report the same findings.

    python benchmarks/cache.py [--corpus benchmarks/.cache/corpus] [-j 2]

The corpus is only read (``python benchmarks/corpus.py`` fetches it); the cache goes to a
temporary directory. Results: ``benchmarks/results/cache.md``.
"""

import argparse
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = HERE / ".cache" / "corpus"
RESULTS = HERE / "results" / "cache.md"


def run(corpus: Path, cache: Path, jobs: int):
    """(wall s, CPU s of the run and its workers, stdout) of one ``--no-fix`` run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "flake8_tensorcopy", "--no-fix", "-q", "--cache-dir", str(cache), "-j", str(jobs),
         str(corpus)],
        capture_output=True, text=True,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"tensorcopy-fix failed ({done.returncode}): {done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("-j", "--jobs", type=int, default=2)
    args = parser.parse_args()
    projects = sorted(path.name for path in args.corpus.iterdir() if path.is_dir() and not path.name.startswith("_"))
    files = [path for name in projects for path in (args.corpus / name).rglob("*.py")]
    lines = sum(path.read_bytes().count(b"\n") for path in files)
    with tempfile.TemporaryDirectory() as directory:
        cache = Path(directory) / "cache"
        cold = run(args.corpus, cache, args.jobs)
        warm = run(args.corpus, cache, args.jobs)
        entries = sum(1 for _ in cache.rglob("*.json"))
    if cold[2] != warm[2]:
        raise SystemExit("the cached run reported other findings than the first run")
    findings = cold[2].count("\n")
    ratio_wall, ratio_cpu = warm[0] / cold[0], warm[1] / cold[1]
    report = f"""# Findings cache

`python benchmarks/cache.py` ({len(projects)} projects of the corpus: {', '.join(projects)};
{len(files):,} files, {lines:,} lines; `tensorcopy-fix --no-fix -j {args.jobs}`; Python
{platform.python_version()}, {platform.machine()}; a shared 2-core machine, so expect noise).

| run | wall s | CPU s (all processes) |
|---|---:|---:|
| first, empty cache | {cold[0]:.1f} | {cold[1]:.1f} |
| second, unchanged files | {warm[0]:.1f} | {warm[1]:.1f} |

The second run costs **{ratio_wall:.1%}** of the first in wall time and **{ratio_cpu:.1%}** in
CPU time (target: under 20%), and reports the same {findings:,} findings. The cache holds
{entries:,} entries (one per distinct file text).
"""
    RESULTS.write_text(report, encoding="utf-8")
    print(report)
    if ratio_wall >= 0.2:
        raise SystemExit("the second run cost 20% of the first or more")


if __name__ == "__main__":
    main()
