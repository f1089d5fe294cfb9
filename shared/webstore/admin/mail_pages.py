"""Panel → E-mails (`/mail`): which messages are on, the sender's name and reply-to, and the log
of every message (recipient, kind, status, the provider's id) with "Send again" for one that
failed or whose outcome is unknown, and the addresses suppressed after a bounce or complaint,
each with "Send again to this address" (docs/mail.md). HTML from templates/panel/mail/.
"""

from __future__ import annotations

from collections.abc import Mapping
from email.utils import parseaddr

from webstore.admin.flow import NONE_TYPED, PanelPage, actor, done_at
from webstore.admin.layout import csrf_field
from webstore.admin.roles import Capability
from webstore.admin.sessions import StaffSession
from webstore.errors import Invalid, NotFound
from webstore.html import fragment
from webstore.mail.delivery import MailDispatcher
from webstore.mail.messages import MessageKind
from webstore.repo import start_read
from webstore.repo.audit_log import Audit
from webstore.repo.mail import MailRepository, MailSettings
from webstore.services import Services

SECTION = "mail"
PATH = "/mail"
MAX_NAME = 100
LOG_SIZE = 50


def mail_page(services: Services, session: StaffSession, typed: Mapping[str, str] = NONE_TYPED) -> PanelPage:
    """The settings form and the log: the settings GetItem beside the log's Query (and the
    session's read): one round trip."""
    repo = MailRepository(services.table)
    settings_read = start_read(repo.settings, session.account_id)
    suppressions_read = start_read(repo.suppressions, session.account_id)
    records = repo.log(session.account_id, LOG_SIZE)
    csrf = csrf_field(session) if session.may(Capability.SETTINGS_WRITE) else None
    settings = settings_read.result()
    if typed:
        enabled = {k.value for k in MessageKind if typed.get(f"on_{k.value}")}
        from_name, reply_to = typed.get("from_name", ""), typed.get("reply_to", "")
    else:
        enabled = {k.value for k in MessageKind if settings.enabled(k)}
        from_name, reply_to = settings.from_name, settings.reply_to
    body = fragment(
        "panel/mail/index.html",
        kinds=list(MessageKind),
        enabled=enabled,
        from_name=from_name,
        reply_to=reply_to,
        records=records,
        suppressions=suppressions_read.result(),
        csrf=csrf,
    )
    return PanelPage("E-mails", body, SECTION)


def save_settings(services: Services, session: StaffSession, form: Mapping[str, str]) -> str:
    """Validate and store the form (Invalid names the field); where to go next."""
    from_name = form.get("from_name", "").strip()
    reply_to = form.get("reply_to", "").strip()
    if len(from_name) > MAX_NAME or any(c in from_name for c in '\r\n<>"'):
        raise Invalid(f"From name: at most {MAX_NAME} characters, without line breaks, <, > or quotes")
    if reply_to and (len(reply_to) > 254 or parseaddr(reply_to)[1] != reply_to or "@" not in reply_to):
        raise Invalid("Reply-to: an e-mail address such as help@example.com, or empty")
    disabled = [k.value for k in MessageKind if not form.get(f"on_{k.value}")]
    repo = MailRepository(services.table)
    current = repo.settings(session.account_id)
    wanted = MailSettings(
        disabled=disabled,
        from_name=from_name,
        reply_to=reply_to,
        renewal_notice_days=current.renewal_notice_days,
    )
    audit = Audit(actor(session), "mail.settings", wanted.changes(current), services.now())
    repo.save_settings(session.account_id, wanted, audit)
    return done_at(PATH, "E-mail settings saved")


def resend(services: Services, session: StaffSession, event_id: str, kind: str) -> str:
    """ "Send again" of one message; NotFound when there is none to send again."""
    if kind not in {k.value for k in MessageKind}:
        raise Invalid(f"Unknown message kind {kind!r}")
    record = MailDispatcher(services).resend(session.account_id, event_id, kind)
    outcome = "sent" if record.status == "sent" else f"not sent ({record.error or record.status})"
    return done_at(PATH, f"Message to {record.recipient}: {outcome}")


def lift_suppression(services: Services, session: StaffSession, form: Mapping[str, str]) -> str:
    """Send to the form's `address` again (audited); NotFound when it is not suppressed."""
    address = form.get("address", "").strip()
    if not address or len(address) > 254:
        raise Invalid("Address: the suppressed address to send to again")
    audit = Audit(actor(session), "mail.suppression.lifted", address, services.now())
    if not MailRepository(services.table).lift(session.account_id, address, audit):
        raise NotFound(f"{address} is not suppressed")
    return done_at(PATH, f"E-mail to {address} is sent again")
