"""Sealing and opening secrets under the stage key (webstore.secret_box): Fernet (AES-128-CBC
with HMAC-SHA256), the one use of the `cryptography` package but the Discord interactions'
signature check.

Its own module so that only the functions whose code seals or opens a secret import it, and
so carry the cryptography layer (infra/aws/layers.py reads imports from the source): the box
itself (key material, signed links' MACs) is in every function's services and needs nothing
beyond the standard library."""

from __future__ import annotations

import base64
import hashlib
from functools import lru_cache
from typing import TYPE_CHECKING

from webstore.secret_box import SealBroken, SecretBox

if TYPE_CHECKING:
    from cryptography.fernet import Fernet


def seal(box: SecretBox, secret: str) -> str:
    return _fernet_for(box.key_material()).encrypt(secret.encode()).decode()


def open_sealed(box: SecretBox, sealed: str) -> str:
    from cryptography.fernet import InvalidToken

    try:
        return _fernet_for(box.key_material()).decrypt(sealed.encode()).decode()
    except InvalidToken as error:
        raise SealBroken("A sealed secret does not open with this stage's key") from error


@lru_cache(maxsize=4)
def _fernet_for(material: str) -> Fernet:
    """Fernet wants 32 random bytes; the key material is any high-entropy string (Secrets
    Manager generates it), so its SHA-256 is the key. Imported here, on first use: a function
    pays for cryptography's import only when it seals or opens."""
    from cryptography.fernet import Fernet

    return Fernet(base64.urlsafe_b64encode(hashlib.sha256(material.encode()).digest()))
