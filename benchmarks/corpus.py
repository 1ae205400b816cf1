"""Fetch the pinned real-world corpus (``corpus.tsv``): 14 PyTorch projects' wheels, their
``.py`` files extracted into a cache directory. Idempotent; nothing of it is committed.

    python benchmarks/corpus.py [--tsv ../shared/corpus.tsv] [--cache benchmarks/.cache/corpus]

Each wheel is downloaded with ``pip download --no-deps --only-binary=:all:``, its sha256
checked against the pin, and its ``.py`` members extracted to ``CACHE/<project>/``. A
project whose extraction is complete (a ``.done`` marker holding the sha256) is skipped.
"""

import argparse
import csv
import hashlib
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_TSV = HERE.parent.parent / "shared" / "corpus.tsv"
DEFAULT_CACHE = HERE / ".cache" / "corpus"


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch(project: str, pip_spec: str, wheel: str, expected: str, cache: Path) -> Path:
    """The project's extracted directory, downloading and checking the wheel when needed."""
    target = cache / project
    marker = target / ".done"
    if marker.exists() and marker.read_text().strip() == expected:
        return target
    wheels = cache / "_wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    wheel_path = wheels / wheel
    if not wheel_path.exists() or sha256(wheel_path) != expected:
        with tempfile.TemporaryDirectory(dir=wheels) as download:
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--quiet",
                 "--dest", download, pip_spec],
                check=True,
            )
            downloaded = Path(download) / wheel
            if not downloaded.exists():
                raise SystemExit(f"{project}: pip did not produce {wheel}: {sorted(p.name for p in Path(download).iterdir())}")
            shutil.move(str(downloaded), wheel_path)
    actual = sha256(wheel_path)
    if actual != expected:
        wheel_path.unlink()
        raise SystemExit(f"{project}: sha256 mismatch: expected {expected}, got {actual}")
    if target.exists():
        shutil.rmtree(target)
    with zipfile.ZipFile(wheel_path) as archive:
        for member in archive.namelist():
            if member.endswith(".py") and ".." not in Path(member).parts:
                archive.extract(member, target)
    marker.write_text(expected + "\n")
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsv", type=Path, default=DEFAULT_TSV)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    files = lines = 0
    with args.tsv.open(encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream, delimiter="\t"))
    for row in rows:
        directory = fetch(row["project"], row["pip_spec"], row["wheel"], row["sha256"], args.cache)
        sources = list(directory.rglob("*.py"))
        count = sum(path.read_bytes().count(b"\n") for path in sources)
        files += len(sources)
        lines += count
        print(f"{row['project']:<22} {len(sources):>5} files {count:>9} lines")
    print(f"corpus: {len(rows)} projects, {files} files, {lines} lines in {args.cache}")


if __name__ == "__main__":
    main()
