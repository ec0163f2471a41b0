"""The hand-labelled commit sentences, joined with the commits they came from.

Shared by bench/train_sentences.py and bench/eval_sentences.py. Labels live in
bench/labels/sentences/<repo>.jsonl (GUIDE.md: unit fact/skill/pattern/none, role
problem/cause/decision/rejected/none); the commits are read from the local mirrors
(/work/.mirror/<owner>+<name>/repo, or --mirrors) with WhyLens's own walk, so a sentence's
commit context (files, subject prefix, merge/squash, skip reason) is what extraction sees at run
time. Nothing from the repositories is written anywhere but a cache in the temp folder.
"""

from __future__ import annotations

import json
import os
import pickle
import tempfile
from dataclasses import dataclass
from pathlib import Path

from whylens.models import Commit

LABELS = Path(__file__).resolve().parent / "labels" / "sentences"
MIRRORS = Path(os.environ.get("WHYLENS_MIRRORS", "/work/.mirror"))
# The fixed split of bench/labelling/GUIDE.md (okhttp is held out but has no sentence labels).
TUNE = ("requests", "express", "mux", "redis", "ripgrep", "gson", "sinatra", "cobra", "serde",
        "lodash", "httpx")
HELD_OUT = ("flask", "axios", "gin", "jq")
OWNERS = {
    "requests": "psf", "express": "expressjs", "mux": "gorilla", "redis": "redis",
    "ripgrep": "BurntSushi", "gson": "google", "sinatra": "sinatra", "cobra": "spf13",
    "serde": "serde-rs", "lodash": "lodash", "httpx": "encode", "flask": "pallets",
    "axios": "axios", "gin": "gin-gonic", "jq": "jqlang",
}
UNIT_CLASSES = ("none", "fact", "skill", "pattern")
ROLE_CLASSES = ("none", "problem", "cause", "decision", "rejected")


@dataclass(frozen=True)
class Labelled:
    repo: str
    commit: Commit
    index: int  # position among the commit's sentences when it was labelled
    count: int  # sentences of that commit in the label file (a lower bound of the real count)
    from_subject: bool
    sentence: str
    unit: str
    role: str


def features_of(row: Labelled) -> set[str]:
    """The classifier's features of a labelled sentence in its commit, as extraction builds them."""
    from whylens.knowledge.extract import sentence_kind
    from whylens.knowledge.features import sentence_features
    from whylens.knowledge.sentences import commit_sentences

    commit = row.commit
    kind = sentence_kind(commit, commit_sentences(commit), [c.path for c in commit.changes])
    return sentence_features(row.sentence, from_subject=row.from_subject, index=row.index,
                             kind=kind)


def mirror(repo: str) -> Path:
    return MIRRORS / f"{OWNERS[repo]}+{repo}" / "repo"


def load_labels(repo: str) -> list[dict]:
    with open(LABELS / f"{repo}.jsonl", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def commits_of(repo: str, shas: set[str]) -> dict[str, Commit]:
    """The commits ``shas`` of ``repo``, as the walk yields them (cached in the temp folder)."""
    cache = Path(tempfile.gettempdir()) / f"whylens-sentence-commits-{repo}.pickle"
    if cache.exists():
        with open(cache, "rb") as fh:
            found = pickle.load(fh)
        if shas <= set(found):
            return found
    from whylens.history.repo import open_repository
    from whylens.history.walk import walk

    found = {}
    with open_repository(mirror(repo)) as handle:
        for commit in walk(handle, "HEAD", hunks=False):
            if commit.sha in shas:
                found[commit.sha] = commit
    with open(cache, "wb") as fh:
        pickle.dump(found, fh)
    return found


def load(repos) -> list[Labelled]:
    """Every labelled sentence of ``repos`` with its commit (labels whose commit is missing from
    the mirror are reported and left out)."""
    out: list[Labelled] = []
    for repo in repos:
        rows = load_labels(repo)
        commits = commits_of(repo, {r["commit"] for r in rows})
        per_commit: dict[str, int] = {}
        for row in rows:
            per_commit[row["commit"]] = max(per_commit.get(row["commit"], 0), row["index"] + 1)
        missing = 0
        for row in rows:
            commit = commits.get(row["commit"])
            if commit is None:
                missing += 1
                continue
            out.append(Labelled(repo, commit, row["index"], per_commit[row["commit"]],
                                bool(row["from_subject"]), row["sentence"], row["unit"],
                                row["role"]))
        if missing:
            print(f"{repo}: {missing} labels whose commit is not in the mirror", flush=True)
    return out
