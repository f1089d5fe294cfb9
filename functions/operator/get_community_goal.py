"""GET {plugin_url}/community_goals/{community_goal} — one community goal."""

from fastapi import Depends, Path

from functions.deps import services
from functions.operator_deps import server_identity
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import goals, schemas
from webstore.operator.auth import ServerIdentity
from webstore.services import Services

ROUTE = Route(
    Interface.OPERATOR,
    "GET",
    "/community_goals/{community_goal}",
    "getCommunityGoal",
    READ,
    "One community goal",
)


async def endpoint(
    community_goal: int = Path(ge=1, le=2_147_483_647),
    who: ServerIdentity = Depends(server_identity),
    svc: Services = Depends(services),
) -> schemas.CommunityGoal:
    return goals.get_goal(svc, who.account_id, community_goal)


handler = lambda_handler(ROUTE, endpoint)
