#!/usr/bin/env bash
# Installs everything the tests need from the project's own files, then runs every check: the
# type checker and linter (a broken typed contract fails here), Python unit + end-to-end (pytest,
# real git repos, the real server over stdio), the headless Neovim check, the client's node:test
# suite, the .vsix build check, and the real-VS-Code test.
# Usage: bash tests/run.sh            (from the repository root; root or sudo for apt packages)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

step() { printf '\n==> %s\n' "$*"; }

need_apt=()
command -v git >/dev/null || need_apt+=(git)
command -v nvim >/dev/null || need_apt+=(neovim)
command -v chromium >/dev/null || need_apt+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  step "apt-get install ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

step "python: install whylens with its test dependencies"
python3 -m pip install -q --disable-pip-version-check -e ".[test]"

step "python: type check (mypy, configured in pyproject.toml) and lint (ruff)"
python3 -m mypy
python3 -m ruff check server tests bench

step "python: unit and end-to-end tests"
python3 -m pytest -q -p no:cacheprovider

if [ -f package.json ]; then
  step "client: npm ci, build, node:test"
  npm ci --no-audit --no-fund --loglevel=error
  npm run --silent build
  npm test
  step "client: package the .vsix and check what it contains"
  npm run --silent package
  if [ -f tests/vscode/run.sh ]; then
    step "client: real VS Code (code-server + headless Chromium)"
    bash tests/vscode/run.sh
  fi
fi
step "all tests passed"
