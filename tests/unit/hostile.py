"""A history written by an attacker, and the check that WhyLens shows it as text.

Commit subjects, bodies and author names carry markdown images (tracking pixels), links to
``command:`` URIs, autolinks, raw HTML, entities and line-start markup. ``inert_problems`` renders
markdown with a real CommonMark renderer (markdown-it-py, GFM tables and linkify on, HTML allowed,
as in VS Code's preview) and lists what is not inert: an image, raw HTML, a heading or list that
history text started, or a link to anything but the WhyLens-built pages under ``allowed``.
"""

from __future__ import annotations

from markdown_it import MarkdownIt

PIXEL = "https://tracker.example.com/pixel.png"
PAYLOADS = [
    f"![]({PIXEL})",
    "[click](command:workbench.action.terminal.new)",
    "<command:workbench.action.openSettings>",
    "<https://evil.example.com/autolink>",
    "see https://evil.example.com/bare and www.evil.example.com, mail x@evil.example.com",
    f'<img src="{PIXEL}"> <b onclick="x()">bold</b> <!-- hidden -->',
    "&lt;script&gt; &#x3C;img&#x3E;",
    f"[ref]: {PIXEL}",
    "![alt][ref] | a | table | cell |",
    "`code` **strong** _em_ ~~gone~~ $x^2$",
]
SUBJECT = f"Fix pool_timeout: conn.wait(timeout) ![]({PIXEL}) <img src={PIXEL}> [x](command:evil)"
AUTHOR = "Mallory [x](command:evil) ![](https://tracker.example.com/a.png) <mallory@evil.example.com>"

POOL_V1 = '''\
def pool_timeout(conn):
    return conn.wait()
'''
POOL_V2 = '''\
def pool_timeout(conn):
    return conn.wait(timeout=5)
'''


def hostile_body() -> str:
    lines = ["The pool hangs forever when the server dies because pool_timeout waits without a "
             "timeout."]
    lines += [f"Fixed by passing a timeout {p}." for p in PAYLOADS]
    lines += ["# Heading from the body", "- list item from the body", "1. numbered", "> quoted",
              "Never call pool_timeout without a timeout: it must always pass one."]
    return "\n".join(lines)


def build_hostile_history(repo) -> dict[str, str]:
    """Commits on ``src/pool.py``: the hostile one, then its revert (so reviews quote its
    subject). Returns name → sha."""
    shas = {"add": repo.commit("Add pool_timeout", {"src/pool.py": POOL_V1})}
    shas["fix"] = repo.commit(f"{SUBJECT}\n\n{hostile_body()}\n", {"src/pool.py": POOL_V2},
                              author=AUTHOR)
    shas["revert"] = repo.commit(f'Revert "{SUBJECT}"\n\nThis reverts commit {shas["fix"]}.\n',
                                 {"src/pool.py": POOL_V1})
    return shas


_RENDERER = MarkdownIt("gfm-like", {"linkify": True, "html": True})


def inert_problems(markdown: str, allowed: tuple[str, ...] = ()) -> list[str]:
    """What in ``markdown`` is not inert text (empty when all is well); see the module doc."""
    problems = []
    blocks: list[str] = []  # the open block containers (heading, list, quote) around a token
    markers = {"Heading from the body": "heading", "list item from the body": "bullet_list",
               "numbered": "ordered_list", "quoted": "blockquote"}

    def visit(tokens) -> None:
        for token in tokens:
            if token.type.endswith("_open") and token.nesting == 1 and token.block:
                blocks.append(token.type[:-5])
            elif token.type.endswith("_close") and token.nesting == -1 and token.block:
                blocks.pop()
            if token.type == "image":
                problems.append(f"image {token.attrGet('src')}")
            elif token.type in ("html_inline", "html_block"):
                problems.append(f"raw HTML {token.content!r}")
            elif token.type == "link_open":
                href = str(token.attrGet("href") or "")
                if not any(href.startswith(prefix) for prefix in allowed):
                    problems.append(f"link {href}")
            elif token.type == "inline":
                for marker, block in markers.items():
                    if marker in token.content and token.content.lstrip("\\").startswith(
                            marker) and block in blocks:
                        problems.append(f"history text became a {block}: {marker!r}")
            if token.children:
                visit(token.children)

    visit(_RENDERER.parse(markdown))
    rendered = _RENDERER.render(markdown)
    if "<img" in rendered or 'href="command:' in rendered:
        problems.append("an image or a command: link in the HTML")
    return problems


MARKER_SCRIPT = """#!/bin/sh
echo "$0 $*" >> "{marker}"
cat
"""


def arm_repository_programs(repo, marker) -> None:
    """Point every program setting of ``repo``'s own .git/config at a script that appends to
    ``marker``: clean/smudge/process filters (one set through an ``include.path`` file), textconv
    and external diffs, fsmonitor, pager, hooks, credential helper and ssh. ``*.py`` and ``*.txt``
    files use the filter and diff drivers (``.gitattributes``, committed)."""
    script = repo.root.parent / "program.sh"
    script.write_text(MARKER_SCRIPT.format(marker=marker))
    script.chmod(0o755)
    hooks = repo.root.parent / "hooks"
    hooks.mkdir(exist_ok=True)
    for hook in ("post-index-change", "post-checkout", "pre-commit", "reference-transaction"):
        (hooks / hook).write_text(MARKER_SCRIPT.format(marker=marker))
        (hooks / hook).chmod(0o755)
    settings = {
        "filter.x.clean": f"{script} clean %f", "filter.x.smudge": f"{script} smudge %f",
        "filter.x.required": "true", "diff.x.textconv": f"{script} textconv",
        "diff.x.command": f"{script} diffcommand", "diff.external": f"{script} external",
        "core.fsmonitor": f"{script} fsmonitor", "core.pager": f"{script} pager",
        "core.hooksPath": str(hooks), "credential.helper": f"!{script} credential",
        "core.sshCommand": f"{script} ssh", "include.path": str(repo.root.parent / "inc.cfg"),
    }
    (repo.root.parent / "inc.cfg").write_text(
        f'[filter "y"]\n\tprocess = {script} process\n\trequired = true\n')
    for key, value in settings.items():
        repo.git("config", "--local", key, value)


def write_attributes(repo) -> None:
    repo.write(".gitattributes", "*.py filter=x diff=x\n*.txt filter=y diff=x\n")
