"""The CDK app synthesized for the infra tests (one per test module: each jsii process takes
0.5-0.9 GB). Bundling is skipped (`aws:cdk:bundling-stacks: []`): no pip, no network.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from infra.node import jsii_node

os.environ.setdefault("JSII_NODE", jsii_node())  # the project's pinned Node (infra/node.py)

from aws_cdk import App
from aws_cdk.assertions import Template

from infra.app import build
from infra.aws.stack import WebstoreStack

# What `cdk synth` runs with: the stage default and the feature flags in cdk.json.
CDK_CONTEXT = json.loads((Path(__file__).parents[2] / "cdk.json").read_text())["context"]


@dataclass
class Synthesized:
    app: App
    stack: WebstoreStack
    template: Template
    nested: dict[str, Template]  # interface value → template of its (first) operations stack
    outdir: Path
    # interface value → the templates of all its operations stacks (a large interface has several)
    nested_stacks: dict[str, list[Template]] = field(default_factory=dict)

    def function_templates(self) -> list[Template]:
        return [self.template, *(t for templates in self.nested_stacks.values() for t in templates)]


def synthesize(**context: Any) -> Synthesized:
    outdir = Path(tempfile.mkdtemp(prefix="webstore-cdk-"))
    app = App(outdir=str(outdir), context={**CDK_CONTEXT, "aws:cdk:bundling-stacks": [], **context})
    stack = build(app)
    app.synth()
    nested_stacks = {
        i.value: [Template.from_stack(s) for s in stacks] for i, stacks in stack.operation_stacks.items()
    }
    return Synthesized(
        app=app,
        stack=stack,
        template=Template.from_stack(stack),
        nested={interface: templates[0] for interface, templates in nested_stacks.items()},
        outdir=outdir,
        nested_stacks=nested_stacks,
    )
