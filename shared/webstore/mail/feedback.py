"""What SES reports after sending: deliveries, bounces and complaints (the stage's configuration
set publishes them to EventBridge; a rule puts them on the mail queue beside the domain events).

- **Delivered**: the message's log entry becomes `delivered`.
- **Bounced**: `bounced` (with SES's type and reason). A *permanent* bounce (no such mailbox, or
  an address on SES's account-level suppression list) also suppresses the address for the store:
  nothing more is sent to it. A transient one (mailbox full) does not.
- **Complained** (the player marked it as spam): `complained`, and the address is suppressed.

Which store and message a report belongs to is in the message's SES tags
(`webstore-account`, `webstore-event`, `webstore-kind`; webstore.mail.delivery); a report
without an account tag (a message of another sender on the identity) is ignored.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from webstore.repo.mail import MailRepository, MailStatus, Suppression
from webstore.services import Services

SOURCE = "aws.ses"
DELIVERED = "Email Delivered"
BOUNCED = "Email Bounced"
COMPLAINED = "Email Complained"
DETAIL_TYPES = (DELIVERED, BOUNCED, COMPLAINED)


def is_feedback(source: str, detail_type: str) -> bool:
    return source == SOURCE and detail_type in DETAIL_TYPES


def _tag(tags: dict[str, Any], name: str) -> str:
    value = tags.get(f"webstore-{name}") or []
    return str(value[0]) if isinstance(value, list) and value else ""


def record_feedback(services: Services, detail_type: str, detail: dict[str, Any], now: datetime) -> str:
    """Apply one SES report; what was done (for the log)."""
    mail = detail.get("mail") or {}
    tags = mail.get("tags") or {}
    account = _tag(tags, "account")
    if not account.isdigit():
        return "ignored: no webstore-account tag"
    account_id = int(account)
    event_id, kind = _tag(tags, "event"), _tag(tags, "kind")
    repo = MailRepository(services.table)
    if detail_type == DELIVERED:
        if event_id and kind:
            repo.mark(account_id, event_id, kind, MailStatus.DELIVERED)
        return "delivered"
    if detail_type == BOUNCED:
        bounce = detail.get("bounce") or {}
        permanent = bounce.get("bounceType") == "Permanent"
        why = f"{bounce.get('bounceType', '')} bounce ({bounce.get('bounceSubType', '')})"
        recipients = [r.get("emailAddress", "") for r in bounce.get("bouncedRecipients") or []]
        diagnostic = next((r.get("diagnosticCode", "") for r in bounce.get("bouncedRecipients") or []), "")
        note = f"{why}: {diagnostic}" if diagnostic else why
        status, reason, suppress = MailStatus.BOUNCED, "bounced", permanent
    elif detail_type == COMPLAINED:
        complaint = detail.get("complaint") or {}
        recipients = [r.get("emailAddress", "") for r in complaint.get("complainedRecipients") or []]
        note = f"Complaint ({complaint.get('complaintFeedbackType') or 'marked as spam'})"
        status, reason, suppress = MailStatus.COMPLAINED, "complained", True
    else:
        return f"ignored: {detail_type}"
    if event_id and kind:
        repo.mark(account_id, event_id, kind, status, note)
    for address in filter(None, recipients):
        if suppress:
            repo.suppress(account_id, Suppression(address=address, reason=reason, detail=note, at=now))
    return f"{reason}{' and suppressed' if suppress else ''}: {len(recipients)} address(es)"
