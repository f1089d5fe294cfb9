"""A bounded fuzz run of both interfaces' OpenAPI documents against the local stack
(schemathesis), failing on any server error (5xx) or any answer the document does not declare.

    python -m scripts.fuzz_openapi                 # 60 s per interface
    python -m scripts.fuzz_openapi --max-time 600  # longer

It starts `webstore serve` with the demo store (scripts/load_local.py), then runs
`schemathesis run <interface>/openapi.json` for each interface with the demo store's
credentials: the storefront's `token` path parameter is the store's public token and Basic auth
its checkout key; operator requests carry the server secret. Checks (CHECKS): no server error,
and every status, content type and response body one the document declares. Phases: examples,
coverage (boundary and invalid values from the schema) and fuzzing. Prints the cases run and
the time per interface; exit status 0 only when both runs found nothing (nor any other
schemathesis error). `make test` runs it briefly (tests/e2e/test_fuzz_openapi.py).

The documents are fuzzed as served: they declare every path parameter and their error bodies
(tests/unit/test_openapi_documents.py). One worker: hypothesis's lambda-source cache is not safe
across threads on this Python (runtime errors, not findings, with more).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scripts.load_local import local_stack
from webstore.operator.auth import SECRET_HEADERS

PHASES = "examples,coverage,fuzzing"
# No server error, and every answer one the document declares: its status, content type and body.
CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"
GENERATED = re.compile(r"(\d+) generated")


def config_file(directory: Path, credentials: dict[str, Any]) -> Path:
    """Fixed values for the parameters that name the demo store (the token in the path)."""
    path = directory / "schemathesis.toml"
    path.write_text(f'[parameters]\n"path.token" = "{credentials["public_token"]}"\n')
    return path


@dataclass(frozen=True)
class Outcome:
    exit_code: int
    cases: int  # test cases schemathesis generated and sent
    seconds: float


def fuzz(
    document_url: str,
    base_url: str,
    config: Path,
    auth: list[str],
    max_time: int,
    checks: str,
    seed: int | None = None,
) -> Outcome:
    """One schemathesis run, its output passed through; its exit status and how many cases ran."""
    command = [
        sys.executable,
        "-c",
        "from schemathesis.cli import schemathesis; schemathesis()",
        "--config-file",
        str(config),
        "run",
        document_url,
        "--url",
        base_url,
        "--checks",
        checks,
        "--phases",
        PHASES,
        "--max-time",
        str(max_time),
        *(["--seed", str(seed)] if seed is not None else []),
        "--workers",
        "1",
        "--request-timeout",
        "30",
        "--suppress-health-check",
        "all",
        "--no-color",
        *auth,
    ]
    print("$", " ".join(command[3:]), flush=True)
    started = time.monotonic()
    cases = 0
    # In the temporary directory: schemathesis's cache stays out of the worktree.
    with subprocess.Popen(
        command, cwd=config.parent, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            print(line, end="", flush=True)
            if match := GENERATED.search(line):
                cases = int(match.group(1))
    return Outcome(process.returncode, cases, time.monotonic() - started)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--max-time", type=int, default=60, help="seconds per interface (default 60)")
    parser.add_argument("--checks", default=CHECKS, help=f"schemathesis checks (default {CHECKS})")
    parser.add_argument(
        "--seed", type=int, default=None, help="fixed random seed (CI: reproducible); default random"
    )
    args = parser.parse_args(argv)
    with local_stack() as (credentials, _), tempfile.TemporaryDirectory() as workdir:
        directory = Path(workdir)
        config = config_file(directory, credentials)
        bases = {
            "storefront": credentials["headless_url"].split("/api/")[0],
            "operator": credentials["plugin_url"],
        }
        auth = {
            "storefront": ["--auth", f"{credentials['public_token']}:{credentials['checkout_api_key']}"],
            # Both headers the document declares (else schemathesis makes one up: a wrong secret,
            # which the brute-force guard counts until it answers 429 to everything).
            "operator": [
                arg
                for header in SECRET_HEADERS
                for arg in ("--header", f"{header.title()}:{credentials['server_secret']}")
            ],
        }
        results = {
            interface: fuzz(
                f"{base}/openapi.json", base, config, auth[interface], args.max_time, args.checks, args.seed
            )
            for interface, base in bases.items()
        }
    for interface, outcome in results.items():
        verdict = "no failures" if outcome.exit_code == 0 else f"FAILED (exit {outcome.exit_code})"
        print(f"{interface}: {outcome.cases} cases in {outcome.seconds:.0f} s, {verdict}")
    return 0 if all(outcome.exit_code == 0 for outcome in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
