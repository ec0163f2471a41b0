"""The anchor worker's state file at a segment cut (issue 14: one pickle of it kept a memo of
every object written and read, +29-57 MB of the worker's RSS at each cut, and 145 MB instead of
105 after reading it back at commit 34,000 of the 100k history): written in chunks, read back
the same, file states in their order."""

from __future__ import annotations

import tracemalloc
from collections import OrderedDict

from whylens.pipeline.anchoring import _Both
from whylens.symbols.tracking import FileState, Span

STATES = 20_000


def _states() -> OrderedDict:
    states: OrderedDict = OrderedDict()
    for n in range(STATES):
        spans = [Span(f"mod{n}.Class{k}.method", "method", 10 * k + 1, 10 * k + 9, 10 * k + 1,
                      10 * k + 1, 4, -1) for k in range(3)]
        states[f"{n:040x}"] = FileState("python", spans) if n % 9 else "binary"
    return states


def _both() -> _Both:
    return _Both(lambda sha: None, (), {"src/a.py": "0" * 40}, None)


def test_a_worker_state_is_written_in_chunks_and_read_back_the_same(tmp_path):
    both = _both()
    both.anchorer._states = _states()
    both.anchorer._path_states = {"src/a.py": f"{1:040x}"}
    path = str(tmp_path / "state.pickle")
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        both.save(path)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000, f"writing the state took {peak} bytes"  # one pickle: 30 MB

    again = _Both(lambda sha: None, (), {"src/a.py": "0" * 40}, None, state_file=path)
    restored, written = again.anchorer._states, both.anchorer._states
    assert type(restored) is OrderedDict and list(restored) == list(written)
    assert all(type(a) is type(b) and (a == b if isinstance(a, str) else
                                       (a.language, a.spans) == (b.language, b.spans))
               for a, b in zip(restored.values(), written.values()))
    assert again.anchorer._path_states == both.anchorer._path_states
    assert again.anchorer.checkpoint().keys() == both.anchorer.checkpoint().keys()
