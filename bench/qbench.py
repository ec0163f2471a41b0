"""What the question, error and time-travel benchmarks share: the repository split, labels,
indexes, the answer-sentence check, and the two baselines (BM25 over raw commit messages,
`git log -i --grep`).

The split is fixed (bench/labelling/GUIDE.md): weights and thresholds are tuned on TUNE only;
HELD_OUT is reported, never looked at while tuning.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# WHYLENS_BENCH_SERVER: another checkout's server/ (a same-run baseline on these labels)
SERVER = os.environ.get("WHYLENS_BENCH_SERVER") or str(ROOT / "server")
sys.path.insert(0, SERVER)

MIRRORS = {
    "requests": "/work/.mirror/psf+requests/repo",
    "express": "/work/.mirror/expressjs+express/repo",
    "mux": "/work/.mirror/gorilla+mux/repo",
    "redis": "/work/.mirror/redis+redis/repo",
    "httpx": "/work/.mirror/encode+httpx/repo",
    "flask": "/work/.mirror/pallets+flask/repo",
    "axios": "/work/.mirror/axios+axios/repo",
    "gin": "/work/.mirror/gin-gonic+gin/repo",
    "jq": "/work/.mirror/jqlang+jq/repo",
    "cobra": "/work/.mirror/spf13+cobra/repo",
    "gson": "/work/.mirror/google+gson/repo",
    "ripgrep": "/work/.mirror/BurntSushi+ripgrep/repo",
    "okhttp": "/work/.mirror/square+okhttp/repo",
    "serde": "/work/.mirror/serde-rs+serde/repo",
    "sinatra": "/work/.mirror/sinatra+sinatra/repo",
    "lodash": "/work/.mirror/lodash+lodash/repo",
}
# Questions (bench/labels/questions): the first four tune repositories' since round 4, httpx,
# cobra, gson, ripgrep and okhttp's since round 10 (written blind).
TUNE = ("requests", "express", "mux", "redis", "httpx", "cobra", "gson", "ripgrep")
HELD_OUT = ("flask", "axios", "gin", "jq", "okhttp")
# Errors (bench/labels/errors): requests, httpx, express since round 6; gson, cobra, mux,
# ripgrep, serde, sinatra, lodash, redis since round 28 (mostly errors pasted without frames).
ERRORS_TUNE = ("requests", "httpx", "express", "gson", "cobra", "mux", "ripgrep", "serde",
               "sinatra", "lodash", "redis")
ERRORS_HELD_OUT = ("flask", "axios")
BUDGET = 256
TOP = 10


def questions(name: str) -> list[dict]:
    path = ROOT / "bench" / "labels" / "questions" / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def errors(name: str) -> list[dict]:
    path = ROOT / "bench" / "labels" / "errors" / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def ensure_index(name: str, workdir: Path, reindex: bool = False) -> tuple[Path, float | None]:
    """Index a mirror with the real CLI unless an up-to-date index is there."""
    index_dir = workdir / name
    started = time.monotonic()
    args = [sys.executable, "-m", "whylens", "index", "--repo", MIRRORS[name], "--index-dir",
            str(index_dir), "--progress", "none"]
    if reindex and index_dir.exists():
        import shutil

        shutil.rmtree(index_dir)
    # the index child runs the same server as this process, not whatever whylens is installed
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [SERVER, os.environ.get("PYTHONPATH", "")]))}
    out = subprocess.run(args, check=True, cwd=ROOT, capture_output=True, text=True, env=env)
    spent = None if out.stdout.startswith("up-to-date") else time.monotonic() - started
    return index_dir, spent


# ---- is the answer sentence shown? --------------------------------------------------------------

_URL = re.compile(r"https?://\S+")


def words(text: str) -> list[str]:
    """Lower-case word tokens, URLs and markup left out (how output and answers are compared)."""
    return re.findall(r"[a-z0-9]+", _URL.sub(" ", text.replace("`", "")).lower())


def answer_shown(answer: str, output: str, budget: int = BUDGET) -> bool:
    """Is the answer sentence within the first ``budget`` characters of ``output``?

    Compared as word sequences: the answer's words must appear as one contiguous run, or, for
    an answer too long to fit, a run of at least 60% of its words (never fewer than 6)."""
    want = words(answer)
    have = words(output[:budget])
    if not want or not have:
        return False
    need = len(want) if len(want) <= 6 else max(6, math.ceil(0.6 * len(want)))
    return longest_common_run(want, have) >= min(need, len(want))


def longest_common_run(a: list[str], b: list[str]) -> int:
    best = 0
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0] * (len(b) + 1)
        for j, y in enumerate(b, 1):
            if x == y:
                current[j] = previous[j - 1] + 1
                best = max(best, current[j])
        previous = current
    return best


# ---- outcomes -----------------------------------------------------------------------------------

@dataclass
class Answer:
    """One system's answer to one question: commits in rank order, the text a reader sees."""

    commits: list[list[str]] = field(default_factory=list)  # per hit, the commits it stands for
    output: str = ""
    abstained: bool = False
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)


def rank_of(answer: Answer, wanted: set[str]) -> int | None:
    """1-based rank of the first hit standing for a wanted commit (None when absent)."""
    for n, shas in enumerate(answer.commits[:TOP], 1):
        if wanted & set(shas):
            return n
    return None


def wanted_commits(question: dict) -> set[str]:
    return {question["commit"], *question.get("also", [])} - {""}


def score_table(rows: list[tuple[dict, Answer]]) -> dict[str, float]:
    """The issue's measures over ``rows`` (question, answer)."""
    answerable = [(q, a) for q, a in rows if q["kind"] == "answerable"]
    never = [a for q, a in rows if q["kind"] == "never"]
    offtopic = [a for q, a in rows if q["kind"] == "offtopic"]
    ranks = [rank_of(a, wanted_commits(q)) if not a.abstained else None for q, a in answerable]
    shown = [not a.abstained and answer_shown(q["answer"], a.output) for q, a in answerable]
    snippets = [not a.abstained and answer_shown(q["answer"], a.extra.get("snippets", a.output))
                for q, a in answerable]
    n = max(len(answerable), 1)
    return {
        "answerable": len(answerable),
        "within_256": sum(shown) / n,
        "snippets_256": sum(snippets) / n,
        "top10": sum(r is not None for r in ranks) / n,
        "top1": sum(r == 1 for r in ranks) / n,
        "mrr": sum(1 / r for r in ranks if r) / n,
        "false_abstention": sum(a.abstained for _, a in answerable) / n,
        "silent_never": sum(a.abstained for a in never) / max(len(never), 1),
        "silent_offtopic": sum(a.abstained for a in offtopic) / max(len(offtopic), 1),
        "never": len(never),
        "offtopic": len(offtopic),
    }


# ---- baseline: BM25 over raw commit messages ----------------------------------------------------

_STOP = frozenset("""a an and are as at be been but by can could did do does for from had has have
how i if in into is it its me my no not of on or our should so than that the their them then there
these they this those to too us was we were what when where which who why will with would you your
""".split())


def git_messages(mirror: str, rev: str = "HEAD") -> list[tuple[str, str, int]]:
    """(sha, raw message, unix time) of every commit reachable from ``rev``, newest first."""
    out = subprocess.run(["git", "--git-dir", mirror, "log", rev, "--format=%H%x1f%ct%x1f%B%x1e"],
                         check=True, capture_output=True).stdout.decode("utf-8", "replace")
    rows = []
    for chunk in out.split("\x1e"):
        chunk = chunk.strip("\n")
        if chunk:
            sha, stamp, message = chunk.split("\x1f", 2)
            rows.append((sha, message.strip(), int(stamp)))
    return rows


def tokens(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9_]+", text.lower()) if w not in _STOP and len(w) > 1]


class RawBM25:
    """Okapi BM25 (k1 1.2, b 0.75) over whole raw commit messages; no gate."""

    def __init__(self, messages: list[tuple[str, str, int]]) -> None:
        self.messages = messages
        self.docs = [Counter(tokens(m)) for _, m, _ in messages]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avg = sum(self.lengths) / max(len(self.lengths), 1)
        self.df: Counter[str] = Counter()
        self.postings: dict[str, list[int]] = {}
        for i, d in enumerate(self.docs):
            for term in d:
                self.df[term] += 1
                self.postings.setdefault(term, []).append(i)

    def search(self, query: str, k: int = TOP, allowed: set[str] | None = None) -> list[int]:
        n = len(self.docs)
        scores: dict[int, float] = {}
        for term in set(tokens(query)):
            df = self.df.get(term, 0)
            if not df:
                continue
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            for i in self.postings[term]:
                if allowed is not None and self.messages[i][0] not in allowed:
                    continue
                tf = self.docs[i][term]
                norm = 1.2 * (0.25 + 0.75 * self.lengths[i] / self.avg)
                scores[i] = scores.get(i, 0.0) + idf * tf * 2.2 / (tf + norm)
        return sorted(scores, key=lambda i: (-scores[i], i))[:k]

    def answer(self, query: str, allowed: set[str] | None = None) -> Answer:
        started = time.perf_counter()
        hits = self.search(query, allowed=allowed)
        return Answer(commits=[[self.messages[i][0]] for i in hits],
                      output="\n".join(self.messages[i][1] for i in hits),
                      abstained=not hits, seconds=time.perf_counter() - started)


# ---- baseline: git log -i --grep ----------------------------------------------------------------

def git_grep_answer(mirror: str, query: str, df: Counter[str], rev: str = "HEAD") -> Answer:
    """`git log -i --all-match --grep=w ...` with the query's words, dropping the most common
    word until something matches (what a person does); newest first, as git lists them."""
    started = time.perf_counter()
    terms = sorted(set(tokens(query)), key=lambda w: (df.get(w, 0), w))
    terms = [w for w in terms if df.get(w, 0) > 0] or terms
    shas: list[str] = []
    while terms and not shas:
        args = ["git", "--git-dir", mirror, "log", rev, "-i", "--all-match", "--format=%H",
                f"-n{TOP}"] + [f"--grep={re.escape(w)}" for w in terms]
        shas = subprocess.run(args, capture_output=True, text=True).stdout.split()
        terms = terms[:-1]
    output = ""
    if shas:
        output = subprocess.run(["git", "--git-dir", mirror, "show", "-s", "--format=%B"] + shas,
                                capture_output=True, text=True, errors="replace").stdout
    return Answer(commits=[[s] for s in shas], output=output, abstained=not shas,
                  seconds=time.perf_counter() - started)


def document_frequencies(messages: list[tuple[str, str, int]]) -> Counter[str]:
    df: Counter[str] = Counter()
    for _, message, _ in messages:
        df.update(set(tokens(message)))
    return df


# ---- WhyLens ------------------------------------------------------------------------------------

def hit_commits(reader, hit) -> list[str]:
    """The commits a hit stands for (a record: its fixing commits; and the commits of the same
    change landed again, folded into it)."""
    also = list(getattr(hit, "also", ()))
    if hit.type == "decision":
        record = reader.record(hit.id)
        if record is not None and record.fixing_commits:
            return list(record.fixing_commits) + also
    return [hit.commit] + also


def whylens_answer(reader, query: str, gate: float | None = None, budget: int = BUDGET,
                   **kwargs) -> Answer:
    """WhyLens's answer; ``output`` is what `whylens search` prints of each hit (its title,
    then its snippet less the title: ``render.hits.human_lines`` without the type tag and the
    commit line), ``extra["snippets"]`` the hits' snippets alone (the measure before round 7)."""
    from whylens.render.hits import flatten, without_title
    from whylens.retrieval.search import search

    started = time.perf_counter()
    result = search(reader, query, k=TOP, gate=gate, budget=budget, **kwargs)
    seconds = time.perf_counter() - started
    printed = []
    for h in result.hits:
        title = flatten(h.title)
        snippet = without_title(flatten(h.snippet), title)
        printed.append(title + (f"\n{snippet}" if snippet else ""))
    return Answer(commits=[hit_commits(reader, h) for h in result.hits],
                  output="\n".join(printed), abstained=result.abstained, seconds=seconds,
                  extra={"confidence": result.confidence,
                         "snippets": "\n".join(h.snippet or h.title for h in result.hits)})


def split_args(doc: str, tune: tuple[str, ...], held_out: tuple[str, ...]):
    """The benches' shared command line: --tune / --repo / --workdir / --verbose; returns the
    parsed arguments, the repositories to run and the half's label (printed with the load)."""
    import argparse
    import os

    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--tune", action="store_true", help="the tune half (in-sample)")
    parser.add_argument("--repo", action="append", help="only these repositories")
    parser.add_argument("--workdir", default="/tmp/search-bench")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    names = args.repo or (tune if args.tune else held_out)
    label = "TUNE half, in-sample" if args.tune else "HELD-OUT half"
    print(f"{label}; load average {os.getloadavg()[0]:.1f} (2 cores shared)")
    return args, names, label


def answerable_questions(names: list[str], workdir: str):
    """Per repository of ``names``: its name, a warm reader of its index (built in
    ``workdir`` when missing) and its answerable questions — what the tune sweeps walk."""
    from whylens.index.store import IndexStore

    for name in names:
        index_dir, _ = ensure_index(name, Path(workdir))
        with IndexStore(index_dir).reader() as reader:
            whylens_answer(reader, "warm up")
            yield name, reader, [q for q in questions(name) if q["kind"] == "answerable"]
