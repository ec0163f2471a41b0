"""Histories built in code with known answers, anchored commit by commit (newest first)."""

from __future__ import annotations

from whylens.symbols.anchor import Anchorer

from .gitcommits import blob_reader, commit_of, events_by_commit, events_of_walk, walked

V1 = '''\
def f(x):
    total = x + 1
    return total


def g():
    return "g"
'''
V2 = V1.replace("x + 1", "x + 2")  # f's body
V3 = V2.replace("    total = x + 2", "    # add two\n    total = x+2")  # comment + spacing only
V4 = V3.replace("def f(x):", "def f(x, y=0):")  # f's signature
V5_G = V4.replace('return "g"', 'return "G"')  # renamed file, g changed


def test_f_changes_in_2_and_4_not_in_the_formatting_commit_and_survives_a_rename(make_repo):
    repo = make_repo()
    c1 = repo.commit("add f and g", {"app.py": V1})
    c2 = repo.commit("f adds two", {"app.py": V2})
    c3 = repo.commit("comment and spacing", {"app.py": V3})
    c4 = repo.commit("f takes y", {"app.py": V4})
    repo.mv("app.py", "core.py")
    c5 = repo.commit("rename app.py to core.py", {"core.py": V5_G})
    repo.mv("core.py", "main.py")
    c6 = repo.commit("pure rename")
    anchorer = Anchorer(blob_reader(repo))
    events = events_by_commit(repo, anchorer)
    assert events[c1] == [("f", "added", None), ("g", "added", None)]
    assert events[c2] == [("f", "body", None)]
    assert events[c3] == []
    assert events[c4] == [("f", "signature", None)]
    assert events[c5] == [("g", "body", None)]  # f is not re-added: its history continues
    assert events[c6] == []
    f_history = [sha for sha, evs in events.items() if any(e[0] == "f" for e in evs)]
    assert sorted(f_history) == sorted([c1, c2, c4])
    renamed = anchorer.events(commit_of(repo, c5))
    assert {e.path for e in renamed} == {"core.py"}
    assert anchorer.stats["cache_hits"] > 0
    assert anchorer.stats["incremental"] > 0


def test_python_indentation_change_is_substantive(make_repo):
    repo = make_repo()
    before = "def f(a):\n    if a:\n        g()\n    h()\n"
    repo.commit("one", {"m.py": before})
    c2 = repo.commit("h inside the if", {"m.py": before.replace("    h()", "        h()")})
    assert events_by_commit(repo, Anchorer(blob_reader(repo)))[c2] == [("f", "body", None)]


METHODS = '''\
class A:
    def keep(self):
        return 1

    def h(self):
        value = compute(1, 2, 3)
        return value


class B:
    def other(self):
        return 2
'''
MOVED = '''\
class A:
    def keep(self):
        return 1


class B:
    def other(self):
        return 2

    def h(self):
        value = compute(1, 2, 3)
        return value
'''


def test_a_method_moved_between_classes_is_moved_not_added(make_repo):
    repo = make_repo()
    repo.commit("classes", {"c.py": METHODS})
    c2 = repo.commit("move h to B", {"c.py": MOVED})
    events = events_by_commit(repo, Anchorer(blob_reader(repo)))
    assert events[c2] == [("B.h", "moved", "c.py::A.h")]


def test_a_function_moved_to_another_file_and_a_renamed_function(make_repo):
    repo = make_repo()
    body = "    data = load(path)\n    return parse(data)\n"
    repo.commit("start", {"a.py": f"def read(path):\n{body}\n\ndef stay():\n    return 0\n",
                          "b.py": "X = 1\n"})
    c2 = repo.commit("move read to b.py", {
        "a.py": "def stay():\n    return 0\n",
        "b.py": f"X = 1\n\n\ndef read(path):\n{body}"})
    c3 = repo.commit("rename read to load_file", {"b.py": f"X = 1\n\n\ndef load_file(path):\n{body}"})
    events = events_by_commit(repo, Anchorer(blob_reader(repo)))
    assert events[c2] == [("read", "moved", "a.py::read")]
    assert events[c3] == [("load_file", "renamed", "read")]


def test_a_function_moved_to_another_file_and_changed_on_the_way_is_moved(make_repo):
    repo = make_repo()
    repo.commit("one module", {"app.py": "def route(rule):\n    return rule.strip()\n\n\n"
                                         "def run(port):\n    return serve(port)\n"})
    c2 = repo.commit("split into a package", {
        "app.py": None,
        "pkg/routing.py": "def route(rule, methods=None):\n    methods = methods or ['GET']\n"
                          "    return rule.strip(), methods\n",
        "pkg/server.py": "def run(port, host='::'):\n    return serve(port, host=host)\n"})
    events = events_by_commit(repo, Anchorer(blob_reader(repo)))
    assert sorted(events[c2]) == [("route", "moved", "app.py::route"),
                                  ("run", "moved", "app.py::run")]


def test_renamed_class_carries_its_untouched_methods(make_repo):
    repo = make_repo()
    source = "class Old:\n    def run(self):\n        return self.x * 2\n\n    x = 21\n"
    repo.commit("one", {"k.py": source})
    c2 = repo.commit("rename the class", {"k.py": source.replace("class Old", "class New")})
    events = events_by_commit(repo, Anchorer(blob_reader(repo)))
    assert events[c2] == [("New", "renamed", "Old"), ("New.run", "renamed", "Old.run")]


def test_added_and_deleted_functions_and_innermost_rule(make_repo):
    repo = make_repo()
    base = "class S:\n    def a(self):\n        return 1\n"
    repo.commit("one", {"s.py": base})
    c2 = repo.commit("add b", {"s.py": base + "\n    def b(self):\n        return 2\n"})
    c3 = repo.commit("delete a", {"s.py": "class S:\n\n    def b(self):\n        return 2\n"})
    c4 = repo.commit("class attribute", {"s.py": "class S:\n    limit = 3\n\n    def b(self):\n"
                                                 "        return 2\n"})
    events = events_by_commit(repo, Anchorer(blob_reader(repo)))
    # innermost only: adding or deleting a method is not a body change of its class
    assert events[c2] == [("S.b", "added", None)]
    assert events[c3] == [("S.a", "deleted", None)]
    assert events[c4] == [("S", "body", None)]  # the class's own text changed


def test_deleted_file_and_skipped_files_are_counted(make_repo):
    repo = make_repo()
    repo.commit("one", {"gone.py": "def old():\n    return 1\n", "README.md": "# hi\n",
                        "vendor/lib.py": "def v():\n    pass\n", "yarn.lock": "x\n",
                        ".gitattributes": "gen/** linguist-generated\n",
                        "gen/out.py": "def gen():\n    pass\n"})
    c2 = repo.commit("drop it", {"gone.py": None})
    attributes = [("gen/**", {"linguist-generated": True})]
    anchorer = Anchorer(blob_reader(repo), attributes)
    events = events_by_commit(repo, anchorer)
    assert events[c2] == [("old", "deleted", None)]
    skipped = anchorer.stats["files_skipped"]
    assert skipped == {"unsupported": 2, "vendored": 1, "lock_file": 1, "generated": 1}


def test_other_languages_anchor_too(make_repo):
    repo = make_repo()
    go = "package s\n\ntype Server struct{}\n\nfunc (s *Server) Serve() error {\n\treturn nil\n}\n"
    repo.commit("go", {"s.go": go})
    c2 = repo.commit("serve changes", {"s.go": go.replace("return nil", "return errClosed")})
    rust = "struct Bar;\n\nimpl Display for Bar {\n    fn fmt(&self) -> u8 { 1 }\n}\n"
    repo.commit("rust", {"b.rs": rust})
    c4 = repo.commit("fmt changes", {"b.rs": rust.replace("{ 1 }", "{ 2 }")})
    kotlin = ("class RealCall {\n  fun execute(): Response {\n    return chain()\n  }\n\n"
              "  fun cancel() {\n    canceled = true\n  }\n}\n")
    repo.commit("kotlin", {"RealCall.kt": kotlin})
    c6 = repo.commit("execute changes", {"RealCall.kt": kotlin.replace("chain()", "chain(true)")})
    c7 = repo.commit("cancel signature", {"RealCall.kt": kotlin.replace(
        "chain()", "chain(true)").replace("fun cancel()", "fun cancel(reason: String)")})
    events = events_by_commit(repo, Anchorer(blob_reader(repo)))
    assert events[c2] == [("(*Server).Serve", "body", None)]
    assert events[c4] == [("Bar.fmt", "body", None)]
    assert events[c6] == [("RealCall.execute", "body", None)]
    assert events[c7] == [("RealCall.cancel", "signature", None)]


def test_binary_garbage_and_unreadable_blobs_never_raise(make_repo):
    repo = make_repo()
    repo.commit("one", {"a.py": b"\xff\xfe garbage (((\n", "b.py": b"def f(:\n  ]]]\n",
                        "c.py": b"\x00\x01binary"})
    c2 = repo.commit("two", {"a.py": b"def ok():\n    pass\n", "b.py": b"def f():\n  pass\n",
                             "c.py": b"\x00\x02binary"})
    anchorer = Anchorer(lambda sha: None)  # blobs missing from the object store
    assert anchorer.events(commit_of(repo, c2)) == []
    anchorer = Anchorer(blob_reader(repo))
    events = events_by_commit(repo, anchorer)
    assert ("ok", "added", None) in events[c2]
    assert anchorer.stats["files_skipped"] == {"binary": 2}


def test_without_hunks_every_definition_is_compared(make_repo):
    from dataclasses import replace

    repo = make_repo()
    repo.commit("one", {"a.py": V1})
    c2 = repo.commit("two", {"a.py": V2})
    commit = commit_of(repo, c2)
    bare = replace(commit, changes=tuple(replace(c, hunks=()) for c in commit.changes))
    events = Anchorer(blob_reader(repo)).events(bare)
    assert [(e.symbol, e.kind) for e in events] == [("f", "body")]


def test_cache_is_bounded(make_repo):
    repo = make_repo()
    for n in range(6):
        repo.commit(f"c{n}", {"a.py": f"def f():\n    return {n}\n"})
    anchorer = Anchorer(blob_reader(repo), cache_entries=2)
    events_by_commit(repo, anchorer)
    assert len(anchorer._outlines) <= 2


def test_a_restored_anchorer_counts_its_parses_in_its_own_stats(make_repo):
    repo = make_repo()
    shas = [repo.commit(f"name it {name}", {"a.py": f"def {name}():\n    return 1\n"})
            for name in ("f", "g", "h")]
    first = Anchorer(blob_reader(repo))
    first.events(commit_of(repo, shas[2]))  # a rename: both versions parsed
    parsed = first.stats["parsed"]
    second = Anchorer(blob_reader(repo))
    second.restore(first.checkpoint())
    second.events(commit_of(repo, shas[1]))  # another rename: the older version is parsed
    assert second.stats["parsed"] > parsed


def test_events_do_not_depend_on_walk_order_or_cache_size(make_repo):
    repo = make_repo()
    repo.commit("one", {"a.py": V1, "c.py": METHODS})
    repo.commit("two", {"a.py": V2, "c.py": MOVED})
    repo.commit("three", {"a.py": V3})
    repo.commit("four", {"a.py": V4, "c.py": MOVED.replace("return 2", "return 22")})
    repo.mv("a.py", "b.py")
    repo.commit("five", {"b.py": V5_G})
    newest_first = events_by_commit(repo, Anchorer(blob_reader(repo)))
    oldest_first = {sha: sorted((e.symbol, e.kind, e.previous) for e in
                                Anchorer(blob_reader(repo), cache_entries=1).events(
                                    commit_of(repo, sha)))
                    for sha in repo.shas}
    assert newest_first == oldest_first
    assert sum(len(v) for v in newest_first.values()) >= 8


def test_carried_states_parse_each_file_once(make_repo):
    # files changed in turn, newest first: with the patch text, each file is parsed once (its
    # newest version) and every older version's definitions are carried through the hunks
    repo = make_repo()
    names = ("a.py", "b.py", "c.py")
    repo.commit("start", {name: f"def {name[0]}():\n    return 0\n" for name in names})
    for round_ in range(1, 4):
        for name in names:
            repo.commit(f"{name} {round_}", {name: f"def {name[0]}():\n    return {round_}\n"})
    anchorer = Anchorer(blob_reader(repo), cache_entries=4)
    carried = events_of_walk(walked(repo), anchorer)
    assert anchorer.stats["parsed"] == len(names)
    assert anchorer.stats["carried"] == 3 * len(names)
    assert carried == events_by_commit(repo, Anchorer(blob_reader(repo)))
