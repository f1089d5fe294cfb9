"""The panel's first-sign-in setup (`/setup`): a few pages that take a new store from empty to
something to sell: a first category, a first package with the command it runs, the game server
(its name, the plugin's URL), the shop's look. Each step is a form whose one write is the same
use case the panel's own page for it calls (the catalog's `save_element`, the servers'
`rename_server`/`create_server`, the shop look's `save_look`): the setup is no third way to
change a store, and a refusal is the message those pages give, with the form as typed.

Signing in opens it (`landing`) for a member who may do all its steps (owner, admin) while the
store has no package and the setup is neither finished nor skipped. Every step can be skipped,
and so can the whole setup; it resumes at the first step not yet passed (repo.setup keeps which
were, and how it ended), and Go live's "Start here" links back to it while the store has no
package.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from urllib.parse import urlencode

from webstore.admin import catalog as edits
from webstore.admin import servers as server_cases
from webstore.admin.catalog_forms import FORMS, command_rows, covered, field_view, read_form
from webstore.admin.catalog_pages import revision_of
from webstore.admin.flow import NONE_TYPED, PanelPage, actor, done_at
from webstore.admin.roles import Capability, Role, allowed, require
from webstore.admin.server_pages import secret_page
from webstore.admin.sessions import StaffSession
from webstore.errors import DomainError, Invalid, NotFound
from webstore.html import fragment
from webstore.repo import start_read
from webstore.repo.account import AccountRepository
from webstore.repo.catalog_lists import CatalogLists
from webstore.repo.definitions import DefinitionRepository
from webstore.repo.setup import SetupProgress, SetupRepository
from webstore.repo.shop_theme import ShopThemeRepository
from webstore.repo.store import StoreRepository
from webstore.services import Services
from webstore.shop import look as shop_look

PATH = "/setup"
STEPS = ("category", "package", "server", "look")
TITLES = {
    "category": "A first category",
    "package": "A first package",
    "server": "Your game server",
    "look": "The shop's look",
}
# What each step needs beyond the route's own capability (catalog:write).
NEEDS = {
    "category": Capability.CATALOG_WRITE,
    "package": Capability.CATALOG_WRITE,
    "server": Capability.SERVERS_WRITE,
    "look": Capability.SETTINGS_WRITE,
}
# The package's fields the setup asks for (the rest keep the catalog file's defaults).
PACKAGE_FIELDS = ("name", "category_id", "price")
CATEGORY_FIELDS = ("name", "description")
LOOK_FIELDS = ("logo", "primary_color", "accent_color", "hero_text")
FINISHED = "Setup done: next, connect Stripe (below) and set your legal details"
SKIPPED = "Setup skipped: Go live's Start here takes you back to it"


def may_set_up(role: Role) -> bool:
    """Whether a member of `role` may do every step (owner, admin)."""
    return all(allowed(role, capability) for capability in NEEDS.values())


def landing(services: Services, account_id: int, role: Role, location: str) -> str:
    """Where sign-in goes: the setup instead of the dashboard while the store has no package
    and its setup is open, for a member who may do it; else `location`. Round trips: one (the
    package probe and the setup item side by side), none for another role or another page."""
    if location != "/" or not may_set_up(role):
        return location
    progress = start_read(SetupRepository(services.table).progress, account_id)
    has_packages = StoreRepository(services.table).has_packages(account_id)
    return PATH if not has_packages and not progress.result().closed else location


def resume_at(progress: SetupProgress) -> str:
    """The first step not yet passed (the last one when all were)."""
    return next((step for step in STEPS if step not in progress.steps), STEPS[-1])


def _step(step: str) -> str:
    if step not in STEPS:
        raise NotFound(f"No setup step {step[:40]!r}: the steps are {', '.join(STEPS)}")
    return step


def setup_page(
    services: Services,
    session: StaffSession,
    step: str | None,
    *,
    typed: Mapping[str, str] = NONE_TYPED,
    error: DomainError | None = None,
) -> PanelPage:
    """One step's page (`step` None: where the setup resumes), with what was typed and why it
    was refused after a refusal. Reads, side by side (one round trip): the setup's progress,
    the catalog revision, and what the step's form shows (categories, servers, the look)."""
    account_id = session.account_id
    revision_read = start_read(DefinitionRepository(services.table).revision, account_id)
    categories_read = start_read(CatalogLists(services.table).categories, account_id)
    servers_read = start_read(AccountRepository(services.table).servers, account_id)
    look_read = start_read(ShopThemeRepository(services.table).live, account_id)
    # Consistent: the page a step's form redirects to sees the step passed.
    progress = SetupRepository(services.table).progress(account_id, consistent=True)
    current = _step(step) if step else resume_at(progress)
    categories = categories_read.result()
    servers = sorted(servers_read.result().values(), key=lambda s: s.id)
    live = look_read.result()
    values: dict[str, str] = dict(typed)
    if current == "package" and not typed:
        values = {"category_id": str(categories[-1].id) if categories else ""}
        if servers:
            values["commands.0.server_id"] = str(servers[0].id)
    elif current == "server" and not typed:
        values = {"name": servers[0].name} if servers else {}
    elif current == "look" and not typed:
        values = {name: str(getattr(live.look, name)) for name in LOOK_FIELDS}
    category_choices = [(str(c.id), f"{c.name} (#{c.id})") for c in categories]
    server_choices = [(str(s.id), f"{s.name} (#{s.id})") for s in servers]
    kind = {"category": "category", "package": "package"}.get(current)
    wanted = CATEGORY_FIELDS if current == "category" else PACKAGE_FIELDS
    fields = (
        [
            field_view(f, values, {"category_id": category_choices}.get(f.name, f.choices))
            for f in FORMS[kind]
            if f.name in wanted
        ]
        if kind
        else []
    )
    body = fragment(
        "panel/setup/page.html",
        steps=[(s, TITLES[s], progress.steps.get(s, "")) for s in STEPS],
        step=current,
        number=STEPS.index(current) + 1,
        title=TITLES[current],
        csrf=session.csrf_token,
        revision=typed.get("revision", "")
        or str(live.revision if current == "look" else revision_read.result()),
        fields=fields,
        commands=command_rows(values, server_choices)[:1] if current == "package" else [],
        servers=servers,
        server_name=values.get("name", ""),
        plugin_url=services.settings.operator_url,
        shop_url=services.settings.shop_url,
        look={name: values.get(name, "") for name in LOOK_FIELDS},
        error=error.detail if error else "",
    )
    return PanelPage(f"Set up: {TITLES[current]}", body, "golive")


def save_action(
    services: Services, session: StaffSession, step: str, form: Mapping[str, str], *, now: datetime
) -> str | PanelPage:
    """One step's form: its one write (the use case of the panel's own page for it), then the
    next step. `skip=step` passes the step without writing; `skip=setup` leaves the setup."""
    step = _step(step)
    require(session, NEEDS[step])
    account_id = session.account_id
    setups = SetupRepository(services.table)
    skip = form.get("skip", "")
    if skip == "setup":
        setups.close(account_id, "skipped", now)
        return done_at("/go-live", SKIPPED)
    if skip == "step":
        setups.pass_step(account_id, step, "skipped", now)
        return _after(services, account_id, step, now, "Skipped")
    if skip:
        raise Invalid("skip must be step or setup", field="skip")
    issued = None
    if step in ("category", "package"):
        fields = CATEGORY_FIELDS if step == "category" else PACKAGE_FIELDS
        kept = {k: v for k, v in form.items() if k in fields or k.startswith("commands.0.")}
        edits.save_element(
            services,
            account_id,
            step,
            None,
            read_form(step, kept, creating=True),
            actor=session.email,
            revision=revision_of(dict(form)),
            now=now,
            covers=covered(step),
        )
    elif step == "server":
        name = form.get("name", "")
        server_id = form.get("server_id", "")
        if server_id.isascii() and server_id.isdigit():
            server_cases.rename_server(
                services, account_id, int(server_id), name, actor=actor(session), now=now
            )
        else:
            issued = server_cases.create_server(services, account_id, name, actor=actor(session), now=now)
    else:
        live = ShopThemeRepository(services.table).live(account_id)
        look = {k: str(v) for k, v in live.look.model_dump().items()}  # the fields Shop → Look has
        look.update({k: form.get(k, "") for k in LOOK_FIELDS})
        seen = form.get("revision", "")
        if not (seen.isascii() and seen.isdigit()):
            raise Invalid("revision is missing: reload the page", field="revision")
        shop_look.save_look(services, account_id, look, seen_revision=int(seen), actor=session.email, now=now)
    setups.pass_step(account_id, step, "done", now)
    where = _after(services, account_id, step, now, "Saved")
    if issued is not None:
        return secret_page(
            "Server secret",
            f"Server {issued.server_id} added: its secret (the plugin's config needs it)",
            issued.secret,
            href=where,
            section="golive",
        )
    return where


def _after(services: Services, account_id: int, step: str, now: datetime, message: str) -> str:
    """The next step's page, or Go live once the last step is passed (the setup finished)."""
    index = STEPS.index(step)
    if index + 1 < len(STEPS):
        return f"{PATH}?{urlencode({'step': STEPS[index + 1], 'done': message})}"
    SetupRepository(services.table).close(account_id, "finished", now)
    return done_at("/go-live", FINISHED)
