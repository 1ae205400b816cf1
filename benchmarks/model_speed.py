"""CPU time of solving the model against a bare ``libcst.parse_module`` of the same files.

    python benchmarks/model_speed.py [DIR ...] [--rounds 3]

Default DIR: the corpus (benchmarks/.cache/corpus, fetched by corpus.py) if it is there, else
fixtures/. Each round times, interleaved, ``libcst.parse_module`` of every file and
``build_model`` on the stdlib ast of every file (flake8 hands that ast to the plugin, so its
``ast.parse`` is not ours and is printed apart). Prints per-round times and the median ratio
model / libcst. Files that do not parse are left out of both.
"""

import argparse
import ast
import statistics
import sys
import time
from pathlib import Path

import libcst

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from flake8_tensorcopy.model import build_model  # noqa: E402


def default_directory() -> Path:
    for corpus in (ROOT / "benchmarks" / ".cache" / "corpus", Path("/work/main/benchmarks/.cache/corpus")):
        if corpus.is_dir():
            return corpus
    return ROOT / "fixtures"


def load(directories):
    sources = []
    for directory in directories:
        for path in sorted(Path(directory).rglob("*.py")):
            try:
                source = path.read_text(encoding="utf-8")
                ast.parse(source)
            except (SyntaxError, UnicodeDecodeError, ValueError):
                continue
            sources.append((path, source))
    return sources


def timed(function, items) -> float:
    start = time.process_time()
    for item in items:
        function(item)
    return time.process_time() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directories", nargs="*", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args(argv)
    directories = options.directories or [default_directory()]
    sources = load(directories)
    texts = [source for _, source in sources]
    print(f"{len(sources)} files, {sum(map(len, texts)):,} characters from {', '.join(map(str, directories))}")
    ratios = []
    for round_number in range(1, options.rounds + 1):
        parse = timed(libcst.parse_module, texts)
        trees = []
        ast_time = timed(lambda text: trees.append(ast.parse(text)), texts)
        model = timed(build_model, trees)
        ratios.append(model / parse)
        print(f"round {round_number}: libcst.parse_module {parse:.3f} s   ast.parse {ast_time:.3f} s   "
              f"model {model:.3f} s   model/libcst {model / parse:.2f}x")
    print(f"median model/libcst: {statistics.median(ratios):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
