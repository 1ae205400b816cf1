"""The seeded random sample of corpus findings that ``results/findings.md`` triages.

    python benchmarks/corpus_check.py && python benchmarks/sample_findings.py [--per-rule 5] [--seed 2026]

Prints, per rule, up to ``--per-rule`` findings (all of them when there are fewer) with the
lines around each, from ``results/corpus_findings.json``.
"""

import argparse
import json
import linecache
import random
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-rule", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--context", type=int, default=6)
    args = parser.parse_args()
    rows = json.loads((HERE / "results" / "corpus_findings.json").read_text(encoding="utf-8"))
    by_rule = defaultdict(list)
    for row in rows:
        by_rule[row["code"]].append(row)
    rng = random.Random(args.seed)
    for code in sorted(by_rule):
        found = by_rule[code]
        sample = found if len(found) <= args.per_rule else rng.sample(found, args.per_rule)
        print(f"## {code}: {len(sample)} of {len(found)}")
        for row in sample:
            where = row["path"].split("corpus/", 1)[-1]
            print(f"=== {code} {where}:{row['line']}  {row['message']}")
            for number in range(max(1, row["line"] - args.context), row["line"] + 3):
                marker = ">" if number == row["line"] else " "
                print(f"{number:6d}{marker} {linecache.getline(row['path'], number).rstrip()}")
        print()


if __name__ == "__main__":
    main()
