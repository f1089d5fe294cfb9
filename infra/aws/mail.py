"""E-mail: the stage's SES domain identity (Easy DKIM) and its configuration set.

Created when the stage names a `mailDomain` (cdk.json or `-c mailDomain=…`): the identity's DKIM
records are shown in the SES console (and, with a hosted zone for the domain, can be added to it
by hand); until they verify, SES refuses to send from it and the panel's mail log shows each
message failed. A new account is in SES's sandbox: docs/mail.md says how to leave it.
The functions that send (Access.MAIL_SEND) get `ses:SendEmail` on this identity and
configuration set only, and the Go live page's (Access.MAIL_CHECK) `ses:GetEmailIdentity` on
this identity only (infra/aws/functions.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from aws_cdk import Arn, ArnFormat, Stack
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_ses as ses
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from infra.aws.config import StageConfig
from webstore.mail.feedback import DETAIL_TYPES as FEEDBACK_DETAIL_TYPES
from webstore.mail.feedback import SOURCE as FEEDBACK_SOURCE


@dataclass(frozen=True)
class MailWiring:
    """What a sending function is given: its sender address and what it may send through."""

    from_address: str
    identity_arn: str
    configuration_set_name: str
    configuration_set_arn: str


class Mail(Construct):
    def __init__(
        self, scope: Construct, id: str, *, config: StageConfig, domain: str, from_address: str
    ) -> None:
        super().__init__(scope, id)
        self.configuration_set = ses.ConfigurationSet(
            self,
            "ConfigurationSet",
            configuration_set_name=f"{config.prefix}-mail",
            reputation_metrics=True,
            sending_enabled=True,
        )
        self.identity = ses.EmailIdentity(
            self,
            "Identity",
            identity=ses.Identity.domain(domain),
            configuration_set=self.configuration_set,
        )
        # Deliveries, bounces and complaints go to the account's default bus (the only one SES
        # publishes to); `report_to` routes this set's ones to the mail consumer.
        self.configuration_set.add_event_destination(
            "ToEventBridge",
            destination=ses.EventDestination.event_bus(
                events.EventBus.from_event_bus_name(self, "DefaultBus", "default")
            ),
            events=[
                ses.EmailSendingEvent.DELIVERY,
                ses.EmailSendingEvent.BOUNCE,
                ses.EmailSendingEvent.COMPLAINT,
            ],
        )
        stack = Stack.of(self)
        self.wiring = MailWiring(
            from_address=from_address,
            identity_arn=self.identity.email_identity_arn,
            configuration_set_name=self.configuration_set.configuration_set_name,
            configuration_set_arn=Arn.format(
                {
                    "service": "ses",
                    "resource": "configuration-set",
                    "resource_name": self.configuration_set.configuration_set_name,
                    "arn_format": ArnFormat.SLASH_RESOURCE_NAME,
                },
                stack,
            ),
        )

    def report_to(self, queue: sqs.IQueue, dead_letters: sqs.IQueue) -> events.Rule:
        """SES's reports on this configuration set's messages (webstore.mail.feedback) → `queue`."""
        return events.Rule(
            self,
            "Reports",
            event_bus=events.EventBus.from_event_bus_name(self, "ReportsBus", "default"),
            description="SES deliveries, bounces and complaints of the stage's mail go to the mail buffer",
            event_pattern=events.EventPattern(
                source=[FEEDBACK_SOURCE],
                detail_type=list(FEEDBACK_DETAIL_TYPES),
                detail={
                    "mail": {
                        "tags": {"ses:configuration-set": [self.configuration_set.configuration_set_name]}
                    }
                },
            ),
            targets=[targets.SqsQueue(queue, dead_letter_queue=dead_letters, retry_attempts=8)],
        )
