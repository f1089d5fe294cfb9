"""GET {plugin_url}/community_goals — the store's community goals."""

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import goals, schemas

ROUTE = Route(Interface.OPERATOR, "GET", "/community_goals", "getCommunityGoals", READ, "Community goals")


async def endpoint(who: ServerDep, svc: ServicesDep) -> list[schemas.CommunityGoal]:
    return goals.list_goals(svc, who.account_id)


handler = lambda_handler(ROUTE, endpoint)
