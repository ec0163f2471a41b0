"""The opt-in live fetch of a GitHub tracker export (stdlib ``urllib``; never run by tests).

Writes the same files ``load_export`` reads (see ``records.github``). The token is read from an
environment variable, sent only in the ``Authorization`` header to api.github.com, and never
printed, logged or written: error messages name the variable, never its value.
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.request
from pathlib import Path
from typing import Callable

from whylens.errors import InvalidInputError, WhyLensError

API = "https://api.github.com"
ENDPOINTS = {  # file name → path under /repos/{slug}/
    "issues.json": "issues?state=closed&per_page=100",
    "pulls.json": "pulls?state=closed&per_page=100",
    "comments.json": "issues/comments?per_page=100",
    "review_comments.json": "pulls/comments?per_page=100",
    "events.json": "issues/events?per_page=100",
}
MAX_PAGES = 2_000  # 200,000 items per endpoint; a bigger tracker needs `gh api` by hand
TIMEOUT_SECONDS = 30
_SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$")
_NEXT = re.compile(r'<([^>]+)>;\s*rel="next"')


class GitHubFetchError(WhyLensError):
    """The live fetch failed (network, permissions, rate limit)."""


def fetch(
    repo_slug: str,
    token_env: str = "GITHUB_TOKEN",
    dest: str | Path = ".",
    since: str | None = None,
    progress: Callable[[str, int], None] | None = None,
) -> Path:
    """Download closed issues, closed PRs, comments, review comments and issue events of
    ``owner/name`` into ``dest``; return ``dest``. ``since`` (ISO date) limits issues/comments."""
    if not _SLUG.match(repo_slug or ""):
        raise InvalidInputError(f"{repo_slug!r} is not a GitHub repository name; use OWNER/NAME")
    token = os.environ.get(token_env, "").strip()
    if not token:
        raise InvalidInputError(
            f"the environment variable {token_env} is empty; set it to a GitHub token "
            "(read-only access to the repository is enough) and try again"
        )
    target = Path(dest)
    target.mkdir(parents=True, exist_ok=True)
    for name, path in ENDPOINTS.items():
        query = f"&since={since}" if since and name in ("issues.json", "comments.json") else ""
        pages = _paginate(f"{API}/repos/{repo_slug}/{path}{query}", token, name, progress)
        partial = target / f".{name}.part"
        with partial.open("w", encoding="utf-8") as out:
            json.dump([item for page in pages for item in page], out)
        partial.replace(target / name)  # a cut-off fetch never leaves a half file under the real name
    return target


def _paginate(url: str, token: str, name: str, progress) -> list[list]:
    pages: list[list] = []
    while url and len(pages) < MAX_PAGES:
        body, link = _get(url, token)
        page = json.loads(body.decode("utf-8", "replace"))
        if not isinstance(page, list):
            raise GitHubFetchError(f"GitHub answered {name} with an unexpected shape; try again later")
        pages.append(page)
        if progress:
            progress(name, sum(len(p) for p in pages))
        match = _NEXT.search(link or "")
        url = match.group(1) if match else ""
    return pages


def _get(url: str, token: str) -> tuple[bytes, str]:
    if not url.startswith(API + "/"):
        raise GitHubFetchError("GitHub pointed the next page outside api.github.com; stopped")
    request = urllib.request.Request(url, headers={
        "Accept": "application/vnd.github+json",
        "Authorization": f"Bearer {token}",
        "X-GitHub-Api-Version": "2022-11-28",
        "User-Agent": "whylens",
    })
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
            return response.read(), response.headers.get("Link", "")
    except urllib.error.HTTPError as exc:
        hint = {401: "the token was refused; check it", 403: "forbidden or rate-limited; wait or "
                "use a token with access", 404: "no such repository, or the token cannot see it"}
        raise GitHubFetchError(
            f"GitHub answered HTTP {exc.code} for {url.split('?')[0]}: "
            f"{hint.get(exc.code, 'try again later')}"
        ) from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise GitHubFetchError(f"cannot reach api.github.com ({reason}); check the network") from None
