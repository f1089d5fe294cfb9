"""The sending domain's status from SES v2 `GetEmailIdentity` (webstore.mail.identity_status)
and the SES adapter's answer when SES refuses or has no such identity (botocore's Stubber: a
real client, SES's own error shapes, no network)."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from webstore.mail import DomainStatus, identity_status, sender_domain
from webstore.mail.ses import SesSender

DOMAIN = "mail.example.com"


def _identity(
    verified: bool, dkim: str, verification: str = "", tokens: tuple[str, ...] = ()
) -> dict[str, Any]:
    attributes: dict[str, Any] = {"SigningEnabled": True, "Status": dkim}
    if tokens:
        attributes["Tokens"] = list(tokens)
    return {
        "IdentityType": "DOMAIN",
        "VerifiedForSendingStatus": verified,
        "DkimAttributes": attributes,
        **({"VerificationStatus": verification} if verification else {}),
    }


def test_verified_and_signing_is_green() -> None:
    assert identity_status(DOMAIN, _identity(True, "SUCCESS", "SUCCESS")) == DomainStatus(
        DOMAIN, "ok", "verified, DKIM signing"
    )


def test_pending_is_amber_with_the_cnames_to_publish() -> None:
    status = identity_status(DOMAIN, _identity(False, "PENDING", "PENDING", ("abc", "def")))
    assert (status.state, status.detail) == ("warn", "pending: DNS records not seen yet")
    assert status.dkim_records == (
        ("abc._domainkey.mail.example.com", "abc.dkim.amazonses.com"),
        ("def._domainkey.mail.example.com", "def.dkim.amazonses.com"),
    )
    assert identity_status(DOMAIN, _identity(False, "TEMPORARY_FAILURE")).state == "warn"


@pytest.mark.parametrize(
    ("identity", "detail"),
    [
        (_identity(False, "FAILED", "FAILED"), "failed"),
        (_identity(True, "FAILED"), "failed"),
        (_identity(False, "SUCCESS", "SUCCESS"), "not verified"),
    ],
)
def test_failed_or_unverified_is_red(identity: dict[str, Any], detail: str) -> None:
    status = identity_status(DOMAIN, identity)
    assert status.state == "todo" and status.detail.startswith(detail) and not status.dkim_records


def test_the_from_address_names_the_domain() -> None:
    assert sender_domain("Store@Mail.Example.com") == DOMAIN


def _stubbed(error_code: str, status: int) -> SesSender:
    client = boto3.client("sesv2", region_name="eu-west-1", aws_access_key_id="x", aws_secret_access_key="x")
    stubber = Stubber(client)
    stubber.add_client_error(
        "get_email_identity",
        service_error_code=error_code,
        service_message="refused",
        http_status_code=status,
        expected_params={"EmailIdentity": DOMAIN},
    )
    stubber.activate()
    return SesSender(lambda: client)


def test_no_such_identity_is_red_and_a_refusal_is_could_not_check() -> None:
    missing = _stubbed("NotFoundException", 404).domain_status(DOMAIN)
    assert (missing.state, missing.detail) == (
        "todo",
        "the identity does not exist in this account and region",
    )
    denied = _stubbed("AccessDeniedException", 403).domain_status(DOMAIN)
    assert denied.state == "unknown" and denied.detail.startswith("AccessDeniedException: ")
