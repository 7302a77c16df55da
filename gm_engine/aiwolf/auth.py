"""The AIWolf server's optional agent authentication: an HS256 JSON Web Token, given as
``?token=`` on the ``/ws`` address or as an ``Authorization: Bearer`` header, whose claims
say ``role`` ``PLAYER`` and the agent's ``team`` (its name without the trailing number).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from urllib.parse import parse_qs, urlsplit


def _decoded(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def _encoded(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def player_token(secret: str, team: str, *, expires: float | None = None) -> str:
    """A token the host accepts from ``team``'s agents (for tests and for handing out)."""
    claims: dict[str, object] = {"role": "PLAYER", "team": team}
    if expires is not None:
        claims["exp"] = int(expires)
    head = _encoded(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    body = _encoded(json.dumps(claims, separators=(",", ":")).encode())
    signature = hmac.new(secret.encode(), f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{_encoded(signature)}"


def token_of(path: str, authorization: str | None) -> str | None:
    """The token a connection offers: ``?token=`` first, else the Bearer header."""
    given = parse_qs(urlsplit(path).query).get("token")
    if given:
        return given[0]
    if authorization is not None and authorization.startswith("Bearer "):
        return authorization.removeprefix("Bearer ").strip()
    return None


def is_player_token(secret: str, token: str, team: str, *, now: float | None = None) -> bool:
    """Whether ``token`` is signed with ``secret`` (HS256), unexpired, and names ``team``
    as a PLAYER. A token of any other form is simply not valid."""
    parts = token.split(".")
    if len(parts) != 3:
        return False
    try:
        header = json.loads(_decoded(parts[0]))
        claims = json.loads(_decoded(parts[1]))
        signature = _decoded(parts[2])
    except ValueError:  # bad base 64, bad JSON, bad UTF-8
        return False
    if not isinstance(header, dict) or header.get("alg") != "HS256" or not isinstance(claims, dict):
        return False
    expected = hmac.new(secret.encode(), f"{parts[0]}.{parts[1]}".encode(), hashlib.sha256).digest()
    if not hmac.compare_digest(signature, expected):
        return False
    expiry = claims.get("exp")
    if isinstance(expiry, int | float) and (now if now is not None else time.time()) >= expiry:
        return False
    return claims.get("role") == "PLAYER" and claims.get("team") == team
