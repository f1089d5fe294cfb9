"""The CDK app: `cdk synth|deploy -c stage=<name>` (cdk.json runs `python -m infra.app`)."""

from __future__ import annotations

import os

from infra.node import jsii_node

os.environ.setdefault("JSII_NODE", jsii_node())  # the project's Node, before aws_cdk starts jsii

from aws_cdk import App, Validations
from cdk_nag import AwsSolutionsChecks

from infra.aws.config import StageConfig
from infra.aws.nag import acknowledge_findings
from infra.aws.stack import WebstoreStack

BUNDLING_STACKS = "aws:cdk:bundling-stacks"


def build(app: App) -> WebstoreStack:
    """The stage's stack with the AwsSolutions checks (used by tests and the benchmark too)."""
    config = StageConfig.from_context(app.node)
    stack = WebstoreStack(app, config.stack_name, config=config)
    # Acknowledged findings are also written to each resource's Metadata: an audit trail in the
    # template itself, and proof for the tests that the checks ran.
    Validations.of(app).add_plugins(AwsSolutionsChecks(app, write_suppressions_to_cloud_formation=True))
    acknowledge_findings(stack)
    return stack


def main() -> None:
    app = App()
    # `-c bundle=false`: synthesize the template without building the assets (no pip, no
    # network), as `make test` does. The CLI refuses user context under `aws:`, so we set it here.
    if str(app.node.try_get_context("bundle")).lower() == "false":
        app.node.set_context(BUNDLING_STACKS, [])
    build(app)
    app.synth()


if __name__ == "__main__":
    main()
