"""The panel's catalog forms: each kind's fields, rendered from an element and read back from a
submitted form as the element a catalog file would hold. HTTP-free and pure.

Reading a form does not validate: a blank field is left out (the file's default applies), a
number that is not one stays text, so the catalog file's own validation (webstore.admin.catalog)
names the mistake with the very message `webstore import` prints. Dotted names are nested
fields (`discount.percentage`); a package's commands are rows `commands.{n}.{field}`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from webstore.catalog import CommandTrigger
from webstore.html import Markup, fragment

Kind = Literal["text", "textarea", "number", "decimal", "checkbox", "select", "list", "datetime", "color"]
Choices = Sequence[tuple[str, str]]  # (value, label)


@dataclass(frozen=True)
class FormField:
    name: str  # the element's field; dotted for a nested one
    label: str
    kind: Kind = "text"
    choices: Choices = ()  # select: fixed choices (dynamic ones: `render_form(options=...)`)
    hint: str = ""
    create_only: bool = False  # shown when creating only (a gift card's balance belongs to players)
    default: str = ""  # a select's choice when the element has none (the file's default)
    # A select whose values are numbers in the model (a coupon's `discount_application_method`
    # is `Literal[0, 1, 2]`, which takes the number 0, not the text "0"): read back as a number.
    numeric: bool = False


def _pairs(*values: str) -> Choices:
    return tuple((v, v) for v in values)


def _effective(default: str) -> tuple[FormField, ...]:
    """What a sale or coupon applies to, and its discount (a coupon's default: the basket)."""
    return (
        FormField(
            "effective.type",
            "Applies to",
            "select",
            _pairs("all", "package", "category", "cart"),
            default=default,
        ),
        *EFFECTIVE,
    )


EFFECTIVE = (
    FormField("effective.packages", "Package ids", "list", hint="comma separated"),
    FormField("effective.categories", "Category ids", "list", hint="comma separated"),
    FormField("discount.type", "Discount type", "select", _pairs("percentage", "value")),
    FormField("discount.percentage", "Percentage", "decimal"),
    FormField("discount.value", "Amount off", "decimal"),
)

FORMS: dict[str, tuple[FormField, ...]] = {
    "category": (
        FormField("name", "Name"),
        FormField("slug", "Slug", hint="lowercase letters, digits, - and _"),
        FormField("parent_id", "Parent category", "select"),
        FormField("order", "Order", "number"),
        FormField("tiered", "Tiered (one package at a time: upgrades pay the difference)", "checkbox"),
        FormField("dynamic", "Dynamic (offers made per player)", "checkbox"),
        FormField("display_type", "Display", "select", _pairs("list", "grid")),
        FormField("image_url", "Image URL"),
        FormField("description", "Description (HTML)", "textarea"),
    ),
    "package": (
        FormField("name", "Name"),
        FormField("category_id", "Category", "select"),
        FormField("price", "Price", "decimal"),
        FormField("type", "Type", "select", _pairs("single", "subscription")),
        FormField("expiry_length", "Period length (subscriptions; 0: none)", "number"),
        FormField("expiry_period", "Period", "select", _pairs("day", "month", "year"), default="month"),
        FormField("slug", "Slug"),
        FormField("image", "Image URL"),
        FormField("order", "Order", "number"),
        FormField("user_limit", "Purchases per player (0: no limit)", "number"),
        FormField("expiration_date", "Off sale after (UTC)", "datetime"),
        FormField("variables", "Variables", "list", hint="comma separated"),
        FormField("options", "Options", "list", hint="comma separated"),
        FormField("disabled", "Disabled (off sale)", "checkbox"),
        FormField("disable_quantity", "No quantity", "checkbox"),
        FormField("disable_gifting", "No gifting", "checkbox"),
        FormField("description", "Description (HTML)", "textarea"),
    ),
    "page": (
        FormField("title", "Title"),
        FormField("slug", "Slug"),
        FormField("content", "Content (HTML)", "textarea"),
        FormField("private", "Private", "checkbox"),
        FormField("hidden", "Hidden", "checkbox"),
        FormField("disabled", "Disabled", "checkbox"),
        FormField("sequence", "Sequence", "checkbox"),
    ),
    "coupon": (
        FormField("code", "Code"),
        *_effective("cart"),
        FormField("minimum", "Minimum basket", "decimal"),
        FormField("basket_type", "Baskets", "select", _pairs("both", "single", "subscription")),
        FormField(
            "discount_application_method",
            "Applied to",
            "select",
            (("0", "each package"), ("1", "the basket before sales"), ("2", "the basket after sales")),
            numeric=True,
        ),
        FormField("redeem_unlimited", "Unlimited redemptions", "checkbox"),
        FormField("expire_limit", "Redemptions in all (when limited)", "number"),
        FormField("user_limit", "Redemptions per player (0: no limit)", "number"),
        FormField("expire_never", "Never expires", "checkbox"),
        FormField("start_date", "Valid from (UTC)", "datetime"),
        FormField("expire_date", "Expires (UTC)", "datetime"),
        FormField("username", "Only for player"),
        FormField("note", "Note"),
    ),
    "gift_card": (
        FormField("card_number", "Card number"),
        FormField("balance", "Balance", "decimal", create_only=True),
        FormField("currency", "Currency"),
        FormField("expires_at", "Expires (UTC)", "datetime"),
        FormField("note", "Note"),
        FormField("void", "Void", "checkbox"),
    ),
    "sale": (
        FormField("name", "Name"),
        *_effective("all"),
        FormField("start", "Starts (UTC)", "datetime"),
        FormField("expire", "Ends (UTC)", "datetime"),
        FormField("order", "Order", "number"),
    ),
    "goal": (
        FormField("name", "Name"),
        FormField("target", "Target", "decimal"),
        FormField("repeatable", "Repeatable", "checkbox"),
        FormField("status", "Status", "select", _pairs("active", "completed", "disabled")),
        FormField("sale", "Sale id when reached (0: none)", "number"),
        FormField("image", "Image URL"),
        FormField("description", "Description (HTML)", "textarea"),
    ),
    "store": (
        FormField("name", "Store name"),
        FormField("currency", "Currency", hint="ISO 4217, e.g. USD"),
        FormField("webstore_url", "Store website URL"),
        FormField("logo", "Logo URL"),
        FormField("primary_color", "Primary colour", "color", hint="#rrggbb"),
        FormField("accent_color", "Accent colour", "color", hint="#rrggbb"),
        FormField("seller.legal_name", "Seller's legal name", hint="as on your invoices"),
        FormField("seller.address", "Seller's address", "textarea"),
        FormField("seller.country", "Seller's country", hint="two letters, e.g. FR"),
        FormField("seller.tax_number", "Seller's tax number", hint="VAT ID, e.g. FR12345678901"),
        FormField("allowed_return_hosts", "Return hosts", "list", hint="comma separated host names"),
        FormField("basket_ttl_seconds", "Basket lifetime (seconds)", "number"),
        FormField("renewal_retry_days", "Renewal retry days", "list", hint="e.g. 1, 3, 5"),
        FormField("terms_url", "Terms URL"),
        FormField("refund_policy_url", "Refund policy URL"),
        FormField("lang", "Language"),
        FormField("online_mode", "Online mode (Mojang accounts)", "checkbox"),
        FormField("bedrock_prefix", "Bedrock name prefix", hint="Floodgate's username-prefix, e.g. . or BE_"),
        FormField("bedrock_unprefixed", "Bedrock players join without a prefix", "checkbox"),
        FormField("supports_usernames", "Players give a username", "checkbox"),
        FormField("supports_gifting", "Gifting", "checkbox"),
        FormField("emit_basket_abandoned", "Emit basket.abandoned", "checkbox"),
        FormField("log_events", "Log events", "checkbox"),
        FormField("disabled", "Store closed", "checkbox"),
        FormField("description", "Description (HTML)", "textarea"),
    ),
    "sidebar": (
        FormField(
            "type",
            "Module",
            "select",
            _pairs(
                "textbox",
                "featured_package",
                "community_goal",
                "payment_goal",
                "recent_payments",
                "top_customer",
                "giftcard_balance",
                "server_status",
            ),
        ),
        FormField("title", "Title"),
        FormField("order", "Order", "number"),
        FormField("settings", "Settings", "textarea", hint="one name=value a line, e.g. package_id=11"),
    ),
}

# Fields a new element's form shows that are not the element's: they go with the edit (a new
# gift card's recipient and message: its delivery e-mail, `catalog_element_pages`).
ALONGSIDE: dict[str, tuple[FormField, ...]] = {
    "gift_card": (
        FormField("email", "Send it to (e-mail)", hint="optional: the card is e-mailed there once"),
        FormField("message", "Message", "textarea", hint="optional: said in that e-mail"),
    ),
}

COMMAND_FIELDS = ("server_id", "command", "trigger", "require_online", "delay", "slots")
TRIGGERS = tuple(t.value for t in CommandTrigger)
BLANK_COMMAND_ROWS = 2
MAX_COMMAND_ROWS = 60
_ROW = re.compile(r"^commands\.([0-9]{1,3})\.([a-z_]+)$")


def covered(kind: str) -> frozenset[str]:
    """The element's top-level fields the kind's form shows (an edit keeps the others: a
    package's media set in a file survive an edit of its price)."""
    names = {f.name.split(".", 1)[0] for f in FORMS[kind]}
    return frozenset(names | ({"commands"} if kind == "package" else set()))


# --- reading a submitted form -----------------------------------------------------------------


def read_form(kind: str, form: Mapping[str, str], *, creating: bool) -> dict[str, Any]:
    """The element a catalog file would hold, from the submitted fields (not validated)."""
    values: dict[str, Any] = {}
    for field in FORMS[kind]:
        if field.create_only and not creating:
            continue
        value = _read(field, form.get(field.name))
        if value is not None:
            _put(values, field.name, value)
    if kind == "package":
        values["commands"] = read_commands(form)
    return values


def _read(field: FormField, raw: str | None) -> Any:
    if field.kind == "checkbox":
        return raw is not None and raw not in ("", "0", "false", "off")
    text = (raw or "").strip()
    if not text:
        return None
    if field.kind == "list":
        return [part.strip() for part in re.split(r"[,\n]", text) if part.strip()]
    if field.kind == "number" or field.numeric:
        return int(text) if re.fullmatch(r"-?[0-9]{1,12}", text) else text
    if field.kind == "datetime":
        # <input type=datetime-local> has no zone: the panel's times are UTC.
        return text if re.search(r"(Z|[+-][0-9]{2}:?[0-9]{2})$", text) else text + "Z"
    if field.name == "settings":
        return _settings(text)
    return text


def _settings(text: str) -> dict[str, Any]:
    """A sidebar module's `name=value` lines; a line that does not start with a name (`content`'s
    HTML going on) continues the value above. Whole numbers become numbers."""
    found: dict[str, Any] = {}
    last: str | None = None
    for line in text.splitlines():
        match = re.match(r"^\s*([a-z_]{1,40})\s*=(.*)$", line)
        if match:
            last = match.group(1)
            found[last] = match.group(2).strip()
        elif last is not None:
            found[last] = f"{found[last]}\n{line}"
    return {k: int(v) if re.fullmatch(r"-?[0-9]{1,12}", v) else v for k, v in found.items()}


def _put(values: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    node = values
    for part in parents:
        node = node.setdefault(part, {})
    node[last] = value


def read_commands(form: Mapping[str, str]) -> list[dict[str, Any]]:
    """The command rows that have a command, in row order (blank rows are the form's spares)."""
    rows: dict[int, dict[str, str]] = {}
    for name, value in form.items():
        match = _ROW.match(name)
        if match and match.group(2) in COMMAND_FIELDS and int(match.group(1)) < MAX_COMMAND_ROWS:
            rows.setdefault(int(match.group(1)), {})[match.group(2)] = value
    commands = []
    for _, row in sorted(rows.items()):
        if not row.get("command", "").strip():
            continue
        command: dict[str, Any] = {
            "command": row["command"].strip(),
            "require_online": row.get("require_online", "") not in ("", "0", "false", "off"),
        }
        for name in ("server_id", "delay", "slots"):
            text = row.get(name, "").strip()
            if text:
                command[name] = int(text) if text.isdigit() else text
        if row.get("trigger", "").strip():
            command["trigger"] = row["trigger"].strip()
        commands.append(command)
    return commands


# --- rendering ------------------------------------------------------------------------------


def form_values(element: Mapping[str, Any]) -> dict[str, str]:
    """An element (its catalog file JSON) as the form's field values."""
    flat: dict[str, str] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict) and prefix != "settings":
            for name, inner in value.items():
                walk(f"{prefix}.{name}" if prefix else name, inner)
        elif isinstance(value, dict):
            flat[prefix] = "\n".join(f"{k}={'' if v is None else v}" for k, v in value.items())
        elif isinstance(value, list) and prefix == "commands":
            for n, command in enumerate(value):
                for name, inner in command.items():
                    flat[f"commands.{n}.{name}"] = _text(inner)
        elif isinstance(value, list):
            flat[prefix] = ", ".join(str(v) for v in value)
        else:
            flat[prefix] = _text(value)

    walk("", dict(element))
    return flat


def _text(value: Any) -> str:
    if value is True:
        return "on"
    if value is None or value is False:
        return ""
    return str(value)


Option = tuple[str, str, bool]  # a select's (value, label, selected)


@dataclass(frozen=True)
class FieldView:
    """One field as its form shows it (templates/panel/catalog/macros.html `field`)."""

    ident: str
    name: str
    label: str
    kind: Kind
    value: str  # as the control shows it (a time without its zone)
    hint: str = ""
    options: tuple[Option, ...] = ()  # a select's


@dataclass(frozen=True)
class CommandRow:
    """One row of a package's commands (`command_rows`)."""

    prefix: str  # commands.<n>
    n: int
    servers: tuple[Option, ...]
    triggers: tuple[Option, ...]
    command: str
    online: bool
    delay: str
    slots: str


def render_fields(
    kind: str,
    values: Mapping[str, str],
    *,
    creating: bool,
    options: Mapping[str, Choices] | None = None,
) -> Markup:
    """The kind's fields filled with `values`; `options`: choices of the dynamic selects
    (a package's category, a category's parent, a command's server)."""
    views = [
        field_view(field, values, (options or {}).get(field.name, field.choices))
        for field in FORMS[kind]
        if creating or not field.create_only
    ]
    if creating:
        views.extend(field_view(field, values, ()) for field in ALONGSIDE.get(kind, ()))
    commands = command_rows(values, (options or {}).get("server_id", ())) if kind == "package" else None
    return fragment("panel/catalog/fields.html", fields=views, commands=commands)


def field_view(field: FormField, values: Mapping[str, str], choices: Choices) -> FieldView:
    value = values.get(field.name, "") or field.default
    if field.kind == "datetime":
        value = value.removesuffix("Z").removesuffix("+00:00")[:16]
    options = _options(value, choices, blank=field.name in ("parent_id",)) if field.kind == "select" else ()
    ident = "f-" + field.name.replace(".", "-")
    return FieldView(ident, field.name, field.label, field.kind, value, field.hint, options)


def _options(value: str, choices: Choices, *, blank: bool = False) -> tuple[Option, ...]:
    """A select's options; a value the choices lack (e.g. a removed server) is kept visible."""
    options: list[Option] = [("", "(none)", False)] if blank else []
    if value and value not in {v for v, _ in choices}:
        options.append((value, value, True))
    options.extend((choice, label, choice == value) for choice, label in choices)
    return tuple(options)


def command_rows(values: Mapping[str, str], servers: Choices) -> list[CommandRow]:
    """The package's commands, one row each (server, trigger, command, online, delay, slots), and
    spare blank rows to add more."""
    used = sorted({int(m.group(1)) for n in values if (m := _ROW.match(n))})
    first_spare = used[-1] + 1 if used else 0
    rows = []
    for n in [*used, *range(first_spare, first_spare + BLANK_COMMAND_ROWS)]:
        prefix = f"commands.{n}"

        def get(field: str, prefix: str = prefix) -> str:
            return values.get(f"{prefix}.{field}", "")

        rows.append(
            CommandRow(
                prefix=prefix,
                n=n,
                servers=_options(get("server_id"), servers),
                triggers=_options(get("trigger") or "purchase", _pairs(*TRIGGERS)),
                command=get("command"),
                online=bool(get("require_online")),
                delay=get("delay"),
                slots=get("slots"),
            )
        )
    return rows
