"""Who may talk to `kb serve --http`: the Origin rule and the bearer token, decided.

Rules of this module:
- The server listens on the loopback interface only, so every caller is a process on this
  machine. Two of those are not to be trusted: a web page in a browser (which sends an
  Origin header naming the site that made the request) and any process without the token.
- Origin first: absent is accepted (command-line clients and SDKs send none); otherwise it
  must be exactly `http://` or `https://`, then `localhost` or `127.0.0.1`, then an
  optional `:port` of digits, and nothing more (no path, no user, no other host, not
  `null`). Scheme and host compare without regard to case. Anything else is 403, before
  the token is looked at, so a page on another site learns nothing about the token.
- Then the token: the `Authorization` header must be `Bearer <token>` (the scheme word
  without regard to case, one space) with the token equal to the server's, compared in
  constant time. Missing or wrong is 401 with `WWW-Authenticate: Bearer`.
"""

from __future__ import annotations

import hmac

from attrs import frozen

LOCAL_HOSTS = ("localhost", "127.0.0.1")
SCHEMES = ("http://", "https://")


@frozen
class Refusal:
    status: int
    message: str


def origin_allowed(origin: str | None) -> bool:
    if origin is None:
        return True
    lowered = origin.lower()
    scheme = next((s for s in SCHEMES if lowered.startswith(s)), None)
    if scheme is None:
        return False
    host, colon, port = lowered[len(scheme) :].partition(":")
    if host not in LOCAL_HOSTS:
        return False
    return not colon or (port.isascii() and port.isdigit())


def token_matches(authorization: str | None, token: str) -> bool:
    if authorization is None or not token:
        return False
    scheme, space, given = authorization.partition(" ")
    if not space or scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.encode("utf-8"), token.encode("utf-8"))


def refusal(origin: str | None, authorization: str | None, token: str) -> Refusal | None:
    """None when the request may pass; else the status and a one-line reason."""
    if not origin_allowed(origin):
        return Refusal(
            403,
            "kb serve: requests from web pages are refused; only a client on this machine "
            "with no Origin, or a localhost origin, may call this server",
        )
    if not token_matches(authorization, token):
        return Refusal(
            401,
            "kb serve: send the token `kb serve --http` printed at start (or KB_MCP_TOKEN) "
            "as `Authorization: Bearer <token>`",
        )
    return None
