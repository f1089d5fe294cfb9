"""Community goals as the operator reads them."""

from __future__ import annotations

from webstore.operator import schemas, views
from webstore.repo.store import StoreRepository
from webstore.services import Services

GOALS_LISTED = 100


def list_goals(services: Services, account_id: int) -> list[schemas.CommunityGoal]:
    goals = StoreRepository(services.table).goals(account_id, GOALS_LISTED)
    return [views.goal_view(goal, account_id) for goal in goals]


def get_goal(services: Services, account_id: int, goal_id: int) -> schemas.CommunityGoal:
    return views.goal_view(StoreRepository(services.table).goal(account_id, goal_id), account_id)
