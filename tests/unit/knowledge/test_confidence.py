"""The card gate: what is never shown, what raises or lowers confidence, and units anchored only
to the symbols they explain (on a real indexed repository)."""

from __future__ import annotations

import pytest

from whylens.index.store import IndexStore
from whylens.knowledge.confidence import (
    GATE, WIDE_SYMBOLS, confidence, evidence, names_symbol, never_shown, shown,
)
from whylens.pipeline import run_index

WHY = ("Connections must be checked before reuse, because the server closes idle sockets after "
       "thirty seconds and a request on a closed socket fails with a reset.")


@pytest.mark.parametrize("text, symbol, expected", [
    ("Session.send must carry a timeout", "Session.send", True),
    ("call send() with a timeout", "Session.send", True),
    ("the cert_verify check runs first", "HTTPAdapter.cert_verify", True),
    ("we send a timeout", "Session.send", False),  # "send" as a word, not the symbol
    ("match the route", "Router.match", False),
    ("getURLQuery keeps the raw query", "Context.getURLQuery", True),
    ("req.accepts reads the Accept header", "req.accepts", True),
    ("do not call super in Response#finish", "Sinatra.Response.finish", True),  # Ruby's #
    ("", "", False),
])
def test_names_symbol(text, symbol, expected):
    assert names_symbol(text, symbol) is expected


def test_what_a_card_never_shows():
    def item(**kw):
        base = dict(text=WHY, field="constraint", knowledge=0.9, symbol="Pool.get", change="body",
                    commit_symbols=("Pool.get",))
        base.update(kw)
        text, field, knowledge, symbol, change, symbols = (base.pop(k) for k in (
            "text", "field", "knowledge", "symbol", "change", "commit_symbols"))
        return evidence(text, field, knowledge, symbol, change, symbols, **base)

    assert shown(item())
    assert never_shown(item(title=True)) and confidence(item(title=True)) == 0.0
    assert never_shown(item(change=None))  # its commit did not change the symbol
    assert never_shown(item(text="However, " + WHY))  # continues a sentence that is not there
    # the description of work that changed other symbols too speaks for this one only by name
    both = ("Pool.get", "Pool.put")
    assert never_shown(item(whole_work=True, commit_symbols=both))
    assert not never_shown(item(whole_work=True, commit_symbols=both, text="Pool.get: " + WHY))
    assert not never_shown(item(whole_work=True))  # work that changed this symbol alone
    # a sentence headed by another symbol of its commit is about that one
    headed = "Pool.put: " + WHY
    assert never_shown(item(text=headed, commit_symbols=both))
    assert not never_shown(item(text="Pool.get: " + WHY, commit_symbols=both))
    assert not never_shown(item(text="BZMPOP: " + WHY, commit_symbols=both))  # names no symbol
    # one that names only another symbol of its commit is that symbol's story ...
    assert never_shown(item(text=WHY + " Pool.put() must not wait.", commit_symbols=both))
    assert not never_shown(item(text=WHY + " Pool.put() and Pool.get() must not wait.",
                                commit_symbols=both))
    assert not never_shown(item(text=WHY + " Pool.put() must not wait."))  # not of its commit
    # ... but not when that symbol holds this one, or this one holds it
    held = ("Pool.get", "Pool")
    assert not never_shown(item(text=WHY + " The Pool type must not wait.", commit_symbols=held))
    assert not never_shown(item(text=WHY + " Pool.get.inner() must not wait.", symbol="Pool.get",
                                commit_symbols=("Pool.get", "Pool.get.inner")))
    assert not never_shown(item(text=WHY + " The routeRegexp keeps a bool.",
                                symbol="(*routeRegexp).Match",
                                commit_symbols=("(*routeRegexp).Match", "routeRegexp")))
    wide = tuple(f"f{i}" for i in range(WIDE_SYMBOLS + 1)) + ("Pool.get",)
    assert never_shown(item(commit_symbols=wide))
    assert not never_shown(item(commit_symbols=wide, text=WHY.replace("Connections", "Pool.get()")))


@pytest.mark.parametrize("text, hidden", [
    # lost its start (no subject; a subordinate clause with no main clause) or is an aside
    ("was released on 2022-06-25 with the removal of Python 3.6 support, which aligns with our "
     "requirement.", True),
    ("since the names may change in the near future due to inconsistencies", True),
    ("when set -o nounset in Bash, the warnings of unbound variables will break the bash "
     "completion.", False),
    ("Not that it would matter much, but this change makes the short circuit twice as fast.", True),
    # a plan, not the code as it is
    ("We should go over the pool's locking again at some point, because the server closes idle "
     "sockets.", True),
    # pasted code, not prose
    ("{{if .HasSubCommands}} Additional help topics: {{range .Commands}} {{rpad .CommandPath "
     ".Padding}} {{end}}{{end}}", True),
    ("The ${variable:-} substitution in Bash assigns an empty string as default for unbound "
     "variables.", False),
    # a proposal or a wish, not the code as it is
    ("Let's also make it nil-able to indicate that a default Content-Type should never be "
     "applied.", True),
    ("We should add a new metric showing the number of pool connections, which helps "
     "monitoring.", True),
    ("This lets callers pass a timeout tuple, because the pool needs separate connect and read "
     "timeouts.", False),
    # the state before the change, not the code as it is
    ("Today, the loop is printing the completions one value per line and then reading one line "
     "to a variable.", True),
    ("The code recognized that --boolFlag followed by a space meant the next word was not its "
     "argument.", True),
    ("The current code follows the browser convention of changing the method to a GET on a 302 "
     "redirect.", False),
    # release housekeeping; a point torn from its numbered list; a connective with nothing before
    ("Update the changelog with the pool fix, because the release is due on Monday.", True),
    ("2- ActiveHelp is printed on the second [tab] press, above the completion choices.", True),
    ("Besides, the pool is closed twice when the server drops the connection during a retry.",
     True),
    # names a test, speaks of CI, says the change is safe
    ("Make TestMethodsSubrouter stateless, because the pool is shared between the subtests.",
     True),
    ("Show error details during the pool setup in CI, because the runner hides them.", True),
    ("The default value is True, which means the default behavior is unchanged.", True),
    ("The Testing flag must be set before the pool starts, because workers read it once.", False),
    # about the tests, not the code
    ("This is not done in the test cases, which means that they fail when run on a system that "
     "is behind a proxy.", True),
    # points at a sentence or change not shown
    ("The change above makes sure that the default_content_type option is always deleted from "
     "the options.", True),
    ("With this patch, it will not raise an error if the pool is empty, because callers retry.",
     True),
    ("That is, ** always had to be surrounded by a path separator or the end of the pattern.",
     True),
    ("It also avoids the performance penalty of parsing the number eagerly as a big decimal.",
     True),
    ("We can do that because the option has no effect in single-line mode.", True),
    ("This must be a hash and is merged with the options passed to the render method.", True),
    ("This prevents pass_block from being overwritten with nil when the superclass has routes.",
     False),
    ("That way, we only ever pass an absolute path to CreateProcess, which avoids searching the "
     "current directory.", False),
    # a pasted diagram, pasted tool output, review housekeeping
    ("This is caused by assigning work to ┃ T1 ┃ T2 ┃ T3 ┃ per-thread stacks "
     "in a round-robin manner → bottom-up", True),
    ("NameError: uninitialized constant HelpersTest::JSON raised when the pool starts", True),
    ("error: proc-macro derive panicked --> tests/test_annotations.rs:2386:25", True),
    ("self.content could be None, so len(self.content) may raise TypeError: object of type "
     "'NoneType' has no len()", False),
    ("Addresses comments in r481 (except for the interface change).", True),
    ("Apply suggestions from code review", True),
    # two commit subjects run together; a regression test's setup
    ("Add tests for regexp variables in query strings Fix how the regular expression gets built "
     "for query strings", True),
    ("The issue is that the usage line does not use the command path but the raw Use string.",
     False),
    ("One demonstrating the correct behaviour for bytes, and another, failing, test for the case "
     "where data is a string.", True),
    ("Add a regression test for the pool being closed twice when the server drops a connection.",
     True),
    # the author's own story, chit-chat, a comment (issue 13, round 12)
    ("The issue was that I got a bit overzealous with partial error reporting.", True),
    ("At least on my Linux system, read never fills the buffer with more than 64K.", True),
    ("My guess is that the pool is closed twice.", True),
    ("Background I/O threads must be stopped before the memory test runs on a crash.", False),
    ("the cookie module we depend on never used to set this value, however now it does:)", True),
    ("We use it everywhere instead of half kinda sorta doing it in other places.", True),
    ("Mux doesn't build on Go < 1.7 so the comment doesn't really need to clarify anymore.", True),
    ("Comments in the config file must start with a hash, since the parser drops them.", False),
    ("The mapping must be (key: value) pairs; a list of keys is rejected.", False),
    # what the change does, told like a commit subject with no reason; a guess (round 27)
    ("Add a setting \"subdomain offset\" for the app, which can be used to change req.subdomains.",
     True),
    ("Let the status helper accept symbols, by looking up the numeric code in Rack::Utils", True),
    ("The change introduces strings.Builder and replaces SplitN with Index.", True),
    ("Resolved the issue by recreating the factory for each call instead of reusing it.", False),
    ("Resolved the issue by recreating the factory for each call.", True),
    ("Use the pool's own lock, because the server thread closes sockets it does not own.", False),
    ("Users of the pool must add a timeout when the server closes idle sockets.", False),
    ("Ideally we'd have a compact impl for GlobSet too, but that's a lot more work.", True),
    ("Prior complexity may have been due to encoding issues, but this doesn't seem to matter.",
     True),
    ("On some Android phones an older version is probably bundled in and picked up first.", True),
    ("self.content could be None, so the pool may raise a TypeError on close.", False),
])
def test_a_sentence_that_explains_nothing_alone_is_never_shown(text, hidden):
    item = evidence(text, "constraint", 0.9, "Pool.get", "body", ("Pool.get",))
    assert never_shown(item) is hidden


def test_a_fix_may_say_what_to_do_like_a_commit_subject():
    text = "Use ${variable:-} substitution in Bash, that assigns an empty string as default."
    assert not never_shown(evidence(text, "fix", 0.9, "Pool.get", "body", ("Pool.get",)))
    assert never_shown(evidence(text, "constraint", 0.9, "Pool.get", "body", ("Pool.get",)))
    assert never_shown(evidence(text, "decision", 0.9, "Pool.get", "body", ("Pool.get",)))


def test_a_decision_may_say_what_the_change_will_do():
    text = "This will check if the items in the list are callable before registering them."
    assert not never_shown(evidence(text, "decision", 0.9, "Pool.get", "body", ("Pool.get",)))
    assert never_shown(evidence(text, "constraint", 0.9, "Pool.get", "body", ("Pool.get",)))


def test_confidence_rises_with_what_the_sentence_says():
    def conf(text=WHY, knowledge=0.9, field="constraint", change="body"):
        return confidence(evidence(text, field, knowledge, "Pool.get", change, ("Pool.get",)))

    assert conf(knowledge=0.9) > conf(knowledge=0.2)
    assert conf() > conf(text="Add a pool option")  # short, says what was done
    assert conf(change="body") > conf(change="added")  # the commit that created the symbol
    assert conf(text="This commit " + WHY[0].lower() + WHY[1:]) < conf()
    assert GATE < conf()


POOL = "".join(f"def price_{i}(x):\n    return x + {i}\n\n" for i in range(WIDE_SYMBOLS + 2))


def test_a_wide_commit_anchors_a_sentence_only_to_the_symbol_it_names(make_repo, tmp_path):
    repo = make_repo()
    repo.commit("Add helpers", {"src/helpers.py": POOL})
    changed = POOL.replace("return x + ", "return x * ")
    repo.commit("Multiply in every helper\n\nprice_3 must multiply, because callers pass a scale factor "
                "and adding it corrupted every price computed from the helpers.",
                {"src/helpers.py": changed})
    run_index(repo.root, tmp_path / "index")
    with IndexStore(tmp_path / "index").reader() as reader:
        named = reader.units_for_symbol("price_3", path="src/helpers.py")
        other = reader.units_for_symbol("price_5", path="src/helpers.py")
    assert any("scale factor" in u.content for u in named)
    assert not any("scale factor" in u.content for u in other)


@pytest.mark.parametrize("name", ["send", "Session.send", "x", "größe", "a$b", "_p"])
@pytest.mark.parametrize("text", [
    "send", "resend the send", "Session.send()", "call send(x)", "$send", "send$", "send_x",
    "größe ist groß", "xgröße", "a$b a$bc", "call _p(1) and p", "1send 2", "send1", "é send é",
])
def test_word_in_agrees_with_the_patterns_it_replaced(text, name):
    import re

    from whylens.knowledge.confidence import _word_in

    escaped = re.escape(name)
    assert _word_in(name, text) is bool(re.search(rf"(?<![\w$]){escaped}(?![\w$])", text))
    assert _word_in(name, text, then="(") is bool(re.search(rf"(?<![\w$]){escaped}\(", text))


def test_the_authors_own_story_is_anchored_to_no_symbol(make_repo, tmp_path):
    repo = make_repo()
    repo.commit("Add pool", {"src/pool.py": "def get(pool):\n    return pool.pop()\n"})
    repo.commit("Take the pool lock in get\n\nAt least on my machine, get returns a closed "
                "connection when the server drops it, because pop does not check the socket.\n\n"
                "Two threads took the same connection because pop is not atomic, so get must "
                "hold the pool lock while it pops.",
                {"src/pool.py": "def get(pool):\n    with pool.lock:\n        return pool.pop()\n"})
    run_index(repo.root, tmp_path / "index")
    with IndexStore(tmp_path / "index").reader() as reader:
        anchored = [u.content for u in reader.units_for_symbol("get", path="src/pool.py")]
        mined = [u.content for u in reader.iter_units()]
    assert any("not atomic" in c for c in anchored)
    assert not any("my machine" in c for c in anchored)
    assert any("my machine" in c for c in mined)  # a unit of its commit, on no card
