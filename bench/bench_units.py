"""Units per 1,000 commits and useful precision of knowledge extraction on real repositories.

    python bench/bench_units.py [REPO ...]                   # volume by type, per repository
    python bench/bench_units.py --sample 80 --out FILE.tsv   # a seeded sample to label
    python bench/bench_units.py --labels bench/labels/units-requests-flask.tsv

REPO is any clone (bare is fine); by default the psf/requests and pallets/flask mirrors fetched
for the benchmark. Commits come from ``whylens.history.walk`` when that package is importable,
otherwise from a small ``git log`` reader below with the same filters in spirit (bots,
releases/bumps, trivial subjects, merges without a PR). The baseline printed beside each figure
is CommitDistill's (units per 1,000 commits: 19.0 on requests, 14.6 on flask; useful precision
0.525). Nothing is written into the repositories.
"""

from __future__ import annotations

import argparse
import csv
import random
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from whylens.knowledge.extract import extract_units  # noqa: E402
from whylens.models import Commit, FileChange  # noqa: E402

DEFAULT_REPOS = ["/work/.mirror/psf+requests/repo", "/work/.mirror/pallets+flask/repo"]
BASELINE_PER_1K = {"requests": 19.0, "flask": 14.6}
BASELINE_PRECISION = 0.525
LABELS = ("useful", "trivially-true", "fragment", "noise")
TSV_COLUMNS = ("repo", "commit", "unit id", "type", "heuristic", "content", "label")


def repo_name(path: str) -> str:
    name = Path(path).resolve().name
    if name in ("repo", ".git"):
        name = Path(path).resolve().parent.name
    return name.split("+")[-1].removesuffix(".git")


# --- commits ---------------------------------------------------------------------------------

def commits_of(path: str, reader: str = "auto") -> tuple[list[Commit], str]:
    if reader in ("auto", "whylens"):
        try:
            from whylens.history.repo import open_repository
            from whylens.history.walk import walk

            with open_repository(path) as repo:
                return list(walk(repo, hunks=False)), "whylens.history.walk"
        except Exception as err:  # the history package is optional here; say why it was not used
            if reader == "whylens":
                raise
            print(f"(whylens.history not usable: {type(err).__name__}: {err}; "
                  "using the bench git-log reader)", file=sys.stderr)
    return list(_git_log_commits(path)), "bench git-log reader"


_BOT = re.compile(r"\[bot\]|dependabot|renovate|pre-commit-ci|github-actions", re.I)
_RELEASE = re.compile(
    r"^(?:v?\d+(?:\.\d+)+\S*|(?:release|releasing|prepare release|version|bump version)\b.*"
    r"|bump\s+\S+\s+from\s+\S+\s+to\s+\S+.*|bump https?://\S+.*|bump the \S+ group.*)$", re.I)
_TRIVIAL = re.compile(
    r"^(?:wip|fix(?:ed)? typos?|typos?|update readme(?:\.\w+)?|formatting|format|lint|cleanup"
    r"|clean ?up|whitespace|pep8|minor|minor fix(?:es)?|oops|tweak|tweaks|\.|-)\W*$", re.I)
_MERGE_PR = re.compile(r"Merge pull request #(\d+)|\(#(\d+)\)\s*$")


def _git_log_commits(path: str):
    fmt = "%x1e%H%x1f%P%x1f%aN%x1f%aE%x1f%aI%x1f%at%x1f%s%x1f%b%x1d"
    out = subprocess.run(
        ["git", "-C", path, "log", "--use-mailmap", "--name-only", "--no-renames",
         f"--format={fmt}", "HEAD"],
        check=True, capture_output=True,
    ).stdout.decode("utf-8", "replace")
    for record in out.split("\x1e")[1:]:
        message, _, names = record.partition("\x1d")
        sha, parents, author, email, date, ts, subject, body = message.split("\x1f", 7)
        changes = tuple(FileChange(path=n, status="M") for n in names.split("\n") if n.strip())
        parents_t = tuple(parents.split())
        pr_match = _MERGE_PR.search(subject)
        pr = int(pr_match.group(1) or pr_match.group(2)) if pr_match else None
        reason = None
        if _BOT.search(author) or _BOT.search(email):
            reason = "bot"
        elif _RELEASE.match(subject.strip()):
            reason = "release"
        elif _TRIVIAL.match(subject.strip()) and not body.strip():
            reason = "trivial"
        elif len(parents_t) > 1 and pr is None:
            reason = "merge"
        yield Commit(sha=sha, parents=parents_t, author=author, email=email, timestamp=int(ts),
                     date=date, subject=subject, body=body.strip(), changes=changes, pr=pr,
                     skip_reason=reason)


# --- volume ----------------------------------------------------------------------------------

def measure(path: str, reader: str = "auto"):
    started = time.perf_counter()
    commits, source = commits_of(path, reader)
    mined = time.perf_counter() - started
    started = time.perf_counter()
    units = []
    for commit in commits:
        units.extend((repo_name(path), u) for u in extract_units(commit))
    extracted = time.perf_counter() - started
    skipped = sum(1 for c in commits if c.skip_reason)
    return commits, units, source, mined, extracted, skipped


def report_volume(name: str, commits, units, source, mined, extracted, skipped) -> None:
    n = len(commits)
    by_type = Counter(u.type for _, u in units)
    fallback = sum(1 for _, u in units if u.heuristic.endswith("subject-fallback"))
    per_1k = 1000 * len(units) / max(n, 1)
    rules_1k = 1000 * (len(units) - fallback) / max(n, 1)
    print(f"\n{name}: {n} commits ({skipped} filtered) via {source}; "
          f"git {mined:.1f}s, extraction {extracted:.2f}s "
          f"({n / max(extracted, 1e-9):,.0f} commits/s)")
    print(f"  units/1k commits: {per_1k:.1f} (heuristics only {rules_1k:.1f}, subject "
          f"fallback {1000 * fallback / max(n, 1):.1f})   baseline CommitDistill "
          f"{BASELINE_PER_1K.get(name, float('nan'))}")
    for type_ in ("fact", "skill", "pattern"):
        print(f"    {type_:8s} {1000 * by_type[type_] / max(n, 1):7.1f} /1k  ({by_type[type_]})")
    heur = Counter(u.heuristic for _, u in units)
    print("  by heuristic: " + ", ".join(f"{h} {c}" for h, c in heur.most_common()))


# --- labels ----------------------------------------------------------------------------------

def write_sample(all_units, size: int, seed: int, out: Path, keep: Path | None) -> None:
    """A seeded sample, half from each repository; labels already given in ``keep`` are kept."""
    known = {r["unit id"]: r for r in _read_labels(keep)} if keep and keep.exists() else {}
    rng = random.Random(seed)
    by_repo: dict[str, list] = {}
    for name, unit in all_units:
        by_repo.setdefault(name, []).append(unit)
    rows = []
    for name in sorted(by_repo):
        pool = sorted(by_repo[name], key=lambda u: (u.commit, u.id))
        for unit in rng.sample(pool, min(len(pool), size // len(by_repo))):
            label = known.get(unit.id, {}).get("label", "")
            rows.append((name, unit.commit[:12], unit.id, unit.type, unit.heuristic,
                         unit.content.replace("\t", " ").replace("\n", " "), label))
    comments = []  # "# ..." rows (the labelling rubric) are carried over from ``keep``
    if keep and keep.exists():
        with keep.open(encoding="utf-8") as handle:
            comments = [r for r in csv.reader(handle, delimiter="\t") if r and r[0].startswith("#")]
    with out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
        writer.writerow(TSV_COLUMNS)
        writer.writerows(comments)
        writer.writerows(rows)
    print(f"\nwrote {len(rows)} units to label to {out}")


def _read_labels(path: Path) -> list[dict]:
    """Labelled rows (a unit id may repeat: the same sentence in two commits, e.g. a backport)."""
    with path.open(encoding="utf-8") as handle:
        return [r for r in csv.DictReader(handle, delimiter="\t") if not r["repo"].startswith("#")]


def report_precision(path: Path, current_ids: set[str]) -> None:
    rows = _read_labels(path)
    labelled = [r for r in rows if r["label"] in LABELS]
    stale = sum(1 for r in labelled if r["unit id"] not in current_ids)
    useful = sum(1 for r in labelled if r["label"] == "useful")
    print(f"\nlabels: {len(labelled)} units in {path.name} "
          f"({stale} no longer produced by the current rules)")
    if not labelled:
        return
    low, high = _wilson(useful, len(labelled))
    print(f"  useful precision: {useful / len(labelled):.3f} (95% CI {low:.2f}-{high:.2f})   "
          f"baseline CommitDistill {BASELINE_PRECISION}")
    print("  labels: " + ", ".join(f"{k} {v}" for k, v in Counter(
        r["label"] for r in labelled).most_common()))
    for key in ("type", "repo"):
        groups: dict[str, list] = {}
        for r in labelled:
            groups.setdefault(r[key], []).append(r)
        print(f"  by {key}: " + ", ".join(
            f"{g} {sum(r['label'] == 'useful' for r in rs) / len(rs):.2f} (n={len(rs)})"
            for g, rs in sorted(groups.items())))
    rules = [r for r in labelled if not r["heuristic"].endswith("subject-fallback")]
    current = [r for r in labelled if r["unit id"] in current_ids]
    if stale:
        print(f"  on the units the current rules still produce: {_share(current)}")
    if rules:
        print(f"  heuristics only: {sum(r['label'] == 'useful' for r in rules) / len(rules):.3f}"
              f" (n={len(rules)}); subject fallback: "
              f"{_share([r for r in labelled if r not in rules])}")


def _wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion."""
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
    return centre - half, centre + half


def _share(rows) -> str:
    if not rows:
        return "n=0"
    return f"{sum(r['label'] == 'useful' for r in rows) / len(rows):.3f} (n={len(rows)})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos", nargs="*", default=DEFAULT_REPOS)
    parser.add_argument("--sample", type=int, default=0, help="write N units to label")
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--out", type=Path, default=Path("units-sample.tsv"))
    parser.add_argument("--labels", type=Path, help="labelled TSV: print useful precision")
    parser.add_argument("--lenient-fallback", action="store_true",
                        help="a subject fallback for every substantive commit "
                             "(knowledge.subjects.FALLBACK_NEEDS_BEHAVIOUR = False)")
    parser.add_argument("--only-lenient", action="store_true",
                        help="with --sample: sample only units the lenient fallback adds")
    parser.add_argument("--reader", choices=("auto", "whylens", "git"), default="auto",
                        help="where commits come from (auto: whylens.history when usable)")
    args = parser.parse_args(argv)
    strict_ids: set[str] = set()
    if args.lenient_fallback:
        from whylens.knowledge import subjects

        if args.only_lenient:
            for path in args.repos:
                strict_ids |= {u.id for _, u in measure(path, args.reader)[1]}
        subjects.FALLBACK_NEEDS_BEHAVIOUR = False
    all_units = []
    for path in args.repos:
        if not Path(path).exists():
            print(f"{path}: not found (fetch it first)", file=sys.stderr)
            return 1
        commits, units, source, mined, extracted, skipped = measure(path, args.reader)
        report_volume(repo_name(path), commits, units, source, mined, extracted, skipped)
        all_units.extend(units)
    if args.sample:
        pool = [(n, u) for n, u in all_units if u.id not in strict_ids]
        write_sample(pool, args.sample, args.seed, args.out, args.labels)
    if args.labels:
        report_precision(args.labels, {u.id for _, u in all_units})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
