"""getBasketAuthUrl and the hosted auth page, through their Lambda handlers (moto)."""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import quote, urlencode

import pytest

from functions.storefront import get_auth_page, get_basket_auth_url, post_auth_page
from tests.integration.storefront.support import ACCOUNT, base
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.lambda_events import Response
from webstore.basket import Basket
from webstore.events import DomainEvent
from webstore.repo.baskets import BasketRepository
from webstore.repo.store import StoreRepository
from webstore.repo.users import UserRepository

RETURN = "http://localhost:3000/basket?step=2"
# Where the player lands: the return URL with `success=true` added, as the platform sends them
# back (the official headless starter finishes its log-in only when `?success` is there).
BACK = RETURN + "&success=true"
FORM = {"content-type": "application/x-www-form-urlencoded"}


def auth_link(invoke: Invoke, demo: DemoStore, ident: str, query: dict[str, str] | None) -> Response:
    return invoke(get_basket_auth_url.handler, "GET", f"{base(demo)}/baskets/{ident}/auth", query=query)


def submit(invoke: Invoke, ident: str, username: str, return_url: str = RETURN) -> Response:
    body = urlencode({"returnUrl": return_url, "username": username})
    return invoke(post_auth_page.handler, "POST", f"/auth/{ident}", raw_body=body, headers=FORM)


def stored(demo: DemoStore, ident: str) -> Basket:
    return BasketRepository(demo.table).get(ident)


# --- getBasketAuthUrl ---------------------------------------------------------------------


def test_auth_link_is_a_bare_array_pointing_at_the_hosted_page(
    demo: DemoStore, invoke: Invoke, make_basket: Callable[..., Basket]
) -> None:
    basket = make_basket()
    response = auth_link(invoke, demo, basket.ident, {"returnUrl": RETURN})
    assert response.status == 200
    assert response.headers["content-type"] == "application/json"
    assert response.json() == [
        {
            "name": "Minecraft",
            "url": f"https://shop.test/auth/{basket.ident}?returnUrl={quote(RETURN, safe='')}",
        }
    ]


@pytest.mark.parametrize(
    "return_url",
    [
        "http://127.0.0.1:5000/done",  # allowed_return_hosts
        "https://LOCALHOST/done",  # webstore_url's host, any scheme, case-insensitive
        "http://localhost.:3000/",  # trailing dot of a fully qualified name
    ],
)
def test_allowed_return_urls(
    demo: DemoStore, invoke: Invoke, make_basket: Callable[..., Basket], return_url: str
) -> None:
    assert auth_link(invoke, demo, make_basket().ident, {"returnUrl": return_url}).status == 200


@pytest.mark.parametrize(
    "return_url",
    [
        "",
        "javascript:alert(1)",
        "ftp://localhost/file",
        "https://evil.test/",
        "https://localhost.evil.test/",
        "//evil.test/path",
        "/relative/path",
        "http://localhost@evil.test/",
        "http://user:pw@localhost/",
        "http://evil.test\\@localhost/",
        "http://localhost/ spaced",
        "http://localhost:99999/",
        "http://l\u043ecalhost/",  # a Cyrillic o
        "http://localhost/" + "a" * 2048,
    ],
)
def test_refused_return_urls_name_the_field(
    demo: DemoStore, invoke: Invoke, make_basket: Callable[..., Basket], return_url: str
) -> None:
    response = auth_link(invoke, demo, make_basket().ident, {"returnUrl": return_url})
    assert response.status == 422
    body = response.json()
    assert body["field_details"][0]["field"] == "returnUrl"


def test_missing_return_url(demo: DemoStore, invoke: Invoke, make_basket: Callable[..., Basket]) -> None:
    response = auth_link(invoke, demo, make_basket().ident, None)
    assert response.status == 422
    assert "returnUrl" in response.json()["detail"]


def test_unknown_basket_or_store_is_422_on_this_operation(
    demo: DemoStore, invoke: Invoke, make_basket: Callable[..., Basket]
) -> None:
    unknown = auth_link(invoke, demo, "1-" + "0" * 32, {"returnUrl": RETURN})
    assert unknown.status == 422
    assert unknown.json()["detail"] == "Basket not found"
    garbled = auth_link(invoke, demo, "not-a-basket", {"returnUrl": RETURN})
    assert garbled.status == 422
    basket = make_basket()
    wrong_token = invoke(
        get_basket_auth_url.handler,
        "GET",
        f"/api/accounts/1-{'f' * 32}/baskets/{basket.ident}/auth",
        query={"returnUrl": RETURN},
    )
    assert wrong_token.status == 422
    assert wrong_token.json()["detail"] == "Store not found"


def test_complete_basket_gets_no_link(
    demo: DemoStore, invoke: Invoke, make_basket: Callable[..., Basket]
) -> None:
    response = auth_link(invoke, demo, make_basket(complete=True).ident, {"returnUrl": RETURN})
    assert response.status == 422


# --- the hosted page ----------------------------------------------------------------------


def test_page_renders_an_accessible_form_with_a_strict_policy(
    demo: DemoStore, invoke: Invoke, make_basket: Callable[..., Basket]
) -> None:
    basket = make_basket()
    response = invoke(get_auth_page.handler, "GET", f"/auth/{basket.ident}", query={"returnUrl": RETURN})
    assert response.status == 200
    assert response.headers["content-type"].startswith("text/html")
    csp = response.headers["content-security-policy"]
    assert "default-src 'none'" in csp
    assert "form-action 'self' http://localhost:3000;" in csp
    assert "script-src" not in csp and "unsafe-inline" not in csp
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["x-frame-options"] == "DENY"
    page = response.body
    assert '<label for="username">' in page and 'id="username"' in page
    assert '<form method="post">' in page
    assert "Demo Craft" in page
    # No external assets: the one image is the store's logo (its policy allows images), the
    # only links out are the return URL (the form's) and the way back to the store's site.
    assert re.findall(r'src="(http[^"]*)"', page) == re.findall(r'<img src="(http[^"]*)" alt=""', page)
    assert "<link" not in page and "<script" not in page
    assert set(re.findall(r'"(https?://[^"]*)"', page)) <= {
        RETURN.replace("&", "&amp;"),
        *logo_and_site(page),
    }
    site = StoreRepository(demo.table).store(ACCOUNT).webstore_url  # the way back: the store's site
    assert f'<a id="back-to-store" href="{site}">Back to Demo Craft</a>' in page


def logo_and_site(page: str) -> list[str]:
    return re.findall(r'<img src="(http[^"]*)"', page) + re.findall(
        r'id="back-to-store" href="([^"]*)"', page
    )


def test_page_escapes_what_it_echoes(
    demo: DemoStore, invoke: Invoke, make_basket: Callable[..., Basket]
) -> None:
    hostile = 'http://localhost:3000/x?a="><script>alert(1)</script>'
    basket = make_basket()
    page = invoke(get_auth_page.handler, "GET", f"/auth/{basket.ident}", query={"returnUrl": hostile}).body
    assert "<script>" not in page
    assert "&#34;&gt;&lt;script&gt;" in page
    refused = submit(invoke, basket.ident, "<b>bold</b>", hostile)
    assert refused.status == 422
    assert "<b>bold</b>" not in refused.body and "&lt;b&gt;bold&lt;/b&gt;" in refused.body


@pytest.mark.parametrize(
    ("ident", "query", "status"),
    [
        ("1-" + "0" * 32, {"returnUrl": RETURN}, 404),
        ("garbage", {"returnUrl": RETURN}, 404),
        (None, {"returnUrl": "https://evil.test/"}, 422),
        (None, {}, 422),
    ],
)
def test_page_explains_why_there_is_no_form(
    demo: DemoStore,
    invoke: Invoke,
    make_basket: Callable[..., Basket],
    ident: str | None,
    query: dict[str, str],
    status: int,
) -> None:
    response = invoke(get_auth_page.handler, "GET", f"/auth/{ident or make_basket().ident}", query=query)
    assert response.status == status
    assert response.headers["content-type"].startswith("text/html")
    assert "<form" not in response.body
    assert "form-action 'self';" in response.headers["content-security-policy"]


def test_submit_binds_the_player_publishes_and_redirects(
    demo: DemoStore, invoke: Invoke, make_basket: Callable[..., Basket], published: list[DomainEvent]
) -> None:
    basket = make_basket(custom={"discord": "steve#1", "ref": 3}, email="steve@example.test")
    response = submit(invoke, basket.ident, "Steve_1")
    assert response.status == 303
    assert response.headers["location"] == BACK
    user = UserRepository(demo.table).find("steve_1")
    assert user is not None
    after = stored(demo, basket.ident)
    assert (after.username, after.username_id) == ("Steve_1", user.id)
    assert after.version == basket.version + 1

    [event] = published
    assert event.type == "basket.authenticated"
    assert event.account_id == 1
    assert event.subject["ident"] == basket.ident
    assert event.subject["username"] == "Steve_1"
    assert event.subject["username_id"] == user.id
    assert event.subject["custom"] == {"discord": "steve#1", "ref": 3}
    assert event.subject["email"] == "steve@example.test"
    assert event.subject["customer"]["username"] == {"id": user.uuid, "username": "Steve_1"}


def test_the_same_player_again_is_idempotent_another_is_refused(
    demo: DemoStore, invoke: Invoke, make_basket: Callable[..., Basket], published: list[DomainEvent]
) -> None:
    basket = make_basket()
    assert submit(invoke, basket.ident, "Alex").status == 303
    first = stored(demo, basket.ident)
    again = submit(invoke, basket.ident, "alex")  # names are case-insensitive
    assert again.status == 303
    assert stored(demo, basket.ident).username_id == first.username_id
    assert [e.type for e in published] == ["basket.authenticated"] * 2
    other = submit(invoke, basket.ident, "Notch")
    assert other.status == 409
    assert "another player" in other.body
    assert stored(demo, basket.ident).username == "Alex"


@pytest.mark.parametrize("username", ["", "ab", "x" * 17, "bad name", "émile", "<b>"])
def test_bad_username_shows_the_form_again(
    demo: DemoStore,
    invoke: Invoke,
    make_basket: Callable[..., Basket],
    published: list[DomainEvent],
    username: str,
) -> None:
    basket = make_basket()
    response = submit(invoke, basket.ident, username)
    assert response.status == 422
    assert "location" not in response.headers
    assert 'role="alert"' in response.body and 'aria-invalid="true"' in response.body
    assert "3 to 16 letters" in response.body
    assert stored(demo, basket.ident).username_id is None
    assert published == []


def test_submit_rechecks_the_return_url(
    demo: DemoStore, invoke: Invoke, make_basket: Callable[..., Basket], published: list[DomainEvent]
) -> None:
    basket = make_basket()
    response = submit(invoke, basket.ident, "Steve", "https://evil.test/phish")
    assert response.status == 422
    assert "location" not in response.headers
    assert stored(demo, basket.ident).username_id is None
    assert published == []


def test_submit_on_a_paid_or_unknown_basket(
    demo: DemoStore, invoke: Invoke, make_basket: Callable[..., Basket], published: list[DomainEvent]
) -> None:
    paid = make_basket(complete=True)
    assert submit(invoke, paid.ident, "Steve").status == 409
    assert stored(demo, paid.ident).username is None
    assert submit(invoke, "1-" + "a" * 32, "Steve").status == 404
    assert published == []


def test_return_url_may_come_from_the_query_string(
    demo: DemoStore, invoke: Invoke, make_basket: Callable[..., Basket]
) -> None:
    basket = make_basket()
    response = invoke(
        post_auth_page.handler,
        "POST",
        f"/auth/{basket.ident}",
        raw_body="username=Jeb_",
        headers=FORM,
        query={"returnUrl": RETURN},
    )
    assert response.status == 303
    assert response.headers["location"] == BACK
