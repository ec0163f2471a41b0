"""A real editor client: headless Neovim's built-in LSP client starts `whylens serve`, opens a file
and asks for a hover; the why-card text must come back."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "e2e"))

from e2e_history import build  # noqa: E402

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("nvim") is None,
                       reason="nvim is not installed (apt-get install neovim)"),
]


def test_neovim_hover_shows_the_why_card(make_repo, tmp_path):
    repo = make_repo("project")
    build(repo)
    source = repo.root / "src" / "session.py"
    lines = source.read_text().splitlines()
    line = next(i for i, text in enumerate(lines) if "def send(" in text)
    out = tmp_path / "hover.out"
    env = {
        **os.environ,
        "WHYLENS_PYTHON": sys.executable,
        "WHYLENS_REPO": str(repo.root),
        "WHYLENS_INDEX": str(tmp_path / "index"),
        "WHYLENS_FILE": str(source),
        "WHYLENS_LINE": str(line),
        "WHYLENS_COL": str(lines[line].index("send") + 1),
        "WHYLENS_OUT": str(out),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),  # no user config, no plugins
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    proc = subprocess.run(
        ["nvim", "--headless", "-u", "NONE", "-i", "NONE", "-n",
         "-c", f"luafile {HERE / 'hover.lua'}"],
        env=env, cwd=repo.root, capture_output=True, timeout=180,
    )
    report = out.read_text() if out.exists() else ""
    assert report.startswith("OK\n"), (
        f"nvim exit {proc.returncode}\n{report}\n{proc.stderr.decode(errors='replace')[-2000:]}")
    card = report[3:]
    assert "Session.send" in card
    assert "deadlock" in card.lower() or "TimeoutError" in card
