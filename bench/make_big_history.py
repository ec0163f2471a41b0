"""A repository of at least 100,000 commits: a clone of a real C project plus generated commits.

    python bench/make_big_history.py SOURCE TARGET [--commits 20000] [--seed 14]

Clones SOURCE (a local repository, e.g. /work/.mirror/git+git/repo: 81,966 commits) into TARGET
and adds --commits commits on top with ``git fast-import``, each one a realistic change of a real
C function of the clone: a statement inserted after, or an expression changed in, a statement
line inside a function body (a tab-indented line ending in ";"), now and then a new helper
function; messages carry a reason ("..., because ..."), authors rotate, dates advance an hour a
commit. Nothing is written into SOURCE. Prints the commit count and the generated range.
"""

from __future__ import annotations

import argparse
import random
import re
import subprocess
import sys
from pathlib import Path

AREAS = ("refs", "pack", "diff", "merge", "config", "index", "object", "remote", "fetch",
         "transport", "commit", "revision", "submodule", "worktree", "attr", "blame")
PROBLEMS = ("the lookup can fail when the entry was removed concurrently",
            "a zero-length buffer made the loop read past its end",
            "callers passed NULL when the repository has no commits yet",
            "large repositories spent seconds here on every call",
            "the error was reported twice, once by each caller",
            "a signed length overflowed on files over 2 GiB",
            "the cache kept stale entries after a reload",
            "Windows paths with a trailing separator were not recognised")
FIXES = ("return early", "check the length first", "free the old value before replacing it",
         "reuse the parsed result", "report the error once, here",
         "use size_t for the length", "invalidate the cache on reload",
         "strip the trailing separator")
NAMES = ("Ada Lovelace <ada@example.com>", "Grace Hopper <grace@example.com>",
         "Linus Benedict <linus@example.com>", "Junio Hamano <junio@example.com>",
         "Margaret Hamilton <margaret@example.com>", "Ken Thompson <ken@example.com>")
_STATEMENT = re.compile(rb"^(\t+)[^\s#/*].*;\s*$")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source")
    parser.add_argument("target")
    parser.add_argument("--commits", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=14)
    args = parser.parse_args()
    target = Path(args.target)
    if not target.exists():
        subprocess.run(["git", "clone", "-q", "--no-local", args.source, str(target)],
                       check=True)
    git = ["git", "-C", str(target)]
    branch = subprocess.run([*git, "symbolic-ref", "--short", "HEAD"], check=True,
                            capture_output=True, text=True).stdout.strip()
    head = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()
    stamp = int(subprocess.run([*git, "log", "-1", "--format=%ct"], check=True,
                               capture_output=True, text=True).stdout)
    files = [p for p in subprocess.run([*git, "ls-files", "*.c"], check=True,
                                       capture_output=True, text=True).stdout.split()
             if "/" not in p or p.startswith(("builtin/", "refs/", "xdiff/"))]
    rng = random.Random(args.seed)
    sources: dict[str, list[bytes]] = {}
    stream = subprocess.Popen([*git, "fast-import", "--quiet", "--done"], stdin=subprocess.PIPE)
    assert stream.stdin is not None
    out = stream.stdin
    for n in range(args.commits):
        path = rng.choice(files)
        lines = sources.get(path)
        if lines is None:
            lines = sources[path] = (target / path).read_bytes().splitlines(keepends=True)
        message = _change(rng, lines, n)
        stamp += 3600
        author = rng.choice(NAMES).encode()
        data = b"".join(lines)
        out.write(b"commit refs/heads/" + branch.encode() + b"\n")
        out.write(b"author " + author + b" %d +0000\n" % stamp)
        out.write(b"committer " + author + b" %d +0000\n" % stamp)
        out.write(b"data %d\n%s\n" % (len(message), message))
        if n == 0:
            out.write(b"from " + head.encode() + b"\n")
        out.write(b"M 100644 inline " + path.encode() + b"\n")
        out.write(b"data %d\n%s\n" % (len(data), data))
    out.write(b"done\n")
    out.close()
    if stream.wait() != 0:
        sys.exit("git fast-import failed")
    subprocess.run([*git, "reset", "-q", "--hard"], check=True)
    count = subprocess.run([*git, "rev-list", "--count", "HEAD"], check=True,
                           capture_output=True, text=True).stdout.strip()
    print(f"{target}: {count} commits; generated {args.commits} on top of {head[:12]}")


def _change(rng: random.Random, lines: list[bytes], n: int) -> bytes:
    """Edit ``lines`` in place; return the commit message."""
    area = rng.choice(AREAS)
    k = rng.randrange(len(PROBLEMS))
    problem, fix = PROBLEMS[k], FIXES[k]
    statements = [i for i, line in enumerate(lines) if _STATEMENT.match(line)]
    if not statements or rng.random() < 0.05:
        name = f"{area}_helper_{n}"
        lines.append(b"\nstatic int %s(int value)\n{\n\tif (value < 0)\n\t\treturn -1;\n"
                     b"\treturn value * 2;\n}\n" % name.encode())
        return (f"{area}: add {name}\n\nA small helper, so that callers stop repeating the "
                f"check; {problem}.\n").encode()
    i = rng.choice(statements)
    indent = _STATEMENT.match(lines[i]).group(1)  # type: ignore[union-attr]
    if rng.random() < 0.5:
        lines.insert(i + 1, indent + b"trace_printf(\"%s: %%d\\n\", %d);\n" % (
            area.encode(), n))
        summary = f"{area}: trace where {fix.split()[0]}s happen"
    else:
        lines[i] = lines[i].rstrip(b"\n").rstrip(b";") + b" /* %d */;\n" % n
        summary = f"{area}: {fix}"
    return (f"{summary}\n\n{problem.capitalize()}, because nothing checked it here; "
            f"{fix} instead.\n").encode()


if __name__ == "__main__":
    main()
