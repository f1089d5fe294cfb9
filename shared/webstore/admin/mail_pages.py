"""Panel → E-mails (`/mail`): which messages are on, the sender's name and reply-to, and the log
of every message (recipient, kind, status, the provider's id) with "Send again" for one that
failed or whose outcome is unknown, and the addresses suppressed after a bounce or complaint,
each with "Send again to this address" (docs/mail.md). HTML from templates/panel/mail/.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from email.utils import parseaddr
from pathlib import Path

from webstore.admin.flow import NONE_TYPED, PanelPage, actor, done_at
from webstore.admin.layout import csrf_field
from webstore.admin.roles import Capability
from webstore.admin.sessions import StaffSession
from webstore.errors import Invalid, NotFound
from webstore.html import fragment
from webstore.html.owner import OwnerTemplateError
from webstore.mail import MailNotSent, Message
from webstore.mail.compose import DEFAULT_ACCENT, SUBJECTS, Composed
from webstore.mail.delivery import MailDispatcher
from webstore.mail.messages import OWNER_KINDS, MessageKind
from webstore.mail.overrides import check, editable, render_override, sample_context
from webstore.repo import start_read
from webstore.repo.audit_log import Audit
from webstore.repo.mail import MailRepository, MailSettings, TemplateOverride
from webstore.repo.store import StoreRepository
from webstore.services import Services
from webstore.storefront.theme import brand

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
    overridden_read = start_read(repo.templates, session.account_id)
    records = repo.log(session.account_id, LOG_SIZE)
    csrf = csrf_field(session) if session.may(Capability.SETTINGS_WRITE) else None
    settings = settings_read.result()
    if typed:
        enabled = {k.value for k in OWNER_KINDS if typed.get(f"on_{k.value}")}
        from_name, reply_to = typed.get("from_name", ""), typed.get("reply_to", "")
    else:
        enabled = {k.value for k in OWNER_KINDS if settings.enabled(k)}
        from_name, reply_to = settings.from_name, settings.reply_to
    body = fragment(
        "panel/mail/index.html",
        kinds=list(OWNER_KINDS),
        enabled=enabled,
        from_name=from_name,
        reply_to=reply_to,
        records=records,
        suppressions=suppressions_read.result(),
        overridden=overridden_read.result(),
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
    disabled = [k.value for k in OWNER_KINDS if not form.get(f"on_{k.value}")]
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


# --- the owner's own templates (webstore.mail.overrides) -------------------------------------

STARTERS = Path(__file__).resolve().parent.parent / "mail" / "starters"


def _kind(kind: str) -> MessageKind:
    if not editable(kind):
        raise NotFound(f"No e-mail {kind!r} to edit")
    return MessageKind(kind)


def _typed_template(form: Mapping[str, str]) -> TemplateOverride:
    return TemplateOverride(
        subject=form.get("subject", ""), html=form.get("html", ""), text=form.get("text", "")
    )


def template_page(
    services: Services,
    session: StaffSession,
    kind: str,
    typed: Mapping[str, str] = NONE_TYPED,
    preview: Composed | None = None,
) -> PanelPage:
    """One message's editor: the owner's template (or a starter in the house's words), the
    variables it has with sample values, and a preview when one was asked for."""
    message = _kind(kind)
    repo = MailRepository(services.table)
    saved_read = start_read(repo.template, session.account_id, message.value)
    store = StoreRepository(services.table).store(session.account_id)
    csrf = csrf_field(session) if session.may(Capability.SETTINGS_WRITE) else None
    saved = saved_read.result()
    if typed:
        shown = _typed_template(typed)
    elif saved is not None:
        shown = saved
    else:
        starter = (STARTERS / f"{message.value}.html").read_text(encoding="utf-8")
        shown = TemplateOverride(subject=SUBJECTS[message] % {"store": "{{ store.name }}"}, html=starter)
    sample = sample_context(message.value, store, services.settings.storefront_url)
    body = fragment(
        "panel/mail/template.html",
        kind=message,
        template=shown,
        saved=saved,
        variables=json.dumps(sample, indent=2, ensure_ascii=False),
        preview=preview,
        csrf=csrf,
    )
    return PanelPage(f"E-mail: {message.label}", body, SECTION, store=store.name)


def _sample_message(
    services: Services, account_id: int, kind: MessageKind, form: Mapping[str, str]
) -> Composed:
    """The typed template, checked (Invalid naming the part and line), with the sample data."""
    store = StoreRepository(services.table).store(account_id)
    template = _typed_template(form)
    check(kind.value, template, store)
    sample = sample_context(kind.value, store, services.settings.storefront_url)
    frame = {"brand": brand(store), "store": store, "accent": store.primary_color or DEFAULT_ACCENT}
    try:
        rendered = render_override(kind.value, template, sample, frame=frame)
    except OwnerTemplateError as error:  # checked above; a budget passed on a loaded machine
        raise Invalid(str(error)) from error
    return Composed(rendered.subject, rendered.html, rendered.text)


def save_template(services: Services, session: StaffSession, kind: str, form: Mapping[str, str]) -> str:
    """Check and store the typed template (Invalid: nothing saved)."""
    message = _kind(kind)
    _sample_message(services, session.account_id, message, form)
    repo = MailRepository(services.table)
    current = repo.template(session.account_id, message.value)
    now = services.now()
    wanted = _typed_template(form).model_copy(
        update={"version": (current.version + 1) if current else 1, "saved_at": now, "actor": actor(session)}
    )
    audit = Audit(actor(session), "mail.template", f"{message.value}: version {wanted.version}", now)
    repo.save_template(session.account_id, message.value, wanted, audit)
    return done_at(f"{PATH}/templates/{message.value}", f"{message.label}: your template is saved")


def preview_template(
    services: Services, session: StaffSession, kind: str, form: Mapping[str, str]
) -> PanelPage:
    """The typed template with sample data (nothing saved)."""
    message = _kind(kind)
    composed = _sample_message(services, session.account_id, message, form)
    return template_page(services, session, kind, form, preview=composed)


def send_test(services: Services, session: StaffSession, kind: str, form: Mapping[str, str]) -> str:
    """The typed template with sample data, sent to the signed-in member's own address through
    the mail port (nothing saved)."""
    message = _kind(kind)
    composed = _sample_message(services, session.account_id, message, form)
    settings = MailRepository(services.table).settings(session.account_id)
    store = StoreRepository(services.table).store(session.account_id)
    to = session.email
    try:
        services.mail_sender().send(
            Message(
                to=to,
                from_address=services.settings.mail_from,
                from_name=settings.from_name or store.name,
                reply_to=settings.reply_to,
                subject=f"[Test] {composed.subject}",
                html=composed.html,
                text=composed.text,
                idempotency_key=f"test.{message.value}.{secrets.token_hex(8)}",
                tags={"account": str(session.account_id)},
            )
        )
    except MailNotSent as refusal:
        raise Invalid(f"The test was not sent: {refusal}") from refusal
    return done_at(f"{PATH}/templates/{message.value}", f"A test of {message.label} was sent to {to}")


def reset_template(services: Services, session: StaffSession, kind: str) -> str:
    """Back to the house's template (audited)."""
    message = _kind(kind)
    audit = Audit(actor(session), "mail.template", f"{message.value}: back to the default", services.now())
    MailRepository(services.table).save_template(session.account_id, message.value, None, audit)
    return done_at(f"{PATH}/templates/{message.value}", f"{message.label}: the default template is used")
