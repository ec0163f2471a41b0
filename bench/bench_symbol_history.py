"""Symbol history against ``git log -L`` over each function's exact range, minus formatting.

    python bench/bench_symbol_history.py pick REPO LIST.json [--count 25]   # write the sample
    python bench/bench_symbol_history.py score REPO LIST.json [--index DIR] [--server DIR]

``pick`` samples functions and methods at the repository's HEAD (seeded, so the list is the same
every time; functions that contain other definitions are left out, since ``git log -L`` over the
outer range also counts the inner ones, which WhyLens files under the inner symbol, and so are
files WhyLens does not anchor: generated, vendored, minified, over 1 MB, tests) and writes
{path, symbol, start, end} rows with the pinned HEAD sha: the committed label list.

``score`` builds the reference per function: the commits ``git log -L start,end:path`` lists at
that sha (merges left out), minus the commits whose change of that range is formatting-only or
(Python) annotation-only (``symbols.formatting.formatting_only`` / ``typing_only`` on the whole
range before and after, context and changed lines ``git log -L`` prints; issue 13: reformat,
lint and typing-only commits are never listed as changes) and the commits in
``.git-blame-ignore-revs``. It indexes the repository with the WhyLens of ``--server`` (default:
this checkout; pass another checkout's ``server/`` folder for the baseline), reads
``symbol_history(symbol, path)`` and prints precision, recall and the share of the commits cited
that are formatting-only (per function and pooled), next to the run's CPU.
Nothing is written into the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
_COMMIT = re.compile(r"^commit ([0-9a-f]{40}) ", re.M)


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True
                          ).stdout.decode("utf-8", "replace")


def pick(repo: str, out: str, count: int) -> None:
    sys.path.insert(0, str(HERE / "server"))
    from whylens.symbols.languages import language_for_path
    from whylens.symbols.outline import outline
    from whylens.symbols.skip import skip_reason

    head = _git(repo, "rev-parse", "HEAD").strip()
    candidates = []
    for path in sorted(_git(repo, "ls-tree", "-r", "--name-only", head).splitlines()):
        language = language_for_path(path)
        if not language or "/vendor/" in f"/{path}" or "test" in path.lower():
            continue
        source = subprocess.run(["git", "-C", repo, "show", f"{head}:{path}"],
                                capture_output=True).stdout
        if skip_reason(path, len(source), source) is not None:
            continue  # generated, vendored, minified or too large: WhyLens does not anchor it
        symbols = outline(source, language)
        for s in symbols:
            inner = [t for t in symbols if t is not s and s.start_line <= t.start_line
                     and t.end_line <= s.end_line]
            if s.kind in ("function", "method") and not inner and s.end_line - s.start_line >= 3:
                candidates.append({"path": path, "symbol": s.name, "start": s.start_line,
                                   "end": s.end_line})
    random.Random(14).shuffle(candidates)
    chosen = sorted(candidates[:count], key=lambda c: (c["path"], c["start"]))
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(json.dumps({"repo": Path(repo).parent.name, "head": head,
                                     "functions": chosen}, indent=1) + "\n")
    print(f"{len(chosen)} functions of {len(candidates)} candidates → {out}")


def reference(repo: str, head: str, item: dict, ignored: set[str], formatting_only,
              typing_only, paths: dict[str, str] | None = None) -> tuple[set[str], set[str], int]:
    """(substantive commits, formatting-only commits, the oldest one's author time) of
    ``git log -L`` over the range; ``paths`` gets each commit's path of the range."""
    text = _git(repo, "log", "-L", f"{item['start']},{item['end']}:{item['path']}",
                "--no-merges", "--format=commit %H %at", head)
    blocks = re.split(r"(?m)^(?=commit [0-9a-f]{40} \d+$)", text)
    substantive, layout = set(), set()
    oldest = 1 << 62
    language = _language(item["path"])
    for block in blocks:
        match = _COMMIT.match(block)
        if not match:
            continue
        sha = match.group(1)
        oldest = min(oldest, int(block.split("\n", 1)[0].split()[2]))
        where = re.search(r"(?m)^\+\+\+ b/(.+)$", block)
        if paths is not None:
            paths[sha] = where.group(1) if where else item["path"]
        removed, added = _sides(block)
        if sha in ignored or (removed and formatting_only(language, removed.encode(),
                                                          added.encode())) or (
                removed and typing_only(language, removed.encode(), added.encode())):
            layout.add(sha)
        else:
            substantive.add(sha)
    return substantive, layout, oldest


def _sides(block: str) -> tuple[str, str]:
    """The range before and after one commit of ``git log -L``: its context lines with the
    removed lines, and with the added ones (the whole range, as the anchorer compares a
    definition whose changed lines alone are not provably layout; "" before when the range was
    born there)."""
    body = block.split("\n@@ ", 1)
    if len(body) < 2:
        return "", ""
    old, new = [], []
    for line in body[1].splitlines()[1:]:
        if line.startswith("-"):
            old.append(line[1:] + "\n")
        elif line.startswith("+"):
            new.append(line[1:] + "\n")
        elif line.startswith(" ") or not line:
            old.append(line[1:] + "\n")
            new.append(line[1:] + "\n")
    return "".join(old), "".join(new)


def touched_by_parse(repo: str, sha: str, path: str, symbol: str) -> bool:
    """Whether commit ``sha`` changed a line that belongs to ``symbol`` itself (not to a
    definition inside it) in ``path``, on either side, by parsing both versions: the
    adjudication of a commit ``git log -L`` did not list."""
    from whylens.symbols.outline import find, outline

    language = _language(path)
    diff = subprocess.run(["git", "-C", repo, "diff", "-U0", "--no-color", f"{sha}^", sha,
                           "--", path], capture_output=True).stdout.decode("utf-8", "replace")
    ranges = [(int(m[1]), int(m[2] or 1), int(m[3]), int(m[4] or 1)) for m in re.finditer(
        r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", diff, re.M)]
    for side, rev in ((0, f"{sha}^"), (1, sha)):
        source = subprocess.run(["git", "-C", repo, "show", f"{rev}:{path}"],
                                capture_output=True).stdout
        symbols = outline(source, language)
        target = find(symbols, symbol)
        if target is None:
            continue
        inner = [s for s in symbols if s is not target and target.start_line <= s.start_line
                 and s.end_line <= target.end_line]
        for hunk in ranges:
            start, count = hunk[2 * side], hunk[2 * side + 1]
            for line in range(start, start + count):
                if target.start_line <= line <= target.end_line and not any(
                        s.start_line <= line <= s.end_line for s in inner):
                    return True
    return False


def real_miss(repo: str, sha: str, path: str, symbol: str) -> bool:
    """Whether a commit only ``git log -L`` lists changed the symbol, judged by parsing both
    versions of the file it had then: False when a definition of that name (qualified, else
    the one with its short name) is found and the commit changed none of its own lines (git
    log -L counting a neighbour's lines, e.g. a removed method above whose ``@property`` the
    diff aligned with this one's), or changed only its layout or annotations (the whole
    definition compared: the range ``git log -L`` prints may not parse alone); True when it
    changed it, or when no such definition is found on either side (the code lived under
    another name: a real miss, say a move WhyLens did not follow)."""
    import textwrap

    from whylens.symbols.annotations import typing_only  # moved out of formatting (issue 14)
    from whylens.symbols.formatting import formatting_only
    from whylens.symbols.outline import outline

    language = _language(path)
    diff = subprocess.run(["git", "-C", repo, "diff", "-U0", "--no-color", f"{sha}^", sha,
                           "--", path], capture_output=True).stdout.decode("utf-8", "replace")
    ranges = [(int(m[1]), int(m[2] or 1), int(m[3]), int(m[4] or 1)) for m in re.finditer(
        r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", diff, re.M)]
    short = symbol.rsplit(".", 1)[-1]
    found, touched, texts = False, False, []
    for side, rev in ((0, f"{sha}^"), (1, sha)):
        source = subprocess.run(["git", "-C", repo, "show", f"{rev}:{path}"],
                                capture_output=True).stdout
        symbols = outline(source, language)
        named = [s for s in symbols if s.name == symbol] or [
            s for s in symbols if s.name.rsplit(".", 1)[-1] == short]
        if len(named) != 1:
            continue
        found, target = True, named[0]
        lines = source.decode("utf-8", "replace").splitlines(keepends=True)
        texts.append(textwrap.dedent("".join(lines[target.start_line - 1:target.end_line])))
        inner = [s for s in symbols if s is not target and target.start_line <= s.start_line
                 and s.end_line <= target.end_line]
        for hunk in ranges:
            start, count = hunk[2 * side], hunk[2 * side + 1]
            touched = touched or any(
                target.start_line <= line <= target.end_line and not any(
                    s.start_line <= line <= s.end_line for s in inner)
                for line in range(start, start + count))
    if len(texts) == 2 and touched:  # a reformat or annotations only: deliberately no change
        old, new = (t.encode() for t in texts)
        return not (formatting_only(language, old, new) or typing_only(language, old, new))
    return touched or not found


def _language(path: str) -> str | None:
    from whylens.symbols.languages import language_for_path
    return language_for_path(path)


def score(repo: str, labels: str, index: str | None, server: str) -> None:
    data = json.loads(Path(labels).read_text())
    head = data["head"]
    sys.path.insert(0, str(HERE / "server"))  # the reference uses this checkout's formatting
    from whylens.symbols.annotations import typing_only  # moved out of formatting (issue 14)
    from whylens.symbols.formatting import formatting_only
    try:
        ignored = set(_git(repo, "show", f"{head}:.git-blame-ignore-revs").split())
    except subprocess.CalledProcessError:
        ignored = set()
    work = Path(index or tempfile.mkdtemp(prefix="whylens-history-"))
    env = {**os.environ, "PYTHONPATH": server}
    started, cpu_before = time.perf_counter(), _children_cpu()
    if not (work / "CURRENT").exists():
        subprocess.run([sys.executable, "-m", "whylens", "index", "--repo", repo, "--index-dir",
                        str(work), "--rev", head, "--progress", "none"], check=True, env=env)
    wall, cpu = time.perf_counter() - started, _children_cpu() - cpu_before
    query = ("import json, sys\nfrom whylens.index.store import IndexStore\n"
             "items = json.loads(sys.stdin.read())\n"
             "with IndexStore(sys.argv[1]).reader() as r:\n"
             "    print(json.dumps([sorted({(e.commit, e.timestamp, e.path, e.symbol) for e in "
             "r.symbol_history(i['symbol'], i['path'])}) for i in items]))\n")
    answered = json.loads(subprocess.run(
        [sys.executable, "-c", query, str(work)], input=json.dumps(data["functions"]),
        capture_output=True, text=True, check=True, env=env).stdout)
    tp = fp = fn = cited_layout = beyond = confirmed = real = 0
    rows = []
    for item, answer in zip(data["functions"], answered):
        paths: dict[str, str] = {}
        truth, layout, oldest = reference(repo, head, item, ignored, formatting_only,
                                          typing_only, paths)
        # before the oldest commit git log -L reaches (the range's origin in that file),
        # WhyLens may follow the symbol across moves and renames: not comparable
        ours = {sha for sha, stamp, _, _ in answer if stamp >= oldest}
        beyond += len(answer) - len(ours)
        where = {sha: (path, symbol) for sha, _, path, symbol in answer}
        confirmed += sum(1 for sha in ours - truth - layout
                         if touched_by_parse(repo, sha, *where[sha]))
        real += sum(1 for sha in truth - ours
                    if real_miss(repo, sha, paths.get(sha, item["path"]), item["symbol"]))
        hit = len(ours & truth)
        tp, fp, fn = tp + hit, fp + len(ours - truth), fn + len(truth - ours)
        cited_layout += len(ours & layout)
        rows.append((item["symbol"], len(truth), len(ours), hit, len(ours & layout)))
    if not index:
        shutil.rmtree(work, ignore_errors=True)
    cited = tp + fp
    print(f"repository {data['repo']} at {head[:12]}; server {server}")
    print(f"index: {wall:.1f} s wall, {cpu:.1f} s CPU; load {os.getloadavg()[0]:.2f}")
    print(f"adjudicated: {confirmed} of the {fp} commits only WhyLens cites do change the "
          f"symbol's own lines (parsed at the commit and its parent); precision counting them "
          f"{(tp + confirmed) / max(cited, 1):.3f}")
    print(f"adjudicated: {real} of the {fn} commits only git log -L lists change the symbol's "
          f"own lines or a definition no longer found by its name (parsed at the commit and its "
          f"parent); recall counting only them {tp / max(tp + real, 1):.3f}")
    print(f"{len(rows)} functions: precision {tp / max(cited, 1):.3f}, recall "
          f"{tp / max(tp + fn, 1):.3f}, formatting-only cited {cited_layout / max(cited, 1):.3f} "
          f"({tp} agreed, {fp} only WhyLens, {fn} only git log -L; {beyond} older commits "
          "WhyLens followed across moves and renames not compared)")
    worst = sorted(rows, key=lambda r: (r[3] - r[1] - (r[2] - r[3])))[:5]
    for symbol, truth_n, ours_n, hit, layout_n in worst:
        print(f"    {symbol:50} git log -L {truth_n:3}  WhyLens {ours_n:3}  both {hit:3}"
              f"  formatting cited {layout_n}")


def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("pick", "score"))
    parser.add_argument("repo")
    parser.add_argument("labels")
    parser.add_argument("--count", type=int, default=25)
    parser.add_argument("--index", help="reuse (or keep) an index folder")
    parser.add_argument("--server", default=str(HERE / "server"),
                        help="the server/ folder whose WhyLens indexes (for a baseline)")
    args = parser.parse_args()
    if args.action == "pick":
        pick(args.repo, args.labels, args.count)
    else:
        score(args.repo, args.labels, args.index, args.server)


if __name__ == "__main__":
    main()
