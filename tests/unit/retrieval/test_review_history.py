"""Diff-level evidence, constraints and co-change on real histories, with git reading the past."""

from __future__ import annotations

import pytest

from whylens.cli.review import change_message, history_patches, revision_reader
from whylens.history.diff import diff_changes
from whylens.history.repo import open_repository
from whylens.index.store import IndexStore
from whylens.pipeline import run_index
from whylens.models import FileChange, Hunk, Suggestion, Symbol, Unit
from whylens.retrieval.review import GATE, _one_per_change, review
from whylens.retrieval import review_constraints
from whylens.retrieval.review_constraints import constraints
from whylens.retrieval.review_context import ReviewContext
from whylens.retrieval.review_hunks import ChangedSymbol, changed_symbols, file_wide

from histories import indexed_branch
from retrieval.retry_history import (
    CLIENT_V5, FIXED_DELAY, REVERT_REASON, build_retry_history,
)


@pytest.fixture
def retry_repo(make_repo, index_dir):
    repo, shas = indexed_branch(make_repo, index_dir, "retry", build_retry_history)
    with IndexStore(index_dir).reader() as reader:
        yield repo, shas, reader


def _review(repo, reader, head=None, **kw):
    with open_repository(repo.root) as git:
        base = git.resolve("main")
        changes = diff_changes(git, base, head)
        read_head = revision_reader(git, head) if head else (
            lambda path: (repo.root / path).read_text(encoding="utf-8"))
        return review(reader, repo.root, changes, read_head, read_base=revision_reader(git, base),
                      patches=history_patches(git), message=change_message(git, base, head), **kw)


def _kind(out, kind):
    return [s for s in out if s.kind == kind]


def test_bringing_back_a_reverted_change_cites_both_commits_and_the_reason(retry_repo):
    repo, shas, reader = retry_repo
    repo.write("src/client.py", CLIENT_V5.replace("            time.sleep(backoff(attempt))\n", FIXED_DELAY))
    found = _kind(_review(repo, reader), "reintroduces-revert")
    assert len(found) == 1
    s = found[0]
    assert (s.path, s.line, s.side, s.symbol) == ("src/client.py", 15, "RIGHT", "fetch")
    assert s.evidence == (shas["fixed"], shas["revert"])
    assert shas["fixed"][:7] in s.body and shas["revert"][:7] in s.body
    assert f"“{REVERT_REASON}”" in s.body and "“Use a fixed retry delay”" in s.body
    assert s.confidence >= 0.9 > GATE


def test_reformatted_and_recommented_it_is_still_the_same_code(retry_repo):
    repo, shas, reader = retry_repo
    repo.write("src/client.py", CLIENT_V5.replace(
        "            time.sleep(backoff(attempt))\n",
        "            # wait a moment\n            time.sleep( RETRY_DELAY )   # constant\n"))
    found = _kind(_review(repo, reader), "reintroduces-revert")
    assert [s.evidence for s in found] == [(shas["fixed"], shas["revert"])]


def test_an_unrelated_change_to_the_same_function_is_silent(retry_repo):
    repo, _shas, reader = retry_repo
    repo.write("src/client.py", CLIENT_V5.replace("retries=3", "retries=5"))
    out = _review(repo, reader, gate=0.0)
    assert not _kind(out, "reintroduces-revert") and not _kind(out, "reintroduces-fixed")


def test_bringing_back_what_a_fix_replaced(retry_repo):
    repo, shas, reader = retry_repo
    repo.write("src/client.py", CLIENT_V5.replace("session.get(url, timeout=10)", "session.get(url)"))
    found = _kind(_review(repo, reader), "reintroduces-fixed")
    assert len(found) == 1 and found[0].evidence == (shas["timeout"],)
    assert "Fix hang when the server never answers" in found[0].body
    assert "fetch waited forever on a silent server" in found[0].body


def test_rewriting_a_fix_without_bringing_the_old_code_back(retry_repo):
    repo, shas, reader = retry_repo
    repo.write("src/client.py", CLIENT_V5.replace("session.get(url, timeout=10)",
                                                  "session.get(url, timeout=settings.timeout)"))
    found = _kind(_review(repo, reader, gate=0.0), "rewrites-fix")
    assert [s.evidence for s in found] == [(shas["timeout"],)]
    assert found[0].side == "LEFT" and found[0].line == 13  # the fix's line, as it was at base


def test_a_revert_that_was_itself_reverted_no_longer_counts(retry_repo):
    repo, shas, reader = retry_repo
    repo.git("checkout", "-q", "main")
    again = repo.commit(f'Reapply "Use a fixed retry delay"\n\nThis reverts commit {shas["revert"]}.\n',
                        {"src/client.py": CLIENT_V5.replace("            time.sleep(backoff(attempt))\n",
                                                            FIXED_DELAY)})
    repo.commit("Back off exponentially again\n", {"src/client.py": CLIENT_V5})
    run_index(repo.root, reader.store.path)
    reader.refresh()
    assert reader.reverts_of(shas["revert"]) == [again]
    repo.git("checkout", "-q", "-b", "again")
    repo.write("src/client.py", CLIENT_V5.replace("            time.sleep(backoff(attempt))\n", FIXED_DELAY))
    out = _review(repo, reader, gate=0.0)

    assert all(shas["revert"] not in s.evidence for s in _kind(out, "reintroduces-revert"))


def test_a_constraint_matched_by_the_code_and_the_message(retry_repo):
    repo, shas, reader = retry_repo
    variant = CLIENT_V5.replace("            time.sleep(backoff(attempt))\n",
                                "            delay = RETRY_DELAY\n            time.sleep(delay)\n")
    repo.write("src/client.py", variant)
    quiet = _kind(_review(repo, reader, gate=0.0), "constraint")
    head = repo.commit("Use a fixed delay between retries\n\nFixed delays make the tests predictable.\n")
    said = _kind(_review(repo, reader, head=head, gate=0.0), "constraint")
    assert said and shas["policy"] in said[0].evidence
    assert "Retries must never use a fixed delay" in said[0].body
    assert said[0].confidence > max((s.confidence for s in quiet), default=0.0)


def test_without_a_patch_reader_or_base_the_diff_level_checks_stay_silent(retry_repo):
    repo, _shas, reader = retry_repo
    repo.write("src/client.py", CLIENT_V5.replace("            time.sleep(backoff(attempt))\n", FIXED_DELAY))
    with open_repository(repo.root) as git:
        changes = diff_changes(git, "main")
    out = review(reader, repo.root, changes, lambda p: (repo.root / p).read_text(encoding="utf-8"))
    assert not _kind(out, "reintroduces-revert")


COUPLED_A = "def f(x):\n    return x + {n}\n"
COUPLED_B = "def g(x):\n    return x * {n}\n"


@pytest.fixture
def coupled_repo(make_repo, index_dir):
    """a.f and b.g changed together in six commits; CHANGES too, but it changes in every commit."""
    repo = make_repo("coupled")
    for n in range(1, 7):
        files = {"a.py": COUPLED_A.format(n=n), "b.py": COUPLED_B.format(n=n),
                 "CHANGES": f"{n}\n" * n}
        repo.commit(f"Tune f and g to {n}\n", files)
        for extra in range(3):
            repo.commit(f"Note {n}.{extra}\n", {"CHANGES": f"{n}.{extra}\n" * n, f"notes/{n}{extra}.md": "x\n"})
    run_index(repo.root, index_dir)
    repo.git("checkout", "-q", "-b", "feature")
    with IndexStore(index_dir).reader() as reader:
        yield repo, reader


def test_a_partner_that_always_changes_with_it_is_named_when_left_out(coupled_repo):
    repo, reader = coupled_repo
    repo.write("a.py", COUPLED_A.format(n=7))
    assert not _kind(_review(repo, reader), "co-change")  # calibrated under the default gate
    found = _kind(_review(repo, reader, gate=0.3), "co-change")
    assert len(found) == 1
    s = found[0]
    assert (s.path, s.line, s.symbol) == ("a.py", 2, "f")
    assert "`g` in `b.py`" in s.body and "6 of the last 6 commits" in s.body
    assert "CHANGES" not in s.body  # a hub: it changes with everything
    repo.write("b.py", COUPLED_B.format(n=7))
    assert not _kind(_review(repo, reader, gate=0.0), "co-change")


def test_a_comment_only_edit_needs_no_partner(coupled_repo):
    repo, reader = coupled_repo
    repo.write("a.py", COUPLED_A.format(n=6).replace("return", "# add n\n    return"))
    assert not _kind(_review(repo, reader, gate=0.0), "co-change")


def test_reformatting_and_rewording_are_not_reviewed(retry_repo):
    repo, _shas, reader = retry_repo
    reformatted = CLIENT_V5.replace(
        "            return session.get(url, timeout=10)\n",
        "            # one request per attempt\n            return session.get(\n"
        "                url,\n                timeout=10,\n            )\n").replace(
        "def fetch(session, url, retries=3):\n",
        'def fetch(session, url, retries=3):\n    """Get url, retrying with backoff."""\n')
    repo.write("src/client.py", reformatted)
    assert _review(repo, reader, gate=0.0) == []
    repo.write("src/client.py", reformatted.replace("timeout=10", "timeout=30"))
    assert _review(repo, reader, gate=0.0)  # a real change in the same place is reviewed


def test_deleting_again_a_file_a_revert_restored_is_caught_a_bigger_deletion_is_not(make_repo, index_dir):
    repo = make_repo("deleted")
    helpers = "".join(f"def helper_{i}(value):\n    return value * {i} + {i}\n\n\n" for i in range(12))
    legacy = "def legacy_parse(text):\n    return text.split(',')\n"
    repo.commit("Add helpers and the legacy parser\n", {"src/helpers.py": helpers, "src/legacy.py": legacy})
    gone = repo.commit("Drop the legacy parser\n", {"src/legacy.py": None})
    back = repo.commit(f'Revert "Drop the legacy parser"\n\nThis reverts commit {gone}.\n\n'
                       "Plugins still import legacy_parse.\n", {"src/legacy.py": legacy})
    trimmed = repo.commit("Drop helper 3\n", {"src/helpers.py": helpers.replace(
        "def helper_3(value):\n    return value * 3 + 3\n\n\n", "")})
    restored = repo.commit(f'Revert "Drop helper 3"\n\nThis reverts commit {trimmed}.\n\n'
                           "helper_3 is public API.\n", {"src/helpers.py": helpers})
    run_index(repo.root, index_dir)
    repo.git("checkout", "-q", "-b", "feature")
    repo.git("rm", "-q", "src/legacy.py")
    with IndexStore(index_dir).reader() as reader:
        found = _kind(_review(repo, reader), "reintroduces-revert")
        assert [s.evidence for s in found] == [(gone, back)]
        assert found[0].side == "LEFT" and "Plugins still import legacy_parse." in found[0].body
        repo.git("checkout", "-q", "HEAD", "--", "src/legacy.py")
        repo.git("rm", "-q", "src/helpers.py")  # deletes helper_3 too, but the file was not about it
        assert all(restored not in s.evidence for s in _review(repo, reader, gate=0.0))


def test_deleting_again_a_function_a_revert_restored(make_repo, index_dir):
    """The removed lines sit in a function the head no longer has: matched by the base outline."""
    repo = make_repo("function")
    handler = ("def register_error_handler(app, code, fn):\n    app.handlers[code] = fn\n"
               "    return fn\n\n\n")
    rest = "def route(app, path):\n    return app.rules.setdefault(path, [])\n"
    repo.commit("Add the app helpers\n", {"app.py": handler + rest})
    drop = repo.commit("Drop register_error_handler\n", {"app.py": rest})
    back = repo.commit(f'Revert "Drop register_error_handler"\n\nThis reverts commit {drop}.\n\n'
                       "Extensions register their handlers with it.\n", {"app.py": handler + rest})
    run_index(repo.root, index_dir)
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("app.py", rest)
    with IndexStore(index_dir).reader() as reader:
        found = _kind(_review(repo, reader), "reintroduces-revert")
    assert [(s.evidence, s.side, s.line, s.symbol) for s in found] == [
        ((drop, back), "LEFT", 1, "register_error_handler")]


def test_a_fact_naming_code_counts_only_when_the_added_code_names_it(retry_repo):
    _repo, shas, reader = retry_repo
    rule = "Never call session.get without a timeout: a silent server hangs fetch forever."
    fact = Unit(id="f-timeout", type="fact", title=rule, content=rule, weight=1.0, context=rule,
                commit=shas["timeout"], author="a", date="2024-01-01T00:00:00+00:00", symbols=("fetch",))
    fetch = Symbol("fetch", "function", 10, 17)

    def matched(added: str, message: str = "") -> list:
        ctx = ReviewContext(reader)
        constraints(ctx, ChangedSymbol("src/client.py", fetch, 12, "RIGHT", added), [fact], message)
        return ctx.out

    # the same words, but not the code the rule names: silent (the old rule spoke on three words)
    assert matched("            wait_forever = server_timeout(silent)") == []
    # the name in a comment or a docstring only: silent too
    assert matched('            # session.get must have a timeout\n'
                   '            """Calls session.get with a timeout."""\n'
                   "            wait_forever = server_timeout(silent)") == []
    said = matched("            return session.get(url)")
    assert [s.evidence[0] for s in said] == ["f-timeout"] and "session.get" in said[0].body


def test_a_change_gets_one_per_change_its_best():
    def rule(path, line, confidence, fact):
        return Suggestion(path=path, line=line, side="RIGHT", kind="constraint", body=fact,
                          confidence=confidence, evidence=(fact,))
    other = Suggestion(path="a.py", line=1, side="RIGHT", kind="rewrites-fix", body="b",
                       confidence=0.7, evidence=("sha",))
    found = [rule("a.py", 3, 0.6, "f1"), other, rule("b.py", 9, 0.75, "f2"), rule("a.py", 5, 0.75, "f3")]
    kept = _one_per_change(found)
    assert other in kept and [s.evidence for s in kept if s.kind == "constraint"] == [("f3",)]
    assert _one_per_change([other]) == [other]


def test_a_file_wide_anchor_carries_no_constraint_or_only_facts_naming_the_added_code(retry_repo, monkeypatch):
    _repo, shas, reader = retry_repo
    plain = "Retries must never use a fixed delay."
    named = "Never call session.get without a timeout: a silent server hangs forever."
    facts = [Unit(id=f"f-{i}", type="fact", title=t, content=t, weight=1.0, context=t, commit=shas["policy"],
                  author="a", date="2024-01-01T00:00:00+00:00", symbols=("fetch",))
             for i, t in enumerate((plain, named))]
    source = "var s = require('s');\nmodule.exports = function fetch(url) {\n" + "  x();\n" * 40 + "};\n"
    wrapper = Symbol("fetch", "function", 2, 43)  # module.exports = function fetch: "fetch"
    change = FileChange(path="lib/fetch.js", status="M", hunks=(Hunk(4, 1, 4, 1),))
    [where] = changed_symbols(change, source)
    assert where.wide and where.symbol is not None
    assert (where.symbol.name, where.symbol.start_line, where.symbol.end_line) == ("fetch", 2, 43)
    assert file_wide(Symbol("HelpersTest", "class", 3, 43), 43)  # a test class holding the file
    assert not file_wide(Symbol("fetch", "function", 2, 20), 43)  # one definition among others
    assert not file_wide(Symbol("fetch", "function", 1, 12), 12)  # a small file is about one thing

    def matched(added: str, wide: bool) -> list:
        ctx = ReviewContext(reader)
        constraints(ctx, ChangedSymbol("lib/fetch.js", wrapper, 4, "RIGHT", added, wide), facts, "")
        return ctx.out

    words = "  retry_delay = fixed_delay(retries);"
    code = "  return session.get(url);"
    assert [s.evidence[0] for s in matched(words, False)] == ["f-0"]  # three shared words
    [narrow] = matched(code, False)
    assert narrow.evidence[0] == "f-1"
    assert review_constraints.WIDE_SHIFT is None  # as calibrated: the file's rules are not the code's
    assert matched(words, True) == matched(code, True) == []
    monkeypatch.setattr(review_constraints, "WIDE_SHIFT", -0.1)  # a shift instead: named code only
    assert matched(words, True) == []  # a rule about the whole file, in words only: silent
    [wide] = matched(code, True)
    assert wide.evidence[0] == "f-1" and wide.confidence == pytest.approx(narrow.confidence - 0.1)
