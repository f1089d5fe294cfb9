"""GET {plugin_url}/community_goals — the store's community goals."""

from fastapi import Depends

from functions.deps import services
from functions.operator_deps import server_identity
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import goals, schemas
from webstore.operator.auth import ServerIdentity
from webstore.services import Services

ROUTE = Route(Interface.OPERATOR, "GET", "/community_goals", "getCommunityGoals", READ, "Community goals")


async def endpoint(
    who: ServerIdentity = Depends(server_identity), svc: Services = Depends(services)
) -> list[schemas.CommunityGoal]:
    return goals.list_goals(svc, who.account_id)


handler = lambda_handler(ROUTE, endpoint)
