"""A plugin's loop over HTTP against the local stack (`webstore serve --next-check 2`): a manual
payment, then poll /queue, fetch offline and online commands, run and delete them, poll again
(respecting Retry-After) until nothing is left: every command ran exactly once."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import httpx
import pytest

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
                "packages": [{"id": 1}, {"id": 10}, {"id": 11, "options": {"note": "hi"}}, {"id": 20}],
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
        # A refund queues the package's refund command, which the plugin then runs once too.
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
        assert refund_ran == ["lp user {username} parent remove vip"]
