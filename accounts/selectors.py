"""Reads about accounts: who a user is as a player, and what they may do."""

from accounts.roles import MANAGE_ALL_PERMISSION, ORGANIZE_PERMISSION
from players.models import Player


def user_player(*, user) -> Player | None:
    """The player an admin linked to this account, or None."""
    if not user.is_authenticated:
        return None
    return Player.objects.filter(account__user=user).first()


def user_can_organize(*, user) -> bool:
    return user.is_authenticated and user.is_active and user.has_perm(ORGANIZE_PERMISSION)


def user_manages_all_events(*, user) -> bool:
    return user.is_authenticated and user.is_active and user.has_perm(MANAGE_ALL_PERMISSION)
