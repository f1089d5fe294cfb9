"""Staff passwords: argon2id (argon2-cffi), memory-hard, with the parameters in the hash.

`password_hash_memory_kib` (settings) sets the memory per hash; a hash made with other
parameters still verifies and is replaced at the next sign-in (`needs_rehash`).
"""

from __future__ import annotations

import secrets
from functools import lru_cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

# Generated passwords (the first owner, an invited member): 16 random bytes, URL-safe text.
GENERATED_BYTES = 16
MIN_LENGTH = 10
MAX_LENGTH = 256


@lru_cache(maxsize=4)
def hasher(memory_kib: int) -> PasswordHasher:
    return PasswordHasher(time_cost=3, memory_cost=memory_kib, parallelism=4)


def hash_password(password: str, memory_kib: int) -> str:
    return hasher(memory_kib).hash(password)


def password_matches(password: str, password_hash: str, memory_kib: int) -> bool:
    try:
        return hasher(memory_kib).verify(password_hash, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def needs_rehash(password_hash: str, memory_kib: int) -> bool:
    return hasher(memory_kib).check_needs_rehash(password_hash)


@lru_cache(maxsize=4)
def decoy_hash(memory_kib: int) -> str:
    """A hash to verify against when the address is unknown, so an unknown address takes as
    long to refuse as a wrong password (the answer is the same too)."""
    return hash_password(secrets.token_urlsafe(GENERATED_BYTES), memory_kib)


def generate_password() -> str:
    return secrets.token_urlsafe(GENERATED_BYTES)


def check_new_password(password: str, *, field: str = "password") -> str:
    """A password a member chose: long enough, not absurdly long; Invalid naming the field."""
    from webstore.errors import Invalid

    if len(password) < MIN_LENGTH:
        raise Invalid(f"{field} must be at least {MIN_LENGTH} characters", field=field)
    if len(password) > MAX_LENGTH:
        raise Invalid(f"{field} must be at most {MAX_LENGTH} characters", field=field)
    return password
