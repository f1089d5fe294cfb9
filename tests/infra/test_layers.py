"""Each function's layers against its imports (infra/aws/layers.py): the closure rules on a
small tree, and every handler imported with the optional layers' packages it does not get
blocked, so an import-time need the static reading missed fails here, not on Lambda. (The
synthesized template's layers per function: test_stack.py.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from functions.routes import Operation
from infra.aws import bundling, layers


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_the_closure_counts_lazy_imports_and_leaves_out_type_checking(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "functions/__init__.py": "",
            "functions/pay.py": "from webstore import gateway\n",
            "functions/plain.py": "from webstore import hints\n",
            "shared/webstore/__init__.py": "import pydantic\n",
            "shared/webstore/gateway.py": "def call():\n    import stripe\n    return stripe\n",
            "shared/webstore/hints.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import stripe\n"
                "from .box import seal\n"
            ),
            "shared/webstore/box.py": "def seal():\n    from cryptography.fernet import Fernet\n",
        },
    )
    assert layers.layers_for("functions.pay.handler", root) == ("base", "stripe")
    assert layers.layers_for("functions.plain.handler", root) == ("base", "crypto")
    assert "pydantic" in layers.third_party_imports("functions.plain", root)


def test_only_the_functions_that_seal_or_open_secrets_carry_cryptography(
    route_table: tuple[Operation, ...],
) -> None:
    """The stage key's box is in every function's services, but sealing and opening live in
    `webstore.sealing` (docs/deploy.md, "Assets"): a page, the plugin's queue or a basket
    reaches no `cryptography`; the panel's sign-in (TOTP), webhook dispatch and Stripe do."""
    from functions.routes import consumers

    handlers = {o.handler_path for o in route_table} | {c.handler_path for c in consumers()}
    with_crypto = {h for h in handlers if "crypto" in layers.layers_for(h)}
    assert "cryptography" not in layers.third_party_imports("webstore.services")
    assert "cryptography" in layers.third_party_imports("webstore.sealing")
    for plain in (
        "functions.shop.get_home.handler",
        "functions.shop.post_basket_package.handler",
        "functions.storefront.create_basket.handler",
        "functions.operator.get_due_players.handler",
    ):
        assert plain in handlers and plain not in with_crypto, plain
    for sealing in ("functions.admin.post_login.handler", "functions.storefront.stripe_webhook.handler"):
        assert sealing in with_crypto, sealing
    # Every function carried it before the split (183 of 183); about half do now.
    print(f"functions with the crypto layer: {len(with_crypto)} of {len(handlers)}")
    assert len(with_crypto) < len(handlers) * 0.6


def test_the_optional_layers_hold_what_the_base_does_not() -> None:
    base = {r.split("==")[0].lower() for r in bundling.layer_requirements(layers.BASE)}
    assert "stripe" not in base and "cryptography" not in base and "boto3" in base
    assert [r.split("==")[0] for r in bundling.layer_requirements("stripe")] == ["stripe"]
    assert [r.split("==")[0] for r in bundling.layer_requirements("crypto")] == ["cryptography"]
    hashes = {bundling.layer_hash(bundling.ROOT, name) for name in (layers.BASE, *layers.OPTIONAL)}
    assert len(hashes) == 3


_IMPORT_BLOCKED = """
import importlib, json, sys

class Blocked:
    def __init__(self, names):
        self.names = set(names)
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.names:
            raise ImportError(f"{name} is not in this function's layers")
        return None

failures = {}
for module, missing in json.loads(sys.argv[1]).items():
    finder = Blocked(missing)
    sys.meta_path.insert(0, finder)
    for name in [m for m in sys.modules if m.split(".")[0] in ("functions", "webstore", *missing)]:
        del sys.modules[name]
    try:
        importlib.import_module(module)
    except Exception as error:
        failures[module] = repr(error)
    finally:
        sys.meta_path.remove(finder)
print(json.dumps(failures))
"""


def test_every_handler_imports_without_the_layers_it_does_not_get(
    route_table: tuple[Operation, ...],
) -> None:
    handlers = {o.handler_path for o in route_table}
    missing = {}
    for handler in sorted(handlers):
        carried = layers.layers_for(handler)
        lacking = [package for name, (_, package) in layers.OPTIONAL.items() if name not in carried]
        if lacking:
            missing[handler.rpartition(".")[0]] = lacking
    assert missing, "every function carries every layer: the split does nothing"
    result = subprocess.run(
        [sys.executable, "-c", _IMPORT_BLOCKED, json.dumps(missing)],
        capture_output=True,
        text=True,
        cwd=bundling.ROOT,
        timeout=900,  # ~140 handlers, each imported afresh
        check=True,
    )
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {}
