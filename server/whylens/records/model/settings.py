"""Where the model pass is configured: an ``[llm.distill]`` section in a ``whylens.toml``.

Looked up, first found wins: ``<index dir>/whylens.toml`` (per-user, beside the index), then
``<repository root>/whylens.toml`` (a project setting, only read). Example::

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


def load_settings(index_dir: str | Path | None, repo_root: str | Path | None = None) -> DistillSettings | None:
    """The first ``[llm.distill]`` section found, or None when the model pass is not configured."""
    for folder in (index_dir, repo_root):
        if folder is None:
            continue
        path = Path(folder) / SETTINGS_FILE
        if path.is_file():
            section = _section(path)
            if section is not None:
                return _parse(section, path)
    return None


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
