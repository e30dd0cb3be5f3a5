"""Whose a downloaded notebook is, signed by the site: the one rule for signing and checking it.

A notebook downloaded from a problem's page says in its ``grader`` metadata which problem it
is for and which student downloaded it (``student``), and carries ``signature``: the two,
signed with the site's ``SECRET_KEY`` (``django.core.signing``). A handed-in notebook is the
student's file, every field of it data: ``manage.py autograde --student-from metadata``
believes a name only with a signature that this site made for that student and the problem
being graded. A student can edit the name but cannot make the signature for another name or
another problem without the secret.

What it does not prove: who wrote the code in it. A student who hands in a copy of someone
else's downloaded notebook hands it in under that someone's name.
"""

from __future__ import annotations

from typing import Any

from django.core import signing

# Keeps these signatures apart from every other use of SECRET_KEY on the site (sessions,
# password resets): none of those can be passed off as a notebook's signature, or the reverse.
SALT = "jaxjudge.notebook-identity"


def sign_notebook_identity(problem: str, student: str) -> str:
    """The signature a downloaded notebook carries for ``student``'s copy of ``problem``."""
    return signing.Signer(salt=SALT).sign_object({"problem": problem, "student": student})


def notebook_identity_matches(signature: Any, *, problem: str, student: str) -> bool:
    """Whether ``signature`` (as read from a handed-in notebook: anything) is this site's
    signature for ``student`` and ``problem``."""
    if not isinstance(signature, str) or len(signature) > 1000:
        return False
    try:
        signed = signing.Signer(salt=SALT).unsign_object(signature)
    except (signing.BadSignature, ValueError):
        return False
    return signed == {"problem": problem, "student": student}
