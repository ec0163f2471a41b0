"""Questions in developers' own words: WhyLens search next to BM25 over raw commit messages and
`git log -i --grep`, in one run, on the HELD-OUT repositories (or the tune ones, in-sample).

    python bench/bench_questions.py                    # held-out: flask, axios, gin, jq
    python bench/bench_questions.py --tune             # tune half (in-sample figures)
    python bench/bench_questions.py --verbose          # every question's outcome

Labels: bench/labels/questions/<repo>.jsonl (answerable with commit + answer sentence,
never-happened, off-topic). Systems, all over the mirror's HEAD:
- WhyLens: `retrieval.search.search` (k 10, snippets of 256 characters), gate on as shipped;
  and the same with the gate off (what it would show);
- BM25 over raw commit messages (Okapi, k1 1.2, b 0.75; no gate, silent only when no word
  matches);
- `git log -i --all-match --grep=...` with the question's words, dropping the most common word
  until something matches; newest first.
Measures (answerable questions unless said): answer sentence within the first 256 characters
of what the reader sees (WhyLens: what `whylens search` prints of the hits in order, each one's
title and then its snippet less the title; baselines: the hits' messages; `snippets_256`: the
hits' snippets alone, as measured before round 7),
right commit in the top 10, top 1, MRR@10, false abstention; silence on never-happened and on
off-topic questions. Latency per query is printed too (warm reader; machine load as it was).
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from qbench import (HELD_OUT, MIRRORS, TUNE, Answer, RawBM25, answer_shown,  # noqa: E402
                    document_frequencies, ensure_index, git_grep_answer, git_messages, questions,
                    rank_of, score_table, split_args, wanted_commits, whylens_answer)

from whylens.index.store import IndexStore  # noqa: E402

SYSTEMS = ("whylens", "whylens, gate off", "bm25 raw messages", "git log --grep")
COLUMNS = ("within_256", "snippets_256", "top10", "top1", "mrr", "false_abstention", "silent_never",
           "silent_offtopic")


def run_repo(name: str, workdir: Path, verbose: bool) -> dict[str, list[tuple[dict, Answer]]]:
    index_dir, spent = ensure_index(name, workdir)
    if spent is not None:
        print(f"{name}: indexed in {spent:.0f} s")
    messages = git_messages(MIRRORS[name])
    bm25 = RawBM25(messages)
    df = document_frequencies(messages)
    rows: dict[str, list[tuple[dict, Answer]]] = {s: [] for s in SYSTEMS}
    with IndexStore(index_dir).reader() as reader:
        whylens_answer(reader, "warm up")  # load the vectors once, as a running server has them
        for q in questions(name):
            answers = {
                "whylens": whylens_answer(reader, q["question"]),
                "whylens, gate off": whylens_answer(reader, q["question"], gate=0.0),
                "bm25 raw messages": bm25.answer(q["question"]),
                "git log --grep": git_grep_answer(MIRRORS[name], q["question"], df),
            }
            for system, answer in answers.items():
                rows[system].append((q, answer))
            if verbose:
                show(q, answers)
    return rows


def show(q: dict, answers: dict[str, Answer]) -> None:
    marks = []
    for a in answers.values():
        if q["kind"] == "answerable":
            rank = rank_of(a, wanted_commits(q)) if not a.abstained else None
            shown = not a.abstained and answer_shown(q["answer"], a.output)
            marks.append(f"{'S' if shown else '-'}{rank or ('a' if a.abstained else 'x')}")
        else:
            marks.append("silent" if a.abstained else "answers")
    print(f"  {q['id']:<12} {q['kind'][:5]:<5} " + " ".join(f"{m:>7}" for m in marks)
          + f"  {q['question'][:60]}")


def table(title: str, rows: dict[str, list[tuple[dict, Answer]]]) -> None:
    first = rows[SYSTEMS[0]]
    kinds = {k: sum(1 for q, _ in first if q["kind"] == k) for k in ("answerable", "never",
                                                                      "offtopic")}
    print(f"\n{title}: {len(first)} questions ({kinds['answerable']} answerable, "
          f"{kinds['never']} never-happened, {kinds['offtopic']} off-topic)")
    print(f"  {'system':<20}" + "".join(f"{c:>17}" for c in COLUMNS) + f"{'p50 ms':>9}"
          + f"{'p95 ms':>9}")
    for system in SYSTEMS:
        measures = score_table(rows[system])
        ms = sorted(a.seconds * 1000 for _, a in rows[system])
        p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
        print(f"  {system:<20}" + "".join(f"{measures[c]:>17.3f}" for c in COLUMNS)
              + f"{statistics.median(ms):>9.1f}{p95:>9.1f}")


def main() -> int:
    args, names, label = split_args(__doc__, TUNE, HELD_OUT)
    pooled: dict[str, list[tuple[dict, Answer]]] = {s: [] for s in SYSTEMS}
    for name in names:
        if args.verbose:
            print(f"\n{name} (marks: S = answer sentence within 256 characters, then the rank "
                  "of the right commit; a = abstained; x = not in the top 10)")
            print(f"  {'':<18}" + " ".join(f"{s[:7]:>7}" for s in SYSTEMS))
        rows = run_repo(name, Path(args.workdir), args.verbose)
        table(name, rows)
        for system in SYSTEMS:
            pooled[system] += rows[system]
    if len(names) > 1:
        table(f"all of {', '.join(names)} ({label})", pooled)
    return 0


if __name__ == "__main__":
    sys.exit(main())
