"""Community goals through the operator's real handlers, and a payment that completes one."""

from __future__ import annotations

from functions.operator import (
    get_community_goal,
    get_community_goals,
)
from tests.integration.operator.support import call, manual_payment
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke


def test_community_goals(demo: DemoStore, invoke: Invoke) -> None:
    goals = call(invoke, demo, get_community_goals, "GET", "/community_goals").json()
    assert [g["id"] for g in goals] == [1]
    goal = call(invoke, demo, get_community_goal, "GET", "/community_goals/1").json()
    assert goal == goals[0]
    assert goal["target"] == "250.00" and goal["current"] == "0.00" and goal["status"] == "active"
    assert goal["repeatable"] == 0 and goal["account"] == 1 and goal["created_at"] == "2024-01-01 00:00:00"
    assert call(invoke, demo, get_community_goal, "GET", "/community_goals/9").status == 404
    manual_payment(invoke, demo.server_secret, packages=[{"id": 20}], price=260)
    done = call(invoke, demo, get_community_goal, "GET", "/community_goals/1").json()
    assert done["status"] == "completed" and done["times_achieved"] == 1 and done["last_achieved"]
