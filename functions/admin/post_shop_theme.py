"""POST /shop/theme — import a theme file: its templates published, every other file the house's.

The form uploads the file (`multipart/form-data`, field `theme`); a form-encoded `theme` field
holding the file's text is read the same way. The CSRF field is checked as on every panel form.
"""

from email.parser import BytesParser
from email.policy import HTTP
from typing import Annotated

from fastapi import Depends, Request
from fastapi.responses import Response

from functions.admin_deps import StaffDep, form
from functions.deps import ServicesDep
from functions.forms import form_fields
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import shop_pages
from webstore.admin.roles import Capability
from webstore.admin.sessions import CsrfRefused, csrf_matches

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/shop/theme",
    "importShopTheme",
    WRITE,
    "Import a shop theme file: its templates published, the others the house's (form post)",
    html=True,
    capability=Capability.SETTINGS_WRITE,
)

MAX_BODY = 1_000_000  # a theme file (at most 700,000 characters) and the form around it


def multipart_fields(content_type: str, body: bytes) -> dict[str, str]:
    """The text of each part of a `multipart/form-data` body, by field name (first wins)."""
    message = BytesParser(policy=HTTP).parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode() + body)
    fields: dict[str, str] = {}
    if not message.is_multipart():
        return fields
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        if isinstance(name, str) and isinstance(payload, bytes) and name not in fields:
            fields[name] = payload.decode("utf-8", errors="replace")
    return fields


async def upload(request: Request, session: StaffDep) -> dict[str, str]:
    content_type = request.headers.get("content-type", "")
    if content_type.startswith("multipart/form-data"):
        body = await request.body()
        fields = multipart_fields(content_type, body) if len(body) <= MAX_BODY else {}
    else:
        fields = await form_fields(request)
    if not csrf_matches(session, fields.pop("csrf", None)):
        raise CsrfRefused()
    return fields


UploadDep = Annotated[dict[str, str], Depends(upload)]


async def endpoint(svc: ServicesDep, session: StaffDep, fields: UploadDep) -> Response:
    return form(
        session,
        lambda: shop_pages.import_action(
            svc, session.account_id, fields.get("theme", ""), actor=session.email, now=svc.now()
        ),
        lambda error: shop_pages.overview(
            svc, session.account_id, csrf=lambda: session.csrf_token, import_error=error.detail
        ),
    )


handler = lambda_handler(ROUTE, endpoint)
