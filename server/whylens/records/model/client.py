"""One chat completion against an OpenAI-compatible endpoint (stdlib urllib, no SDK)."""

from __future__ import annotations

import json
import os
import socket
import urllib.error
import urllib.request

from whylens.records.model.settings import DistillSettings


class EndpointError(Exception):
    """The endpoint failed for a reason that is not the record's (down, 5xx): stop draining."""


class EndpointTimeout(EndpointError):
    """No answer within the configured timeout."""


class GuidedRejected(Exception):
    """The endpoint refused the request as sent (4xx), e.g. it has no json_schema decoding."""


def chat(settings: DistillSettings, messages: list[dict], schema: dict | None = None) -> str:
    """The assistant's reply text. ``schema`` asks for guided decoding (``response_format``)."""
    body = {
        "model": settings.model,
        "messages": messages,
        "temperature": 0,
        "max_tokens": settings.max_tokens,
    }
    if schema is not None:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "decision_record", "schema": schema, "strict": True},
        }
    url = settings.endpoint
    if not url.endswith("/chat/completions"):
        url += "/chat/completions"
    headers = {"Content-Type": "application/json", "User-Agent": "whylens"}
    token = os.environ.get(settings.api_key_env, "") if settings.api_key_env else ""
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=json.dumps(body).encode("utf-8"), headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=settings.timeout) as response:
            payload = response.read()
    except urllib.error.HTTPError as exc:
        if 400 <= exc.code < 500 and exc.code not in (401, 403, 404, 429):
            raise GuidedRejected(f"HTTP {exc.code}") from None
        raise EndpointError(f"{settings.endpoint} answered HTTP {exc.code}") from None
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, (socket.timeout, TimeoutError)):
            raise EndpointTimeout(f"no answer from {settings.endpoint} in {settings.timeout:g}s") from None
        raise EndpointError(f"cannot reach {settings.endpoint} ({exc.reason})") from None
    except (socket.timeout, TimeoutError):
        raise EndpointTimeout(f"no answer from {settings.endpoint} in {settings.timeout:g}s") from None
    except OSError as exc:
        raise EndpointError(f"cannot reach {settings.endpoint} ({exc})") from None
    try:
        data = json.loads(payload.decode("utf-8", "replace"))
        content = data["choices"][0]["message"]["content"]
    except (json.JSONDecodeError, KeyError, IndexError, TypeError):
        return payload.decode("utf-8", "replace")  # an odd envelope: let the ladder judge the text
    return content if isinstance(content, str) else json.dumps(content)
