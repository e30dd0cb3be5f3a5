"""Which examples a grading meets: seeded from a deployment secret and the submission's source.

Hidden examples must not be collectable: if every Submit met the same inputs, a student could
print them once (or infer them from the messages) and hard-code the answers. So each property
test is seeded with HMAC-SHA256(secret, problem, source, test): the same source always meets
the same examples (a regrade agrees with the first grading), any change to the source meets
new ones, and without the secret nobody can predict them.

The secret comes from ``JAXJUDGE_GRADING_SECRET`` (or the file ``JAXJUDGE_GRADING_SECRET_FILE``
names); without either, one is made once per checkout in ``.cache/grading_secret``. Every
worker of a deployment must share it, or their gradings of one source would disagree.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

from grader.problem import REPO_ROOT

SECRET_VARIABLE = "JAXJUDGE_GRADING_SECRET"
LOCAL_SECRET = REPO_ROOT / ".cache" / "grading_secret"


class GradingSecretError(Exception):
    """The configured grading secret cannot be used; the message says which setting is wrong."""


def grading_secret() -> bytes:
    """The deployment's grading secret (made once per checkout when none is configured)."""
    path = os.environ.get(f"{SECRET_VARIABLE}_FILE")
    if path:
        try:
            value = Path(path).read_text().strip()
        except OSError as exc:
            raise GradingSecretError(f"{SECRET_VARIABLE}_FILE: cannot read {path}: {exc.strerror}") from None
    else:
        value = os.environ.get(SECRET_VARIABLE, "").strip() or _local_secret()
    if len(value) < 16:
        raise GradingSecretError(f"{SECRET_VARIABLE}: the grading secret must have at least 16 characters")
    return value.encode()


def _local_secret() -> str:
    if not LOCAL_SECRET.exists():
        # Written aside, then linked into place: processes starting together agree on one secret.
        LOCAL_SECRET.parent.mkdir(parents=True, exist_ok=True)
        draft = LOCAL_SECRET.with_name(f".grading_secret.{os.getpid()}")
        draft.touch(mode=0o600)
        draft.write_text(secrets.token_urlsafe(32))
        try:
            os.link(draft, LOCAL_SECRET)
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    return LOCAL_SECRET.read_text().strip()


def example_seed(secret: bytes, problem: str, source: str, test: str) -> int:
    """The seed of one property test's examples for one submission's source."""
    message = "\0".join((problem, test, source)).encode("utf-8", errors="surrogatepass")
    return int.from_bytes(hmac.new(secret, message, hashlib.sha256).digest()[:16], "big")
