"""How an audit entry says what changed (repo.audit_log.changed): old → new, never a secret."""

from __future__ import annotations

from webstore.repo.audit_log import changed


def test_a_field_reads_old_then_new_in_the_catalog_files_spelling() -> None:
    assert changed("name", "Lobby", "Hub") == 'name: "Lobby" → "Hub"'
    assert changed("disabled", False, True) == "disabled: false → true"
    assert changed("next_check", 60, 120) == "next_check: 60 → 120"
    assert changed("events", ["a"], []) == 'events: ["a"] → []'
    assert changed("expires", None, "2030") == 'expires: none → "2030"'


def test_a_secret_is_only_said_to_have_changed() -> None:
    assert changed("secret", "old-secret", "new-secret", secret=True) == "secret: changed"
