"""Signatures for thinking blocks.

The real API signs every thinking block it returns and refuses a later request whose
assistant turn carries a thinking block that was edited or stripped of its signature.
The fake does the same with an HMAC keyed by a per-server secret, so a harness that
rewrites, trims or rebuilds thinking blocks fails in tests the way it would in production.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets


class ThinkingSigner:
    """Signs thinking text on the way out and checks it on the way back in."""

    def __init__(self, secret: bytes | None = None) -> None:
        # A fresh secret per server: a block signed by one fake is as foreign to
        # another as a block from a different account would be to the real API.
        self._secret = secret if secret is not None else secrets.token_bytes(32)

    def sign(self, thinking: str) -> str:
        """The base64 HMAC-SHA256 of `thinking` (the real API's signatures are base64 too)."""
        digest = hmac.new(self._secret, thinking.encode("utf-8"), hashlib.sha256).digest()
        return base64.b64encode(digest).decode("ascii")

    def verify(self, thinking: str, signature: str) -> bool:
        """Whether `signature` is the one this signer gave `thinking`."""
        return hmac.compare_digest(self.sign(thinking), signature)
