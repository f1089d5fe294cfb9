"""Coupons as the operator manages them: a cursor-paged list, one by id or code, create
(with SPEC's field combinations checked by `new_coupon`, a pure rule), delete."""

from __future__ import annotations

import math
from datetime import datetime
from decimal import Decimal
from urllib.parse import urlencode

from webstore import keys
from webstore.catalog import Coupon, Discount, DiscountType, Effective
from webstore.catalog_diff import field_changes, summary
from webstore.catalog_rules import target_problems
from webstore.errors import Invalid, NotFound
from webstore.operator import schemas, views
from webstore.operator.client_times import parse_client_datetime
from webstore.operator.packages import OPERATOR
from webstore.repo import start_read
from webstore.repo.account import AccountRepository
from webstore.repo.sequences import SequenceRepository
from webstore.repo.store import StoreRepository, StoreView
from webstore.services import Services
from webstore.usernames import check_username

COUPONS_PER_PAGE = 25


def list_coupons(
    services: Services, account_id: int, page: int, after: int | None, before: int | None
) -> schemas.CouponList:
    """25 a page, in id order. The next/previous links carry a cursor (the last/first id shown),
    so following them is one Query whatever the page; the total comes from a counter."""
    if page < 1:
        raise Invalid("page must be at least 1", field="page")
    skip = COUPONS_PER_PAGE * (page - 1) if after is None and before is None else 0
    found = AccountRepository(services.table).coupon_page(
        account_id, COUPONS_PER_PAGE, after=after, before=before, skip=skip
    )
    coupons = found.coupons
    base = f"{services.settings.operator_url}/coupons?"
    next_url = (
        base + urlencode({"page": page + 1, "after": coupons[-1].id})
        if coupons and found.more_after
        else None
    )
    previous_url = (
        base + urlencode({"page": page - 1, "before": coupons[0].id}) if coupons and page > 1 else None
    )
    return schemas.CouponList(
        pagination=schemas.Pagination(
            totalResults=found.total,
            currentPage=page,
            lastPage=max(1, math.ceil(found.total / COUPONS_PER_PAGE)),
            previous=previous_url,
            next=next_url,
        ),
        data=[views.coupon_view(c) for c in coupons],
    )


def coupon_by_ref(services: Services, account_id: int, ref: str) -> Coupon:
    """A coupon by id (or, for convenience, by code)."""
    coupons = AccountRepository(services.table)
    if ref.isascii() and ref.isdigit() and 1 <= int(ref) <= keys.INT32_MAX:
        return coupons.coupon(account_id, int(ref))
    if not ref or len(ref) > 64:
        raise NotFound("Coupon not found")
    return coupons.coupon_by_code(account_id, ref)


def get_coupon(services: Services, account_id: int, ref: str) -> schemas.Coupon:
    return views.coupon_view(coupon_by_ref(services, account_id, ref))


def _date(value: str, field: str) -> datetime:
    """`yyyy-mm-dd` (MC) or ISO 8601 (BX sends `yyyy-MM-ddTHH:mm:ssX`)."""
    parsed = parse_client_datetime(value)
    if parsed is None:
        raise Invalid(f"{field} must be a date yyyy-mm-dd", field=field)
    return parsed


def _check_targets(body: schemas.CouponCreate, view: StoreView) -> None:
    """The one rule of what a coupon applies to (webstore.catalog_rules), named by this
    interface's fields: the first problem refused."""
    for field, index, message in target_problems(
        body.effective_on,
        body.packages,
        body.categories,
        package_exists=lambda i: view.package(i) is not None,
        category_exists=lambda i: view.category(i) is not None,
    ):
        where = field if index is None else f"{field}[{index}]"
        raise Invalid(f"{where}: {message}", field=field)


def _discount(body: schemas.CouponCreate) -> Discount:
    """The discount of the type asked. The plugins send both `discount_amount` and
    `discount_percentage` whatever the type (MC with the same value), so the one the type does
    not use is ignored."""
    if body.discount_type is DiscountType.PERCENTAGE:
        if not 0 < body.discount_percentage <= 100:
            raise Invalid(
                "discount_percentage must be 1 to 100 for a percentage discount", field="discount_percentage"
            )
        return Discount(type=body.discount_type, percentage=body.discount_percentage, value=Decimal(0))
    if body.discount_amount <= 0:
        raise Invalid("discount_amount must be more than 0 for a value discount", field="discount_amount")
    return Discount(type=body.discount_type, percentage=Decimal(0), value=body.discount_amount)


def _check_limits(body: schemas.CouponCreate) -> tuple[datetime | None, datetime | None]:
    """The redemption limit's combination; the start and expiry dates it gives."""
    if not body.redeem_unlimited and body.expire_limit < 1:
        raise Invalid("expire_limit must be at least 1 unless redeem_unlimited", field="expire_limit")
    if body.redeem_unlimited and body.expire_limit:
        raise Invalid("expire_limit is used only when redeem_unlimited is false", field="expire_limit")
    start = _date(body.start_date, "start_date") if body.start_date else None
    if body.expire_never:
        # SPEC: `expire_never` means "ignore expire_date". BuycraftX always sends a date (for a
        # never-expiring coupon the creation time plus a millisecond; for a limit-only one the
        # creation time), so one sent beside `expire_never` is ignored, as the platform does.
        return start, None
    if not body.expire_date:
        raise Invalid("expire_date is required unless expire_never", field="expire_date")
    expire = _date(body.expire_date, "expire_date")
    if start and expire <= start:
        raise Invalid("expire_date must be after start_date", field="expire_date")
    return start, expire


def new_coupon(body: schemas.CouponCreate, view: StoreView, coupon_id: int, now: datetime) -> Coupon:
    """Check the combinations SPEC describes; what a field is 'used only when' must not be
    sent otherwise (so a mistake is reported, not silently ignored), except the discount the
    type does not use (`_discount`). Pure."""
    _check_targets(body, view)
    discount = _discount(body)
    start, expire = _check_limits(body)
    username = check_username(body.username, "username", view.store) if body.username else None
    return Coupon(
        id=coupon_id,
        code=body.code.upper(),
        effective=Effective(type=body.effective_on, packages=body.packages, categories=body.categories),
        discount=discount,
        redeem_unlimited=body.redeem_unlimited,
        expire_never=body.expire_never,
        expire_limit=body.expire_limit,
        expire_date=expire,
        start_date=start,
        basket_type=body.basket_type,
        minimum=body.minimum,
        discount_application_method=body.discount_application_method,
        user_limit=body.user_limit,
        username=username,
        note=body.note,
        created_at=now,
    )


def create_coupon(services: Services, account_id: int, body: schemas.CouponCreate) -> schemas.Coupon:
    """The coupon under the next id, taken in its own transaction; the id sequence is read beside
    the catalog (one round trip), and a refused coupon spends no id."""
    ids_read = start_read(SequenceRepository(services.table).read, account_id)
    view = StoreRepository(services.table).catalog(account_id, with_packages=True)
    now = services.now()
    coupon = AccountRepository(services.table).create_coupon(
        account_id,
        lambda coupon_id: new_coupon(body, view, coupon_id, now),
        first_read=ids_read,
        audit=(OPERATOR, coupon_created),
    )
    return views.coupon_view(coupon)


def coupon_created(coupon: Coupon) -> str:
    """The audit entry of a new coupon: its fields that are not the defaults."""
    fields = coupon.model_dump(mode="json", exclude={"id", "created_at"}, exclude_defaults=True)
    return summary(f'coupon {coupon.id} "{coupon.code}"', ["created", *field_changes(None, fields)])


def delete_coupon(services: Services, account_id: int, ref: str) -> None:
    _delete(services, account_id, coupon_by_ref(services, account_id, ref))


def delete_coupon_by_code(services: Services, account_id: int, code: str) -> None:
    """By code only (a code of digits is a code here, not an id)."""
    if not code or len(code) > 64:
        raise NotFound("Coupon not found")
    _delete(services, account_id, AccountRepository(services.table).coupon_by_code(account_id, code))


def _delete(services: Services, account_id: int, coupon: Coupon) -> None:
    """With one more catalog revision and its audit entry, in one transaction."""
    said = summary(f'coupon {coupon.id} "{coupon.code}"', ["removed"])
    AccountRepository(services.table).delete_coupon(account_id, coupon, (OPERATOR, said, services.now()))
