""" "Find my subscriptions" through the real handlers (moto: table, SES): the same answer for a
known and an unknown address, one mail with a one-time link for a known one, the link refused
when used, expired or tampered with, a bad address re-rendering the form, the form throttled."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode, urlsplit

import boto3
import pytest
import time_machine

from functions.storefront import (
    get_checkout_receipt,
    get_find_subscriptions_page,
    get_subscription_page,
    get_subscriptions_sign_in,
    submit_find_subscriptions_page,
)
from tests.support.cancellation import buy_subscription
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke, Response
from webstore.event_types import SIGN_IN_REQUESTED
from webstore.repo.mail import MailRepository, MailStatus
from webstore.services import get_services
from webstore.subscriptions import find_by_email
from webstore.subscriptions.manage_links import manage_url

from .conftest import REGION, SENDER_DOMAIN, MailQueue, published

EMAIL = "steve@example.com"
FORM = {"content-type": "application/x-www-form-urlencoded"}

Sent = Callable[[], list[Any]]


@pytest.fixture
def sent(ses: Sent, mail_queue: MailQueue) -> Sent:
    """The sign-in mails so far: the outbox's sign-in events delivered to the mail consumer (each
    once), then what SES (moto) was handed."""
    delivered: set[str] = set()

    def mails() -> list[Any]:
        events = [e for e in published(SIGN_IN_REQUESTED) if e.id not in delivered]
        for start in range(0, len(events), 10):
            assert mail_queue.deliver(events[start : start + 10]) == {"batchItemFailures": []}
        delivered.update(e.id for e in events)
        return ses()

    return mails


def ask(invoke: Invoke, demo: DemoStore, email: str) -> Response:
    return invoke(
        submit_find_subscriptions_page.handler,
        "POST",
        f"/subscriptions/find/{demo.token}",
        raw_body=urlencode({"email": email}),
        headers=FORM,
    )


def link_path(message: Any) -> str:
    found = re.search(r"https://shop\.test(/subscriptions/find/[^\s\"<]+)", message.body)
    assert found, message.body
    return found.group(1)


def open_link(invoke: Invoke, path: str) -> Response:
    return invoke(get_subscriptions_sign_in.handler, "GET", path)


def test_the_form_is_a_branded_page(invoke: Invoke, demo: DemoStore) -> None:
    page = invoke(get_find_subscriptions_page.handler, "GET", f"/subscriptions/find/{demo.token}")

    assert page.status == 200
    assert 'name="email"' in page.body and 'method="post"' in page.body


def test_a_known_address_gets_one_link_that_works_once(invoke: Invoke, demo: DemoStore, sent: Sent) -> None:
    bought = buy_subscription(invoke, demo, email=EMAIL)

    answer = ask(invoke, demo, "  Steve@Example.com ")

    assert answer.status == 200
    assert find_by_email.SENT in answer.body
    [message] = sent()
    assert message.destinations["ToAddresses"] == ["Steve@Example.com"]
    assert message.subject.startswith("Your sign-in link for ")
    path = link_path(message)

    page = open_link(invoke, path)
    assert page.status == 200, page.body
    assert bought.reference in page.body  # the receipt's transaction id
    assert "https://shop.test/subscriptions/" in page.body  # the subscription's manage link
    assert 'class="manage"' in page.body

    again = open_link(invoke, path)
    assert again.status == 410
    assert bought.reference not in again.body


def test_an_unknown_address_gets_the_same_answer_and_no_mail(
    invoke: Invoke, demo: DemoStore, sent: Sent
) -> None:
    buy_subscription(invoke, demo, email=EMAIL)

    known = ask(invoke, demo, EMAIL)
    unknown = ask(invoke, demo, "nobody@example.com")

    assert unknown.status == known.status == 200
    assert unknown.body == known.body
    assert len(sent()) == 1  # the known address's only


def test_a_link_expires_after_30_minutes(invoke: Invoke, demo: DemoStore, sent: Sent) -> None:
    buy_subscription(invoke, demo, email=EMAIL)
    ask(invoke, demo, EMAIL)
    [message] = sent()

    with time_machine.travel(get_services().now() + timedelta(minutes=31), tick=False):
        late = open_link(invoke, link_path(message))

    assert late.status == 410


def test_a_tampered_link_is_refused(invoke: Invoke, demo: DemoStore, sent: Sent) -> None:
    buy_subscription(invoke, demo, email=EMAIL)
    ask(invoke, demo, EMAIL)
    path = link_path(sent()[0])
    nonce, expires, mac = urlsplit(path).path.rsplit("/", 1)[1].split(".")
    prefix = path.rsplit("/", 1)[0]

    later = open_link(invoke, f"{prefix}/{nonce}.{int(expires) + 3600}.{mac}")
    forged = open_link(invoke, f"{prefix}/{nonce}.{expires}.{'A' * 43}")

    assert later.status == forged.status == 404
    assert open_link(invoke, path).status == 200  # the genuine link was not used up by those


def test_a_bad_address_re_renders_the_form(invoke: Invoke, demo: DemoStore, sent: Sent) -> None:
    answer = ask(invoke, demo, "not-an-address")

    assert answer.status == 422
    assert "email is not an email address" in answer.body
    assert 'value="not-an-address"' in answer.body
    assert sent() == []


def test_the_form_is_throttled_per_address(invoke: Invoke, demo: DemoStore, sent: Sent) -> None:
    buy_subscription(invoke, demo, email=EMAIL)

    answers = [ask(invoke, demo, EMAIL).status for _ in range(find_by_email.MAX_REQUESTS + 1)]

    assert answers == [200] * find_by_email.MAX_REQUESTS + [429]
    assert len(sent()) == find_by_email.MAX_REQUESTS
    assert ask(invoke, demo, "other@example.com").status == 200  # another address is not held up


def test_a_link_the_provider_refuses_answers_the_same(invoke: Invoke, demo: DemoStore) -> None:
    """No transport configured (or SES refusing): the known address still gets the same page."""
    buy_subscription(invoke, demo, email=EMAIL)

    answer = ask(invoke, demo, EMAIL)

    assert answer.status == 200
    assert find_by_email.SENT in answer.body


def test_the_request_only_writes_the_link_and_its_mail_which_the_consumer_sends_once(
    invoke: Invoke, demo: DemoStore, ses: Sent, mail_queue: MailQueue
) -> None:
    buy_subscription(invoke, demo, email=EMAIL)
    sesv2 = boto3.client("sesv2", region_name=REGION)
    sesv2.delete_email_identity(EmailIdentity=SENDER_DOMAIN)  # SES refuses the first try

    answer = ask(invoke, demo, EMAIL)

    assert answer.status == 200 and find_by_email.SENT in answer.body
    assert ses() == []  # nothing sent on the request path
    [event] = published(SIGN_IN_REQUESTED)
    assert event.endpoints == ()
    assert set(event.subject) == {"email", "public_token", "nonce", "expires"}  # no link that opens
    failed = mail_queue.deliver([event])
    assert len(failed["batchItemFailures"]) == 1  # retried by the queue
    assert ses() == []
    sesv2.create_email_identity(EmailIdentity=SENDER_DOMAIN)

    assert mail_queue.deliver([event]) == {"batchItemFailures": []}  # the retry
    assert mail_queue.deliver([event]) == {"batchItemFailures": []}  # a redelivery after it

    [message] = ses()
    assert open_link(invoke, link_path(message)).status == 200
    [record] = [r for r in MailRepository(demo.table).log(1) if r.kind == "sign_in"]
    assert record.status is MailStatus.SENT and record.recipient == EMAIL


def test_the_receipt_and_the_manage_page_link_to_the_form(invoke: Invoke, demo: DemoStore) -> None:
    bought = buy_subscription(invoke, demo, email=EMAIL)
    receipt = invoke(get_checkout_receipt.handler, "GET", f"/checkout/{bought.basket_ident}/receipt")
    manage_path = urlsplit(
        manage_url(get_services().settings.storefront_url, get_services().secrets, 1, bought.reference)
    ).path
    manage = invoke(get_subscription_page.handler, "GET", manage_path)

    for page in (receipt, manage):
        assert page.status == 200, page.body
        found = re.search(r'id=find-subscriptions href="?([^" >]+)', page.body)
        assert found, page.body
        assert found.group(1) == f"/subscriptions/find/{demo.token}"
        form = invoke(get_find_subscriptions_page.handler, "GET", found.group(1))
        assert form.status == 200 and 'name="email"' in form.body


def test_the_backfill_gives_older_payments_their_pointer(invoke: Invoke, demo: DemoStore) -> None:
    from scripts import backfill_email_pointers
    from webstore import keys
    from webstore.repo.email_lookup import EmailLookupRepository

    bought = buy_subscription(invoke, demo, email=EMAIL)
    buy_subscription(invoke, demo, username="Steve")  # no address: no pointer
    lookup = EmailLookupRepository(demo.table)
    [pointer] = demo.table.query(keys.email_payments_pk(1, EMAIL))[0]
    demo.table.delete({"PK": pointer["PK"], "SK": pointer["SK"]})  # as if paid before pointers existed
    assert not lookup.has_payments(1, EMAIL)

    argv = ["--table", "unused", "--account", "1"]
    assert backfill_email_pointers.main(argv, table=demo.table) == 0

    assert lookup.has_payments(1, EMAIL.upper())
    [again] = demo.table.query(keys.email_payments_pk(1, EMAIL))[0]
    assert again == pointer and bought.reference
    assert backfill_email_pointers.main(argv, table=demo.table) == 0  # again: the same one pointer
    assert len(demo.table.query(keys.email_payments_pk(1, EMAIL))[0]) == 1
