"""A plugin's loop over HTTP against the local stack (`webstore serve --next-check 2`): a manual
payment, then poll /queue, fetch offline and online commands, run and delete them, poll again
(respecting Retry-After) until nothing is left: every command ran exactly once. And the same
loop against an online-mode store: the due player is the real Minecraft account."""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.e2e.conftest import wait_for_port
from tests.support.demo import demo_catalog_data
from tests.support.local_stack import free_port, serving
from tests.support.name_service import running_name_service

pytestmark = pytest.mark.e2e


def test_plugin_runs_every_command_once(local_stack: dict[str, Any]) -> None:
    base = local_stack["plugin_url"]
    headers = {"X-Tebex-Secret": local_stack["server_secret"]}
    ran: Counter[int] = Counter()
    texts: dict[int, str] = {}
    with httpx.Client(base_url=base, headers=headers, timeout=10) as http:
        assert http.get("/information").json()["server"]["id"] == 1
        payment = http.post(
            "/payments",
            json={
                "ign": "E2EPlayer",
                "packages": [{"id": 1}, {"id": 10}, {"id": 11, "options": {"world": "survival"}}, {"id": 20}],
                "price": 14.48,
                "note": "e2e",
            },
        )
        assert payment.status_code == 200, payment.text
        txn = payment.json()["txn_id"]

        quiet_polls = 0
        deadline = time.monotonic() + 60
        while quiet_polls < 2 and time.monotonic() < deadline:
            queue = http.get(httpx.URL(base + "//queue"))  # one popular client doubles the slash
            if queue.status_code == 429:
                time.sleep(float(queue.headers["retry-after"]))
                continue
            assert queue.status_code == 200, queue.text
            body = queue.json()
            done: list[int] = []
            if body["meta"]["execute_offline"]:
                for command in http.get("/queue/offline-commands").json()["commands"]:
                    ran[command["id"]] += 1
                    texts[command["id"]] = command["command"].replace("{username}", command["player"]["name"])
                    done.append(command["id"])
            for player in body["players"]:
                online = http.get(f"/queue/online-commands/{player['id']}").json()
                for command in online["commands"]:
                    ran[command["id"]] += 1
                    texts[command["id"]] = command["command"].replace("{username}", player["name"])
                    done.append(command["id"])
            for start in range(0, len(done), 3):  # small batches, as real plugins delete
                deleted = http.request("DELETE", "/queue", json={"ids": done[start : start + 3]})
                assert deleted.status_code == 204 and deleted.content == b""
            quiet_polls = quiet_polls + 1 if not done and not body["meta"]["more"] else 0
            if not body["meta"]["more"]:
                time.sleep(body["meta"]["next_check"])

        assert set(ran.values()) == {1}
        # The stack is shared: other tests' purchases are in the queue too, and run once as well.
        mine = [text for text in texts.values() if "E2EPlayer" in text]
        assert sorted(mine) == sorted(
            [
                "lp user E2EPlayer parent add vip",
                "give E2EPlayer diamond_sword 1",
                "eco give E2EPlayer 1000",
                "crates key give E2EPlayer legendary 1",
            ]
        )
        # A refund of a subscription payment ends the subscription at once: the package's refund
        # command and its expiry command (the demo's VIP has the same text for both), each run once.
        refund = http.put(f"/payments/{txn}", json={"status": "refund"})
        assert refund.status_code == 200 and refund.json()["status"] == "Refund"
        time.sleep(2)
        refund_ran: list[str] = []
        for _ in range(10):
            queue = http.get("/queue")
            if queue.status_code == 429:
                time.sleep(float(queue.headers["retry-after"]))
                continue
            if queue.json()["meta"]["execute_offline"]:
                commands = http.get("/queue/offline-commands").json()["commands"]
                refund_ran += [c["command"] for c in commands]
                http.request("DELETE", "/queue", data={"ids[]": [str(c["id"]) for c in commands]})
                continue
            break
        assert refund_ran == ["lp user {username} parent remove vip"] * 2


# --- online mode: the due player is the real Minecraft account --------------------------------

ONLINE_PLAYER = ("5b7e6f3a0c2d4e1f8a9b0c1d2e3f4a5b", "E2EOnline")  # (uuid, the account's casing)


@pytest.fixture(scope="module")
def online_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A second local stack whose store is in Minecraft online mode, resolving names through
    the stand-in name service (`webstore serve --identity-base-url`)."""
    folder = tmp_path_factory.mktemp("online")
    catalog = demo_catalog_data()
    catalog["store"] = {**catalog["store"], "online_mode": True}
    (folder / "catalog.json").write_text(json.dumps(catalog))
    storefront, operator = free_port(), free_port()
    with running_name_service(ONLINE_PLAYER) as names:
        options = ("--catalog", str(folder / "catalog.json"), "--next-check", "1")
        options += ("--identity-base-url", names.base_url)
        with serving(storefront, operator, folder / "credentials.json", *options) as process:
            wait_for_port(storefront, process)
            wait_for_port(operator, process)
            creds = json.loads((folder / "credentials.json").read_text())
            creds["names"] = names
            yield creds


def test_online_mode_commands_reach_the_real_account(online_stack: dict[str, Any]) -> None:
    """The player logs in on the hosted page with their name in any casing and pays; the plugin
    (online mode: it finds online players by UUID) sees the account's real UUID as 32 hex and
    runs the online commands for the player it has online under that UUID."""
    base, plugin = online_stack["headless_url"], online_stack["plugin_url"]
    host = base.split("/api/")[0]
    uuid, name = ONLINE_PLAYER
    with httpx.Client(timeout=10) as http:
        information = http.get(
            f"{plugin}/information", headers={"X-Tebex-Secret": online_stack["server_secret"]}
        )
        assert information.json()["account"]["online_mode"] is True
        ident = http.post(f"{base}/baskets", json={}).json()["data"]["ident"]
        added = http.post(f"{host}/api/baskets/{ident}/packages", json={"package_id": 10})
        assert added.status_code == 200, added.text
        checkout = added.json()["data"]["links"]["checkout"]
        login = http.post(f"{host}/auth/{ident}", data={"username": name.lower(), "returnUrl": checkout})
        assert login.status_code == 303, login.text
        assert http.get(f"{base}/baskets/{ident}").json()["data"]["username"] == name  # real casing
        page = http.get(checkout).text
        key = re.search(r'name=attempt_key value="([^"]+)"', page)
        shown = re.search(r'name=amount_due value="([^"]+)"', page)
        assert key and shown, page
        paid = http.post(
            f"{host}/checkout/{ident}/pay",
            data={
                "attempt_key": key.group(1),
                "card_number": "4242424242424242",
                "amount_due": shown.group(1),
            },
        )
        assert paid.status_code == 303, paid.text
    assert online_stack["names"].requests == [name.lower()]  # resolved once, at login

    # The plugin on server 1: online-mode, so it looks due players up by UUID among those online.
    online_players = {uuid: name}
    ran: list[str] = []
    with httpx.Client(
        base_url=plugin, headers={"X-Tebex-Secret": online_stack["server_secret"]}, timeout=10
    ) as http:
        deadline = time.monotonic() + 30
        while not ran and time.monotonic() < deadline:
            queue = http.get("/queue")
            if queue.status_code == 429:
                time.sleep(float(queue.headers["retry-after"]))
                continue
            players = queue.json()["players"]
            for player in players:
                assert re.fullmatch(r"[0-9a-f]{32}", player["uuid"])  # what every plugin parses
                if player["uuid"] not in online_players:
                    continue
                commands = http.get(f"/queue/online-commands/{player['id']}").json()["commands"]
                ran += [c["command"].replace("{username}", online_players[player["uuid"]]) for c in commands]
                deleted = http.request("DELETE", "/queue", json={"ids": [c["id"] for c in commands]})
                assert deleted.status_code == 204
            if not ran:
                time.sleep(queue.json()["meta"]["next_check"])
    assert ran == [f"give {name} diamond_sword 1"]
