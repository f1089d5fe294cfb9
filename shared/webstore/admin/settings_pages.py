"""The store's settings page (`/settings`): the store section, its sidebar modules and its
payment gateways, read with the catalog revision (one round trip), and their three forms. Each
save is one call into the catalog claiming the revision; a refused one shows the page again
with that form as typed (webstore.admin.flow).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from string import Template

from webstore.admin import catalog as edits
from webstore.admin.catalog_forms import covered, form_values, read_form, render_fields
from webstore.admin.catalog_pages import FORM, revision_of, subnav
from webstore.admin.flow import PanelPage
from webstore.errors import DomainError, NotFound
from webstore.repo import start_read
from webstore.repo.definitions import DefinitionRepository
from webstore.repo.store import StoreRepository
from webstore.services import Services
from webstore.storefront.pages import Safe, escape, fill

_SIDEBAR_ROW = Template(
    '<form method="post" action="/settings/sidebar/$ref" class="sidebar-module">$csrf'
    '<input type="hidden" name="revision" value="$revision">'
    "<fieldset$disabled>$fields</fieldset>$buttons</form>"
)
_GATEWAYS = Template(
    '<form method="post" action="/settings/gateways" class="gateways">$csrf'
    '<input type="hidden" name="revision" value="$revision"><fieldset$disabled>'
    '<label for="g-pk">Stripe publishable key</label>'
    '<input id="g-pk" name="publishable_key" value="$publishable" autocomplete="off">'
    '<label for="g-sk">Stripe secret key</label>'
    '<input id="g-sk" type="password" name="secret_key" value="" autocomplete="new-password" '
    'placeholder="$secret_state">'
    '<label for="g-wh">Stripe webhook signing secret</label>'
    '<input id="g-wh" type="password" name="webhook_secret" value="" autocomplete="new-password" '
    'placeholder="$webhook_state">'
    '<small class="help">Secrets are never shown again: leave a field blank to keep the one the '
    "store has.</small>"
    '<label for="g-sb">Sandbox gateway</label><select id="g-sb" name="sandbox">$sandbox</select>'
    "</fieldset>$save</form>"
)


@dataclass(frozen=True)
class SettingsErrors:
    """Which form of the settings page was refused, with what was typed and the message."""

    form: str  # "store", "sidebar:<ref>", "gateways"
    message: str
    typed: dict[str, str]


def settings_page(
    services: Services,
    account_id: int,
    *,
    csrf: Safe,
    may_write: Callable[[], bool],
    refused: SettingsErrors | None = None,
    status: int = 200,
) -> PanelPage:
    """The store section, its sidebar and its gateways: the store item and the revision, read
    together (one round trip). Gateway secrets are write-only: never rendered, blank = keep."""
    revision_read = start_read(DefinitionRepository(services.table).revision, account_id)
    store = StoreRepository(services.table).store(account_id)
    revision = str(revision_read.result())
    can_write = may_write()  # asked once the page is read: the session is read beside it
    disabled = Safe("" if can_write else " disabled")
    save = Safe('<button type="submit">Save</button>' if can_write else "")

    def error_for(form: str) -> Safe:
        if refused is None or refused.form != form:
            return Safe("")
        return Safe(f'<p class="error" role="alert">{escape(refused.message)}</p>')

    def typed_or(form: str, values: dict[str, str]) -> dict[str, str]:
        return refused.typed if refused is not None and refused.form == form else values

    store_values = typed_or("store", form_values(store.model_dump(mode="json", exclude={"sidebar"})))
    settings_form = fill(
        FORM,
        error=error_for("store"),
        action="/settings",
        csrf=csrf,
        revision=revision,
        disabled=disabled,
        fields=render_fields("store", store_values, creating=False),
        save=save,
        delete=Safe(""),
    )
    modules = []
    for n, module in enumerate([*store.sidebar, None]):
        ref = "new" if module is None else str(n)
        if module is None and not can_write:
            continue
        values = typed_or(f"sidebar:{ref}", form_values(module.model_dump(mode="json")) if module else {})
        buttons = (
            Safe(
                '<button type="submit">'
                + ("Add module" if module is None else "Save")
                + "</button>"
                + (
                    '<button type="submit" name="delete" value="1" class="danger">Remove</button>'
                    if module
                    else ""
                )
            )
            if can_write
            else Safe("")
        )
        modules.append(
            error_for(f"sidebar:{ref}")
            + fill(
                _SIDEBAR_ROW,
                ref=ref,
                csrf=csrf,
                revision=revision,
                disabled=disabled,
                fields=render_fields("sidebar", values, creating=module is None),
                buttons=buttons,
            )
        )
    stripe = store.gateways.stripe
    sandbox = store.gateways.sandbox
    gateways = error_for("gateways") + fill(
        _GATEWAYS,
        csrf=csrf,
        revision=revision,
        disabled=disabled,
        publishable=(
            refused.typed.get("publishable_key", "") if refused and refused.form == "gateways" else ""
        )
        or (stripe.publishable_key if stripe else ""),
        secret_state="set: blank keeps it" if stripe else "not set",
        webhook_state="set: blank keeps it" if stripe else "not set",
        sandbox=Safe(
            "".join(
                f'<option value="{v}"{" selected" if current else ""}>{label}</option>'
                for v, label, current in (
                    ("", "the default for this stage", sandbox is None),
                    ("on", "allowed", sandbox is True),
                    ("off", "refused", sandbox is False),
                )
            )
        ),
        save=save,
    )
    body = Safe(
        subnav("settings")
        + "<h1>Store settings</h1>"
        + settings_form
        + "<h2>Sidebar modules</h2>"
        + "".join(modules)
        + "<h2>Payment gateways</h2>"
        + gateways
    )
    return PanelPage("Store settings", body, "settings", status)


def save_store_action(
    services: Services, account_id: int, form: dict[str, str], *, actor: str, now: datetime
) -> str:
    """The store section saved (one call into the catalog): back to the settings."""
    saved = edits.save_store_settings(
        services,
        account_id,
        read_form("store", form, creating=False),
        actor=actor,
        revision=revision_of(form),
        now=now,
        covers=covered("store"),
    )
    return settings_done(saved)


def save_sidebar_action(
    services: Services, account_id: int, ref: str, form: dict[str, str], *, actor: str, now: datetime
) -> str:
    """Add (`new`), replace or remove (`delete=1`) one sidebar module by its position."""
    if ref != "new" and not (ref.isascii() and ref.isdigit() and len(ref) <= 4):
        raise NotFound("No such sidebar module")
    position = None if ref == "new" else int(ref)
    values = None if form.get("delete") == "1" else read_form("sidebar", form, creating=position is None)
    saved = edits.save_sidebar_module(
        services, account_id, position, values, actor=actor, revision=revision_of(form), now=now
    )
    return settings_done(saved)


def save_gateways_action(
    services: Services, account_id: int, form: dict[str, str], *, actor: str, now: datetime
) -> str:
    saved = edits.save_gateways(
        services,
        account_id,
        publishable_key=form.get("publishable_key", ""),
        secret_key=form.get("secret_key", ""),
        webhook_secret=form.get("webhook_secret", ""),
        sandbox={"on": True, "off": False}.get(form.get("sandbox", "")),
        actor=actor,
        revision=revision_of(form),
        now=now,
    )
    return settings_done(saved)


def settings_done(saved: object) -> str:
    """Back to the settings, saying whether the save changed anything."""
    unchanged = isinstance(saved, edits.Saved) and saved.unchanged
    return "/settings?done=" + ("No+changes" if unchanged else "Saved")


def settings_again(
    services: Services, account_id: int, which: str, form: dict[str, str], error: DomainError, *, csrf: Safe
) -> PanelPage:
    """The settings page with the refused form (`which`: store, sidebar:<ref>, gateways) as
    typed and why. Secrets are never written back into a page, not even the ones just typed."""
    hidden = ("csrf", "revision", "delete", "secret_key", "webhook_secret")
    typed = {k: v for k, v in form.items() if k not in hidden}
    return settings_page(
        services,
        account_id,
        csrf=csrf,
        may_write=lambda: True,
        refused=SettingsErrors(which, error.detail, typed),
    )
