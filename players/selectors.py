"""Reads of players and teams: search and look-up by number."""

from django.db.models import Q, QuerySet

from players.models import Player, Team

# Search ------------------------------------------------------------------------------


def player_search(*, query: str) -> QuerySet[Player]:
    """Players whose name contains `query` or whose membership number starts with it, in any case.

    On PostgreSQL both are answered by a trigram index (players migration 0002).
    """
    players = Player.objects.public().order_by("name", "membership_number")
    query = query.strip()
    if not query:
        return players
    return players.filter(Q(name__icontains=query) | Q(membership_number__istartswith=query))


def player_by_number(*, number: str) -> Player | None:
    return Player.objects.public().filter(membership_number=number.strip()).first()


# Teams --------------------------------------------------------------------------------


def player_teams(*, player: Player) -> list[Team]:
    return list(player.teams.order_by("name", "member_key"))
