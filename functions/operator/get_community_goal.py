"""GET {plugin_url}/community_goals/{community_goal} — one community goal."""

from fastapi import Path

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import goals, schemas

ROUTE = Route(
    Interface.OPERATOR,
    "GET",
    "/community_goals/{community_goal}",
    "getCommunityGoal",
    READ,
    "One community goal",
)


async def endpoint(
    who: ServerDep, svc: ServicesDep, community_goal: int = Path(ge=1, le=2_147_483_647)
) -> schemas.CommunityGoal:
    return goals.get_goal(svc, who.account_id, community_goal)


handler = lambda_handler(ROUTE, endpoint)
