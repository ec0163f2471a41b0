"""Where the model pass is configured: an ``[llm.distill]`` section in a ``whylens.toml``.

The user's file ``<index dir>/whylens.toml`` (beside the index) turns the pass on and is the
only place for ``endpoint`` and ``api_key_env``: a cloned repository must never choose where
its history is sent, nor which secret goes with it. The project's ``<repository root>/
whylens.toml`` (only read) may suggest ``model``, ``timeout`` and ``max_tokens``; the user's
file overrides them. Example::

    [llm.distill]
    endpoint = "http://127.0.0.1:8080/v1"   # OpenAI-compatible; /chat/completions is appended
    model = "qwen2.5-7b-instruct"
    timeout = 60                            # seconds per request
    api_key_env = "OPENAI_API_KEY"          # optional: the variable holding a bearer token
    max_tokens = 1200
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from whylens.errors import InvalidInputError

SETTINGS_FILE = "whylens.toml"


@dataclass(frozen=True)
class DistillSettings:
    endpoint: str
    model: str
    timeout: float = 60.0
    api_key_env: str | None = None
    max_tokens: int = 1200
    source: str = ""  # the file it came from


PROJECT_KEYS = frozenset({"model", "timeout", "max_tokens"})  # what a repository may set


def load_settings(index_dir: str | Path | None, repo_root: str | Path | None = None) -> DistillSettings | None:
    """The user's ``[llm.distill]`` merged over the project's safe keys, or None when the model
    pass is not turned on in the user's file."""
    user_path = Path(index_dir) / SETTINGS_FILE if index_dir is not None else None
    project_path = Path(repo_root) / SETTINGS_FILE if repo_root is not None else None
    user = _section(user_path) if user_path and user_path.is_file() else None
    project = _section(project_path) if project_path and project_path.is_file() else None
    if user is None:
        if project and project.keys() - PROJECT_KEYS:
            raise InvalidInputError(
                f"[llm.distill] in {project_path} may only set {', '.join(sorted(PROJECT_KEYS))}: "
                f"the endpoint and any credentials must come from your own {user_path or SETTINGS_FILE} "
                "(beside the index), so a cloned repository never decides where your data goes")
        return None
    assert user_path is not None  # the user's section was read from it
    safe = {k: v for k, v in (project or {}).items() if k in PROJECT_KEYS}
    return _parse({**safe, **user}, user_path)


def _section(path: Path) -> dict | None:
    try:
        data = tomllib.loads(path.read_bytes().decode("utf-8", "replace"))
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInputError(f"{path} is not valid TOML ({exc}); fix or remove it") from None
    section = data.get("llm", {}).get("distill") if isinstance(data.get("llm"), dict) else None
    return section if isinstance(section, dict) else None


def _parse(section: dict, path: Path) -> DistillSettings:
    endpoint, model = section.get("endpoint"), section.get("model")
    if not isinstance(endpoint, str) or not endpoint.startswith(("http://", "https://")):
        raise InvalidInputError(f"[llm.distill] endpoint in {path} must be an http(s) URL")
    if not isinstance(model, str) or not model:
        raise InvalidInputError(f"[llm.distill] model in {path} must name the model to use")
    try:
        timeout = float(section.get("timeout", 60))
        max_tokens = int(section.get("max_tokens", 1200))
    except (TypeError, ValueError):
        raise InvalidInputError(f"[llm.distill] timeout and max_tokens in {path} must be numbers") from None
    if timeout <= 0 or max_tokens <= 0:
        raise InvalidInputError(f"[llm.distill] timeout and max_tokens in {path} must be positive")
    key_env = section.get("api_key_env")
    return DistillSettings(endpoint.rstrip("/"), model, timeout,
                           key_env if isinstance(key_env, str) and key_env else None,
                           max_tokens, str(path))
