"""E-mail records in the one table, under the account partition (`ACCOUNT#<id>`).

| item                        | keys                                                           | TTL     |
|-----------------------------|----------------------------------------------------------------|---------|
| the store's e-mail settings | SK `MAILSETTINGS`                                              | none    |
| one message (claim and log) | SK `MAIL#<event id>#<kind>`                                    | 90 days |
| a suppressed address        | SK `MAILSUPPRESSED#<digest of the address>`                    | none    |
| an owner's template         | SK `MAILTPL#<kind>`                                            | none    |
|   … in the log (GSI1)       | `MAILLOG#<account>` / `<created>#<event id>#<kind>`            |         |

The message item is the idempotency record of (event, message kind): a conditional UpdateItem
claims it (`sending`, with a lease) before the provider is called, and the write after the call
settles it (`sent` with the provider's message id, or `failed` with the reason). A redelivered
event finds it `sent` and sends nothing. A claim whose lease ran out while still `sending` (the
sender stopped between the provider's answer and the settling write) cannot be known to have
gone out: it is marked `unknown` and not sent again by itself; the panel shows it, and the
owner's "Send again" is the only way it is sent twice. The same item keeps the event (type,
date, subject) so the panel can send it again, and is the panel's log entry (GSI1, newest first).
"""

from __future__ import annotations

import contextlib
import json
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from pydantic import BaseModel, Field

from webstore import keys
from webstore.db import GSI1, ConditionFailed, Item, Table, Transaction
from webstore.keys import account_pk, key
from webstore.repo.audit_log import Audit, changed

SETTINGS_SK = "MAILSETTINGS"
SUPPRESSED_PREFIX = "MAILSUPPRESSED#"
TEMPLATE_PREFIX = "MAILTPL#"
MESSAGE_PREFIX = "MAIL#"
ENTITY = "mail_message"
RETENTION = timedelta(days=90)
# Longer than one provider call can take (SES answers in well under a second; SMTP times out at 10 s).
LEASE = timedelta(seconds=60)
MAX_SUBJECT_CHARS = 64_000
ERROR_CHARS = 500


class MailStatus(StrEnum):
    SENDING = "sending"  # claimed: the provider is being called
    SENT = "sent"  # the provider took it (its message id kept)
    FAILED = "failed"  # the provider refused it or could not be reached: retried
    UNKNOWN = "unknown"  # a claim whose sender stopped mid-way: maybe sent; never resent by itself
    DELIVERED = "delivered"  # the provider reported it delivered (SES's event)
    BOUNCED = "bounced"  # the provider reported a bounce
    COMPLAINED = "complained"  # the player marked it as spam
    SUPPRESSED = "suppressed"  # not sent: the address bounced or complained before


SETTLED = frozenset(
    {MailStatus.SENT, MailStatus.DELIVERED, MailStatus.BOUNCED, MailStatus.COMPLAINED, MailStatus.SUPPRESSED}
)


class MailSettings(BaseModel):
    """What an owner sets in panel → E-mails."""

    disabled: list[str] = Field(default_factory=list)  # message kinds switched off
    from_name: str = ""  # "" : the store's name
    reply_to: str = ""
    renewal_notice_days: int = Field(default=3, ge=1, le=30)

    def enabled(self, kind: str) -> bool:
        return kind == "sign_in" or kind not in self.disabled

    def changes(self, before: MailSettings) -> str:
        """What changed since `before`, as the audit log says it ("no changes" when nothing did)."""
        said = [
            changed(name, getattr(before, name), getattr(self, name))
            for name in ("disabled", "from_name", "reply_to", "renewal_notice_days")
            if getattr(before, name) != getattr(self, name)
        ]
        return "; ".join(said) or "no changes"


class MailRecord(BaseModel):
    """One (event, kind) message as the panel's log shows it."""

    event_id: str
    kind: str
    event_type: str = ""
    recipient: str = ""
    status: MailStatus
    attempts: int = 0
    created_at: datetime
    sent_at: datetime | None = None
    subject_line: str = ""
    provider_id: str = ""
    error: str = ""
    event_date: str = ""
    event_subject: str | None = None  # JSON; None: too large to keep

    @property
    def can_resend(self) -> bool:
        return self.status in (MailStatus.FAILED, MailStatus.UNKNOWN) and self.event_subject is not None


class TemplateOverride(BaseModel):
    """An owner's own subject and body for one message kind (webstore.mail.overrides): sandboxed
    Jinja sources; `text` "" : the plain text is derived from the HTML."""

    subject: str
    html: str
    text: str = ""
    version: int = 1
    saved_at: datetime | None = None
    actor: str = ""


class Suppression(BaseModel):
    """An address the store sends nothing to: it bounced for good, or its owner complained."""

    address: str
    reason: str  # "bounced" | "complained"
    detail: str = ""
    at: datetime


def suppression_sk(address: str) -> str:
    return f"{SUPPRESSED_PREFIX}{keys.email_digest(address)}"


class ClaimState(StrEnum):
    CLAIMED = "claimed"
    SENT = "sent"  # sent before: nothing to do
    BUSY = "busy"  # another worker holds a live lease: retry later
    UNKNOWN = "unknown"  # a stopped sender's claim: not sent again by itself


@dataclass(frozen=True)
class Claim:
    state: ClaimState
    token: str = ""
    attempt: int = 0


_SETTLE_NAMES = {"#status": "status", "#error": "error", "#lease": "lease_until", "#claim": "claim"}


def message_sk(event_id: str, kind: str) -> str:
    return f"{MESSAGE_PREFIX}{event_id}#{kind}"


def log_gsi1pk(account_id: int) -> str:
    return f"MAILLOG#{account_id}"


def _record(item: Item) -> MailRecord:
    return MailRecord.model_validate(
        {
            **item,
            "created_at": item.get("created_at"),
            "sent_at": item.get("sent_at") or None,
            "attempts": int(item.get("attempts", 0)),
        }
    )


class MailRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    # --- settings ---

    def settings(self, account_id: int) -> MailSettings:
        """The store's e-mail settings (defaults when never saved): one GetItem."""
        item = self.table.get(key(account_pk(account_id), SETTINGS_SK))
        if item is None:
            return MailSettings()
        return MailSettings.model_validate({k: v for k, v in item.items() if k in MailSettings.model_fields})

    def save_settings(self, account_id: int, settings: MailSettings, audit: Audit) -> None:
        """Store the settings with `audit` in one transaction."""
        data = settings.model_dump(mode="json")
        tx = Transaction(self.table)
        tx.put({**key(account_pk(account_id), SETTINGS_SK), "entity": "mail_settings", **data})
        audit.add_to(tx, account_id)
        tx.commit()

    # --- the owner's templates ---

    def template(self, account_id: int, kind: str) -> TemplateOverride | None:
        """The owner's template for `kind` (None: the house's): one GetItem."""
        item = self.table.get(key(account_pk(account_id), f"{TEMPLATE_PREFIX}{kind}"))
        if item is None:
            return None
        return TemplateOverride.model_validate(
            {k: v for k, v in item.items() if k in TemplateOverride.model_fields}
        )

    def templates(self, account_id: int) -> dict[str, TemplateOverride]:
        """Every overridden kind's template (one Query)."""
        items, _ = self.table.query(account_pk(account_id), sk_prefix=TEMPLATE_PREFIX)
        return {
            str(i["SK"]).removeprefix(TEMPLATE_PREFIX): TemplateOverride.model_validate(
                {k: v for k, v in i.items() if k in TemplateOverride.model_fields}
            )
            for i in items
        }

    def save_template(
        self, account_id: int, kind: str, template: TemplateOverride | None, audit: Audit
    ) -> None:
        """Store the owner's template for `kind` (None: back to the house's) with `audit`, in
        one transaction."""
        item_key = key(account_pk(account_id), f"{TEMPLATE_PREFIX}{kind}")
        tx = Transaction(self.table)
        if template is None:
            tx.delete(item_key)
        else:
            tx.put({**item_key, "entity": "mail_template", **template.model_dump(mode="json")})
        audit.add_to(tx, account_id)
        tx.commit()

    # --- the claim ---

    def claim(
        self,
        account_id: int,
        event_id: str,
        kind: str,
        now: datetime,
        *,
        event_type: str,
        event_date: str,
        event_subject: dict[str, object],
        recipient: str,
        resend: bool = False,
    ) -> Claim:
        """Take (event, kind) unless it was sent, is being sent, or (unless `resend`, the
        owner's "Send again") its outcome is unknown."""
        token = secrets.token_hex(8)
        item_key = key(account_pk(account_id), message_sk(event_id, kind))
        encoded = json.dumps(event_subject, default=str, separators=(",", ":"))
        kept = encoded if len(encoded) <= MAX_SUBJECT_CHARS else None
        allowed = "#status = :failed" + (" OR #status = :unknown" if resend else "")
        try:
            attributes = self.table.update(
                item_key,
                "SET #status = :sending, #lease = :lease, #claim = :token, #entity = :entity,"
                " #kind = :kind, #type = :type, #to = :to, #ttl = :ttl, #date = :date,"
                " #created = if_not_exists(#created, :now_iso), GSI1PK = :log_pk,"
                " GSI1SK = if_not_exists(GSI1SK, :log_sk), #event = :event"
                + (", #subject = :subject" if kept else "")
                + " ADD #attempts :one",
                condition=f"attribute_not_exists(PK) OR {allowed}",
                names={
                    "#status": "status",
                    "#lease": "lease_until",
                    "#claim": "claim",
                    "#entity": "entity",
                    "#kind": "kind",
                    "#type": "event_type",
                    "#to": "recipient",
                    "#ttl": "expires_at",
                    "#date": "event_date",
                    "#created": "created_at",
                    "#event": "event_id",
                    "#attempts": "attempts",
                    **({"#subject": "event_subject"} if kept else {}),
                },
                values={
                    ":sending": MailStatus.SENDING.value,
                    ":failed": MailStatus.FAILED.value,
                    **({":unknown": MailStatus.UNKNOWN.value} if resend else {}),
                    ":lease": int((now + LEASE).timestamp()),
                    ":token": token,
                    ":entity": ENTITY,
                    ":kind": kind,
                    ":type": event_type,
                    ":to": recipient,
                    ":ttl": int((now + RETENTION).timestamp()),
                    ":date": event_date,
                    ":now_iso": now.isoformat(),
                    ":log_pk": log_gsi1pk(account_id),
                    ":log_sk": f"{now.isoformat()}#{event_id}#{kind}",
                    ":event": event_id,
                    ":one": 1,
                    **({":subject": kept} if kept else {}),
                },
                return_values="ALL_NEW",
            )
        except ConditionFailed:
            return self._taken(item_key, now)
        return Claim(ClaimState.CLAIMED, token, int(attributes.get("attempts", 1)))

    def _taken(self, item_key: dict[str, str], now: datetime) -> Claim:
        current = self.table.get(item_key, consistent=True) or {}
        status = current.get("status")
        if status in SETTLED:  # sent (and maybe reported on since), or suppressed: done
            return Claim(ClaimState.SENT)
        if status == MailStatus.UNKNOWN:
            return Claim(ClaimState.UNKNOWN)
        if status == MailStatus.SENDING and int(current.get("lease_until", 0)) < int(now.timestamp()):
            try:  # its sender stopped between the provider's answer and the settling write
                self.table.update(
                    item_key,
                    "SET #status = :unknown, #error = :why REMOVE #lease",
                    condition="#status = :sending AND #claim = :token",
                    names={
                        "#status": "status",
                        "#error": "error",
                        "#lease": "lease_until",
                        "#claim": "claim",
                    },
                    values={
                        ":unknown": MailStatus.UNKNOWN.value,
                        ":sending": MailStatus.SENDING.value,
                        ":token": current.get("claim", ""),
                        ":why": "The sender stopped before it recorded the outcome: it may have been sent",
                    },
                )
            except ConditionFailed:
                return Claim(ClaimState.BUSY)
            return Claim(ClaimState.UNKNOWN)
        return Claim(ClaimState.BUSY)

    def mark_sent(
        self,
        account_id: int,
        event_id: str,
        kind: str,
        token: str,
        now: datetime,
        provider_id: str,
        subject_line: str,
    ) -> None:
        self.table.update(
            key(account_pk(account_id), message_sk(event_id, kind)),
            "SET #status = :sent, #at = :at, #provider = :provider, #line = :line REMOVE #lease, #error",
            condition="#claim = :token",
            names={
                "#status": "status",
                "#at": "sent_at",
                "#provider": "provider_id",
                "#line": "subject_line",
                "#lease": "lease_until",
                "#error": "error",
                "#claim": "claim",
            },
            values={
                ":sent": MailStatus.SENT.value,
                ":at": now.isoformat(),
                ":provider": provider_id,
                ":line": subject_line,
                ":token": token,
            },
        )

    def mark_failed(self, account_id: int, event_id: str, kind: str, token: str, error: str) -> None:
        # A failed condition: its lease was taken over meanwhile, and the other outcome stands.
        with contextlib.suppress(ConditionFailed):
            self.table.update(
                key(account_pk(account_id), message_sk(event_id, kind)),
                "SET #status = :failed, #error = :error REMOVE #lease",
                condition="#claim = :token AND #status = :sending",
                names=_SETTLE_NAMES,
                values={
                    ":failed": MailStatus.FAILED.value,
                    ":sending": MailStatus.SENDING.value,
                    ":error": error[:ERROR_CHARS],
                    ":token": token,
                },
            )

    # --- the panel ---

    def record(self, account_id: int, event_id: str, kind: str) -> MailRecord | None:
        item = self.table.get(key(account_pk(account_id), message_sk(event_id, kind)), consistent=True)
        return _record(item) if item else None

    def log(self, account_id: int, limit: int = 50) -> list[MailRecord]:
        """The newest messages first: one Query of GSI1."""
        items, _ = self.table.query(log_gsi1pk(account_id), index=GSI1, forward=False, limit=limit)
        return [_record(item) for item in items]

    # --- bounces and complaints ---

    def suppress(self, account_id: int, suppression: Suppression) -> None:
        """Send nothing more to `suppression.address` (the latest reason kept): one PutItem."""
        self.table.put(
            {
                **key(account_pk(account_id), suppression_sk(suppression.address)),
                "entity": "mail_suppression",
                **suppression.model_dump(mode="json"),
            }
        )

    def suppressed(self, account_id: int, address: str) -> Suppression | None:
        item = self.table.get(key(account_pk(account_id), suppression_sk(address)))
        return Suppression.model_validate(item) if item else None

    def suppressions(self, account_id: int, limit: int = 100) -> list[Suppression]:
        items, _ = self.table.query(account_pk(account_id), sk_prefix=SUPPRESSED_PREFIX, limit=limit)
        return sorted((Suppression.model_validate(i) for i in items), key=lambda s: s.at, reverse=True)

    def lift(self, account_id: int, address: str, audit: Audit) -> bool:
        """Send to `address` again (the panel); whether it was suppressed."""
        if self.suppressed(account_id, address) is None:
            return False
        tx = Transaction(self.table)
        tx.delete(key(account_pk(account_id), suppression_sk(address)))
        audit.add_to(tx, account_id)
        tx.commit()
        return True

    def mark(self, account_id: int, event_id: str, kind: str, status: MailStatus, note: str = "") -> None:
        """What the provider reported later (delivered, bounced, complained) on a sent message;
        a message gone (its 90 days over) or never logged: nothing. Reports arrive in any order
        and more than once: delivered only over sent, a bounce over sent or delivered, a
        complaint over those and a bounce."""
        over = {
            MailStatus.DELIVERED: [MailStatus.SENT],
            MailStatus.BOUNCED: [MailStatus.SENT, MailStatus.DELIVERED],
        }.get(status, [MailStatus.SENT, MailStatus.DELIVERED, MailStatus.BOUNCED])
        allowed = {f":over{i}": s.value for i, s in enumerate(over)}
        with contextlib.suppress(ConditionFailed):
            self.table.update(
                key(account_pk(account_id), message_sk(event_id, kind)),
                "SET #status = :status, #error = :note",
                condition=f"#status IN ({', '.join(allowed)})",
                names={"#status": "status", "#error": "error"},
                values={":status": status.value, ":note": note[:ERROR_CHARS], **allowed},
            )

    def mark_suppressed(self, account_id: int, event_id: str, kind: str, token: str, why: str) -> None:
        """A claimed message not sent because its address is suppressed (shown in the log)."""
        with contextlib.suppress(ConditionFailed):
            self.table.update(
                key(account_pk(account_id), message_sk(event_id, kind)),
                "SET #status = :suppressed, #error = :error REMOVE #lease",
                condition="#claim = :token AND #status = :sending",
                names=_SETTLE_NAMES,
                values={
                    ":suppressed": MailStatus.SUPPRESSED.value,
                    ":sending": MailStatus.SENDING.value,
                    ":error": why[:ERROR_CHARS],
                    ":token": token,
                },
            )
