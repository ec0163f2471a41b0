"""Bad input drills (issue 14): repositories that try to break the indexer, built in a temp folder.

    python bench/drill_bad_input.py [--only NAME ...] [--work DIR]

Each drill generates a repository with ``git fast-import``, runs ``whylens index`` on it and
prints the outcome, wall and CPU time and the peak RSS of the indexer's process tree (goal
<= 500 MB everywhere):
- files100k: one commit adding 100,000 Python files, then a commit changing 10 of them;
- files10k: the same with 10,000 files (goal: done within 5 minutes);
- bigfile: a 200 MB text file (and a 200 MB .py file) next to ordinary commits;
- merges50k: 50,000 merge commits (each merging a one-line branch commit);
- tags100k: 100,000 tags on an ordinary history;
- symbols50k: a file with 50,000 functions, then 200 commits changing some of them.
Disk-full and read-only index folders are drilled in tests/unit/test_scale.py (RLIMIT_FSIZE,
chattr +i), with the real CLI.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_index import Run  # noqa: E402

AUTHOR = b"Drill <drill@example.com>"


class FastImport:
    """A repository filled through one ``git fast-import`` stream."""

    def __init__(self, root: Path) -> None:
        subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
        self.root = root
        self.proc = subprocess.Popen(["git", "-C", str(root), "fast-import", "--quiet",
                                      "--done"], stdin=subprocess.PIPE)
        self.out = self.proc.stdin
        self.mark = 0
        self.stamp = 1_600_000_000

    def commit(self, message: str, files: dict[str, bytes], parents: tuple[int, ...] = (),
               branch: str = "main") -> int:
        self.mark += 1
        self.stamp += 60
        out = self.out
        assert out is not None
        out.write(b"commit refs/heads/%s\nmark :%d\n" % (branch.encode(), self.mark))
        out.write(b"author %s %d +0000\ncommitter %s %d +0000\n" % (AUTHOR, self.stamp, AUTHOR,
                                                                   self.stamp))
        text = message.encode()
        out.write(b"data %d\n%s\n" % (len(text), text))
        for n, parent in enumerate(parents):
            out.write(b"%s :%d\n" % (b"from" if n == 0 else b"merge", parent))
        for path, data in files.items():
            out.write(b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(), len(data), data))
        return self.mark

    def done(self) -> None:
        assert self.out is not None
        self.out.write(b"done\n")
        self.out.close()
        if self.proc.wait() != 0:
            raise SystemExit("fast-import failed")
        subprocess.run(["git", "-C", str(self.root), "reset", "-q", "--hard"], check=True)


def _function(n: int) -> bytes:
    return b"def f%d(value):\n    return value + %d\n" % (n, n)


def files(root: Path, count: int) -> None:
    repo = FastImport(root)
    first = repo.commit("Start\n\nThe package needs a module per handler, because each is "
                        "loaded on its own.", {"README": b"drill\n"})
    wide = repo.commit(f"Add {count} handlers\n\nGenerated: one module per handler.",
                       {f"pkg/m{n}.py": _function(n) for n in range(count)}, (first,))
    repo.commit("Fix ten handlers\n\nThey must add twice, because the spec changed.",
                {f"pkg/m{n}.py": _function(n).replace(b"+", b"+ 2 *") for n in range(10)},
                (wide,))
    repo.done()


def bigfile(root: Path) -> None:
    repo = FastImport(root)
    line = b"lorem ipsum dolor sit amet, consectetur adipiscing elit 0123456789\n"
    big = line * (200_000_000 // len(line))
    first = repo.commit("Start", {"a.py": _function(1)})
    second = repo.commit("Add a 200 MB data file\n\nThe tests need the whole corpus.",
                         {"data/corpus.txt": big, "data/corpus.py": b"#" + big}, (first,))
    repo.commit("Change a.py\n\nIt must add two, because the spec changed.",
                {"a.py": _function(2)}, (second,))
    repo.done()


def merges(root: Path, count: int) -> None:
    repo = FastImport(root)
    main = repo.commit("Start", {"a.py": _function(0), "b.py": _function(0)})
    for n in range(count):
        side = repo.commit(f"Tweak b {n}\n\nb must add {n}, because the spec changed.",
                           {"b.py": _function(n)}, (main,), branch="side")
        main = repo.commit(f"Merge pull request #{n + 1} from drill/side-{n}\n\nTweak b {n}",
                           {}, (main, side))
    repo.done()


def tags(root: Path, count: int) -> None:
    repo = FastImport(root)
    parent = repo.commit("Start", {"a.py": _function(0)})
    for n in range(1, 50):
        parent = repo.commit(f"Change {n}\n\nIt must add {n}, because the spec says so.",
                             {"a.py": _function(n)}, (parent,))
    repo.done()
    head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    refs = "".join(f"create refs/tags/v{n} {head}\n" for n in range(count))
    subprocess.run(["git", "-C", str(root), "update-ref", "--stdin"], input=refs.encode(),
                   check=True)


def symbols(root: Path, count: int, edits: int) -> None:
    repo = FastImport(root)
    names = [b"def f%d():0\n" % n for n in range(count)]  # 50,000 of them in 0.7 MB
    parent = repo.commit(f"Add {count} functions\n\nGenerated from the table.",
                         {"table.py": b"".join(names)})
    rng = random.Random(14)
    for n in range(edits):
        k = rng.randrange(count)
        names[k] = b"def f%d():%d\n" % (k, n + 2)
        parent = repo.commit(f"Scale f{k}\n\nf{k} must multiply, because the table says so.",
                             {"table.py": b"".join(names)}, (parent,))
    repo.done()


DRILLS = {
    "files100k": lambda root: files(root, 100_000),
    "files10k": lambda root: files(root, 10_000),
    "bigfile": bigfile,
    "merges50k": lambda root: merges(root, 50_000),
    "tags100k": lambda root: tags(root, 100_000),
    "symbols50k": lambda root: symbols(root, 50_000, 200),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=sorted(DRILLS))
    parser.add_argument("--work")
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="whylens-drills-"))
    try:
        for name in args.only or list(DRILLS):
            root = work / name
            shutil.rmtree(root, ignore_errors=True)
            started = time.perf_counter()
            DRILLS[name](root)
            built = time.perf_counter() - started
            run = Run([sys.executable, "-m", "whylens", "index", "--repo", str(root),
                       "--index-dir", str(work / f"{name}-index"), "--json", "--progress",
                       "none"])
            summary = json.loads(run.stdout)
            print(f"{name:11} built in {built:5.1f} s; indexed {summary['commits_indexed']} "
                  f"commits in {run.wall:6.1f} s wall, {run.cpu:6.1f} s CPU; peak RSS (tree) "
                  f"{run.peak_kb / 1024:4.0f} MB; file-level commits "
                  f"{summary.get('commits_file_level')}, skipped {summary.get('files_skipped')}, "
                  f"events {summary.get('events')}, blame runs {summary.get('blame_runs')}",
                  flush=True)
            shutil.rmtree(root, ignore_errors=True)
            shutil.rmtree(work / f"{name}-index", ignore_errors=True)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
