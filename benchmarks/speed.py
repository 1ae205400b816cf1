"""Speed of flake8-tensorcopy against the bare LibCST parse and against TorchFix.

    python benchmarks/speed.py [DIR ...] [--rounds 1] [--skip-torchfix]

Default DIRs: the accelerate + peft + lightning slice of the corpus (fetch it with corpus.py).
Each measurement runs in its own process (CPU time and peak memory from ``os.wait4``), and
the measurements are interleaved round by round:

  read       read every file
  ast        read + ``ast.parse`` (flake8 does this for every plugin)
  libcst     read + ``libcst.parse_module`` (the bare parse)
  engine     read + ``ast.parse`` + our engine (what the plugin adds to flake8's own ast)
  flake8     ``flake8 --select TEN -j 1`` with flake8 alone (a venv without our plugin)
  ours       ``flake8 --select TEN -j 1`` with our plugin
  torchfix   ``flake8 --select TOR -j 1`` with TorchFix 0.7.0 (its own venv, ``--no-deps``
             plus flake8, PyYAML and the libcst it pins)
  fix-check  ``tensorcopy-fix --check``

and the editor case: one ~500-line file through flake8 with and without our plugin.
Writes ``benchmarks/results/speed.md``. The venvs are made once under benchmarks/.cache/.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
RESULTS = HERE / "results"
SLICE = ("accelerate", "peft", "lightning")

SNIPPETS = {
    "read": "for p in paths: open(p, 'rb').read()",
    "ast": "import ast\nfor p in paths: ast.parse(open(p, 'rb').read())",
    "libcst": (
        "import libcst\nfor p in paths:\n"
        "    try: libcst.parse_module(open(p, 'rb').read())\n"
        "    except Exception: pass"
    ),
    "engine": (
        "import ast\nfrom flake8_tensorcopy.engine import lint_source, SourceError\n"
        "from flake8_tensorcopy.files import read_source\n"
        "for p in paths:\n"
        "    text = read_source(__import__('pathlib').Path(p))[0]\n"
        "    try: lint_source(text, ast.parse(text))\n"
        "    except (SourceError, SyntaxError, ValueError): pass"
    ),
}


def venv(name: str, packages) -> Path:
    """A virtualenv under benchmarks/.cache with ``packages`` (made once)."""
    path = CACHE / f"venv-{name}"
    python = path / "bin" / "python"
    ready = path / ".installed"
    if not ready.exists():
        subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
        for spec in packages:
            subprocess.run([str(python), "-m", "pip", "install", "--quiet", *spec], check=True, cwd=CACHE)
        ready.write_text("\n".join(" ".join(spec) for spec in packages))
    return path


def run(command, cwd=None, env=None) -> dict:
    """Wall seconds, CPU seconds and peak RSS (MB) of one process."""
    start = time.perf_counter()
    # A neutral working directory: from the repository root, a venv's flake8 would find our
    # plugin through the editable install's metadata in the current directory.
    process = subprocess.Popen(command, cwd=cwd or CACHE, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    _pid, _status, usage = os.wait4(process.pid, 0)
    return {
        "wall": time.perf_counter() - start,
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss": usage.ru_maxrss / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="*", type=Path)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--skip-torchfix", action="store_true")
    args = parser.parse_args()
    dirs = args.dirs or [CACHE / "corpus" / name for name in SLICE]
    paths = sorted(str(path) for directory in dirs for path in directory.rglob("*.py"))
    lines = sum(Path(path).read_bytes().count(b"\n") for path in paths)
    list_file = CACHE / "speed-paths.txt"
    CACHE.mkdir(exist_ok=True)
    list_file.write_text("\n".join(paths))
    flake8_version = subprocess.run(
        [sys.executable, "-m", "flake8", "--version"], capture_output=True, text=True
    ).stdout.split()[0]
    alone = venv("flake8-alone", [[f"flake8=={flake8_version}"]])
    prelude = f"paths = open({str(list_file)!r}).read().split('\\n')\n"
    commands = {name: [sys.executable, "-c", prelude + code] for name, code in SNIPPETS.items()}
    commands["flake8"] = [str(alone / "bin" / "python"), "-m", "flake8", "--select", "TEN", "-j", "1", *paths]
    commands["ours"] = [sys.executable, "-m", "flake8", "--select", "TEN", "-j", "1", *paths]
    if not args.skip_torchfix:
        torchfix = venv("torchfix", [["--no-deps", "torchfix==0.7.0"], ["flake8", "PyYAML", "libcst>=1.5,<1.6"]])
        commands["torchfix"] = [str(torchfix / "bin" / "python"), "-m", "flake8", "--select", "TOR", "-j", "1",
                                *paths]
    commands["fix-check"] = [sys.executable, "-m", "flake8_tensorcopy", "--check", "-q", *paths]
    samples = {name: [] for name in commands}
    for round_number in range(args.rounds):
        for name, command in commands.items():
            samples[name].append(run(command))
            print(f"round {round_number + 1} {name}: {samples[name][-1]}", file=sys.stderr)
    median = {name: {key: statistics.median(s[key] for s in runs) for key in ("wall", "cpu", "rss")}
              for name, runs in samples.items()}
    editor = editor_latency(alone, paths)
    write_report(median, editor, dirs, len(paths), lines)


def editor_latency(alone: Path, paths) -> dict:
    """flake8 on one file of about 500 lines that reaches LibCST: with and without our plugin."""
    from flake8_tensorcopy.scan import scan
    from flake8_tensorcopy.rules import ALL_RULES
    import ast

    def candidate(path):
        text = Path(path).read_text(encoding="utf-8", errors="replace")
        try:
            features = scan(ast.parse(text))
        except SyntaxError:
            return False
        return any(rule.wants(features) for rule in ALL_RULES)

    by_size = sorted(paths, key=lambda path: abs(Path(path).read_bytes().count(b"\n") - 500))
    chosen = next(path for path in by_size if candidate(path))
    walls = {"with": [], "without": []}
    for _ in range(7):
        walls["without"].append(run([str(alone / "bin" / "python"), "-m", "flake8", chosen])["wall"])
        walls["with"].append(run([sys.executable, "-m", "flake8", chosen])["wall"])
    # Where the extra time goes: importing LibCST, then linting the file itself.
    probe = (
        "import ast, time\nt0 = time.perf_counter()\nimport libcst\nt1 = time.perf_counter()\n"
        "from flake8_tensorcopy.engine import lint_source\nt2 = time.perf_counter()\n"
        f"text = open({chosen!r}).read()\ntree = ast.parse(text)\nt3 = time.perf_counter()\n"
        "lint_source(text, tree)\nt4 = time.perf_counter()\n"
        "print(t1 - t0, t2 - t1, t4 - t3)"
    )
    parts = [
        [float(value) for value in subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                                                  cwd=CACHE).stdout.split()]
        for _ in range(5)
    ]
    libcst_import, own_import, lint = (statistics.median(column) for column in zip(*parts))
    return {"file": chosen, "lines": Path(chosen).read_bytes().count(b"\n"),
            "libcst_import": libcst_import, "own_import": own_import, "lint": lint,
            **{key: statistics.median(values) for key, values in walls.items()}}


def write_report(median, editor, dirs, files, lines) -> None:
    parse = median["libcst"]["cpu"] - median["read"]["cpu"]
    ours = median["ours"]["cpu"] - median["flake8"]["cpu"]
    rows = ["| measurement | wall s | CPU s | peak MB | lines/s (wall) |", "|---|---:|---:|---:|---:|"]
    for name, value in median.items():
        rows.append(f"| {name} | {value['wall']:.1f} | {value['cpu']:.1f} | {value['rss']:.0f} | "
                    f"{lines / value['wall']:,.0f} |")
    ratios = [
        f"- bare LibCST parse (libcst − read): {parse:.1f} CPU s",
        f"- our engine's own cost (engine − ast): {median['engine']['cpu'] - median['ast']['cpu']:.1f} CPU s",
        f"- our plugin's own cost (ours − flake8 alone): {ours:.1f} CPU s = "
        f"**{ours / parse:.2f}x the bare LibCST parse** (target ≤ 1.0x)",
    ]
    if "torchfix" in median:
        theirs = median["torchfix"]["cpu"] - median["flake8"]["cpu"]
        ratios.append(f"- TorchFix's own cost (torchfix − flake8 alone): {theirs:.1f} CPU s = "
                      f"**{theirs / ours:.1f}x ours** (target ≥ 12x)")
    ratios.append(f"- peak memory of one flake8 worker with our plugin: {median['ours']['rss']:.0f} MB (target < 300)")
    ratios.append(
        f"- editor case, `{Path(editor['file']).name}` ({editor['lines']} lines): flake8 {editor['without'] * 1000:.0f} ms "
        f"alone, {editor['with'] * 1000:.0f} ms with our plugin: **+{(editor['with'] - editor['without']) * 1000:.0f} ms** "
        f"(target < 100 ms); of it, importing LibCST {editor['libcst_import'] * 1000:.0f} ms, importing "
        f"the rest of the engine {editor['own_import'] * 1000:.0f} ms, linting the file "
        f"{editor['lint'] * 1000:.0f} ms"
    )
    names = ", ".join(directory.name for directory in dirs)
    text = "\n".join([
        "# Speed", "",
        f"{files} files, {lines:,} lines ({names}); one process per measurement, `-j 1`, medians;",
        f"this machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}. "
        "Reproduce: `python benchmarks/corpus.py && python benchmarks/speed.py`.", "",
        *rows, "", *ratios, "",
        "## Where the time goes",
        "",
        "- Most of the plugin's cost is the LibCST parse of the code that can hold a finding (about 60%",
        "  of the characters of this slice; the bodies of functions, classes and methods no rule wants",
        "  are left out). cProfile of the engine on this slice: parse about half, positions a fifth",
        "  (17 files with findings; a finding inside a large class resolves positions over the whole",
        "  class), the ast scan and the shared walk the rest. The next steps are positions per method",
        "  and a cheaper walk of the scan; flake8's own process adds a little on top.",
        "- Run-to-run noise on this shared 2-core machine is large: the bare parse of the same files",
        "  measured 8.2 to 12.2 CPU s in different runs, which moves the ratios by a third.",
        "- TorchFix's own cost is its metadata resolution (QualifiedNameProvider and PositionProvider",
        "  on every file); ours resolves names in its own walk.",
        "- In the editor case, importing LibCST alone takes longer than the 100 ms budget; linting the",
        "  file is a few tens of ms. Files that cannot hold a tensor never import it. Reaching the",
        "  budget for files that do needs an analysis on the stdlib ast flake8 already built (the",
        "  walk is hand-written and would port), keeping LibCST for tensorcopy-fix only.",
        "",
    ])
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "speed.md").write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
