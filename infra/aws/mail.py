"""E-mail: the stage's SES domain identity (Easy DKIM) and its configuration set.

Created when the stage names a `mailDomain` (cdk.json or `-c mailDomain=…`): the identity's DKIM
records are shown in the SES console (and, with a hosted zone for the domain, can be added to it
by hand); until they verify, SES refuses to send from it and the panel's mail log shows each
message failed. A new account is in SES's sandbox: docs/mail.md says how to leave it.
The functions that send (Access.MAIL_SEND) get `ses:SendEmail` on this identity and
configuration set only (infra/aws/functions.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from aws_cdk import Arn, ArnFormat, Stack
from aws_cdk import aws_ses as ses
from constructs import Construct

from infra.aws.config import StageConfig


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
