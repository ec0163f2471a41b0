"""knowledge: commit prose → typed knowledge units (Fact / Skill / Pattern).

Pure Python (no git, tree-sitter or Whoosh). Public API:
- ``clean.clean_prose(text) -> str``
- ``extract.extract_units(commit, files=(), symbols=()) -> list[Unit]``
- ``ids.unit_id(type, content) -> str``
The rules are data: ``heuristics.HEURISTICS`` (typed rows with priors) and ``heuristics.VETOES``;
``subjects`` (housekeeping, the subject fallback), ``substance`` (the substantive filter),
``sentences`` (splitting). Measured by bench/bench_units.py against bench/labels/.
"""
