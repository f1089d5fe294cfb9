"""The e-mail side of the stack: the mail rule → buffer → consumer, and SES least privilege
(one synth with a mail domain; the staging synth of test_stack.py has none)."""

from __future__ import annotations

from typing import Any

import pytest

from functions.events.declarations import Trigger
from infra.aws.events import MAX_RECEIVES, consumer_of
from tests.support.cdk import Synthesized, synthesize
from webstore.mail.feedback import DETAIL_TYPES as FEEDBACK_DETAIL_TYPES
from webstore.mail.feedback import SOURCE as FEEDBACK_SOURCE
from webstore.mail.messages import MAIL_EVENT_TYPES

from .test_stack import functions_by_handler, logical_id, policy_statements, resources

SEND_MAIL = consumer_of(Trigger.MAIL_QUEUE).handler_path
RESEND = "functions.admin.resend_mail.handler"
GO_LIVE = "functions.admin.get_go_live.handler"


@pytest.fixture(scope="module")
def synth() -> Synthesized:
    return synthesize(stage="staging", mailDomain="mail.example.com")


def test_the_mail_rule_feeds_its_own_buffer_with_the_events_that_become_mail(synth: Synthesized) -> None:
    template = synth.template
    events = synth.stack.events
    buffer, dead = logical_id(synth, events.mail_buffer), logical_id(synth, events.dead_letters)
    (rule,) = [
        r
        for r in resources(template, "AWS::Events::Rule").values()
        if r["Properties"].get("EventPattern", {}).get("detail-type")
        and r["Properties"]["EventPattern"]["source"] == ["webstore"]
        and {"Fn::GetAtt": [buffer, "Arn"]} in [t["Arn"] for t in r["Properties"]["Targets"]]
    ]  # the Discord consumer has its own rule on the same bus
    assert rule["Properties"]["EventPattern"] == {
        "source": ["webstore"],
        "detail-type": [str(t) for t in MAIL_EVENT_TYPES],
    }
    (target,) = rule["Properties"]["Targets"]
    assert target["Arn"] == {"Fn::GetAtt": [buffer, "Arn"]}
    redrive = resources(template, "AWS::SQS::Queue")[buffer]["Properties"]["RedrivePolicy"]
    assert redrive == {"deadLetterTargetArn": {"Fn::GetAtt": [dead, "Arn"]}, "maxReceiveCount": MAX_RECEIVES}
    (mapping,) = [
        m
        for m in resources(template, "AWS::Lambda::EventSourceMapping").values()
        if m["Properties"]["EventSourceArn"] == {"Fn::GetAtt": [buffer, "Arn"]}
    ]
    assert mapping["Properties"]["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert functions_by_handler(synth)[SEND_MAIL][1] == logical_id(synth, events.send_mail.function)


def test_the_domain_identity_has_dkim_and_the_configuration_set(synth: Synthesized) -> None:
    [identity] = resources(synth.template, "AWS::SES::EmailIdentity").values()
    assert identity["Properties"]["EmailIdentity"] == "mail.example.com"
    assert identity["Properties"].get("DkimAttributes", {"SigningEnabled": True})["SigningEnabled"] is True
    [config_set] = resources(synth.template, "AWS::SES::ConfigurationSet").values()
    assert config_set["Properties"]["Name"] == "webstore-staging-mail"


def test_ses_reports_of_the_stage_set_reach_the_mail_buffer(synth: Synthesized) -> None:
    template = synth.template
    buffer = logical_id(synth, synth.stack.events.mail_buffer)
    [destination] = resources(template, "AWS::SES::ConfigurationSetEventDestination").values()
    spec = destination["Properties"]["EventDestination"]
    assert sorted(spec["MatchingEventTypes"]) == ["bounce", "complaint", "delivery"]
    assert "EventBridgeDestination" in spec and spec["Enabled"] is True
    (rule,) = [
        r
        for r in resources(template, "AWS::Events::Rule").values()
        if r["Properties"].get("EventPattern", {}).get("source") == [FEEDBACK_SOURCE]
    ]
    pattern = rule["Properties"]["EventPattern"]
    assert pattern["detail-type"] == list(FEEDBACK_DETAIL_TYPES)
    assert "EventBusName" not in rule["Properties"] or "default" in str(rule["Properties"]["EventBusName"])
    (target,) = rule["Properties"]["Targets"]
    assert target["Arn"] == {"Fn::GetAtt": [buffer, "Arn"]}


def _ses_statements(synth: Synthesized, action: str) -> dict[str, list[dict[str, Any]]]:
    """Each function's policy statements naming `action`, by handler."""
    found: dict[str, list[dict[str, Any]]] = {}
    for handler, (template, _, function) in functions_by_handler(synth).items():
        statements = [s for s in policy_statements(template, function) if action in str(s["Action"])]
        if statements:
            found[handler] = statements
    return found


def test_only_the_senders_may_send_and_only_from_the_stage_identity(synth: Synthesized) -> None:
    senders = _ses_statements(synth, "ses:SendEmail")
    # The consumer, the panel's "Send again" and "Send me a test", and the `$default` function
    # of the panel, which serves every route of its interface (it may do what those may). The
    # storefront sends nothing itself: "Find my subscriptions" writes its mail to the outbox.
    assert set(senders) == {
        SEND_MAIL,
        RESEND,
        "functions.admin.send_test_mail.handler",
        "functions.unmatched.admin_handler",
    }
    for statements in senders.values():
        [statement] = statements
        assert statement["Action"] == "ses:SendEmail"
        assert "*" not in str(statement["Resource"])
    _, _, function = functions_by_handler(synth)[SEND_MAIL]
    environment = function["Properties"]["Environment"]["Variables"]
    assert environment["WEBSTORE_MAIL_TRANSPORT"] == "ses"
    assert environment["WEBSTORE_MAIL_FROM"] == "no-reply@mail.example.com"


def test_only_the_go_live_page_reads_the_identity_and_nothing_else(synth: Synthesized) -> None:
    """The Go live page's e-mail row asks SES (GetEmailIdentity) about the stage's identity: its
    function (and the panel's `$default`) may do exactly that, on that identity only."""
    readers = _ses_statements(synth, "ses:GetEmailIdentity")
    assert set(readers) == {GO_LIVE, "functions.unmatched.admin_handler"}
    for statements in readers.values():
        [statement] = statements
        assert statement["Action"] == "ses:GetEmailIdentity"
        resource = str(statement["Resource"])  # the identity's ARN (a nested stack's reference)
        assert "*" not in resource and ":identity/" in resource and "MailIdentity" in resource
        assert "configuration-set" not in resource
    _, _, function = functions_by_handler(synth)[GO_LIVE]
    environment = function["Properties"]["Environment"]["Variables"]
    assert environment["WEBSTORE_MAIL_TRANSPORT"] == "ses"
    assert environment["WEBSTORE_MAIL_FROM"] == "no-reply@mail.example.com"
    # The other SES actions stay with the senders: the page's function cannot send.
    assert GO_LIVE not in _ses_statements(synth, "ses:SendEmail")
