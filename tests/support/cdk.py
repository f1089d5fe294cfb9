"""The CDK app synthesized for the infra tests (one per test module: each jsii process takes
0.5-0.9 GB). Bundling is skipped (`aws:cdk:bundling-stacks: []`): no pip, no network.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from infra.node import jsii_node

os.environ.setdefault("JSII_NODE", jsii_node())  # the project's pinned Node (infra/node.py)

from aws_cdk import App
from aws_cdk.assertions import Template

from functions.declarations import Interface
from infra.app import build
from infra.aws.stack import WebstoreStack

# What `cdk synth` runs with: the stage default and the feature flags in cdk.json.
CDK_CONTEXT = json.loads((Path(__file__).parents[2] / "cdk.json").read_text())["context"]


@dataclass
class Synthesized:
    app: App
    stack: WebstoreStack
    template: Template
    # interface value → templates of its operations stacks (the first also holds `$default`)
    nested: dict[str, list[Template]]
    outdir: Path

    def function_templates(self) -> list[Template]:
        return [self.template, *(t for templates in self.nested.values() for t in templates)]

    def operations_stack(self, template: Template) -> Any:
        """The nested stack whose template this is."""
        for interface, templates in self.nested.items():
            for n, each in enumerate(templates):
                if each is template:
                    return self.stack.operations[Interface(interface)][n]
        raise LookupError("not an operations template")


def synthesize(**context: Any) -> Synthesized:
    outdir = Path(tempfile.mkdtemp(prefix="webstore-cdk-"))
    app = App(outdir=str(outdir), context={**CDK_CONTEXT, "aws:cdk:bundling-stacks": [], **context})
    stack = build(app)
    app.synth()
    return Synthesized(
        app=app,
        stack=stack,
        template=Template.from_stack(stack),
        nested={i.value: [Template.from_stack(s) for s in stacks] for i, stacks in stack.operations.items()},
        outdir=outdir,
    )
