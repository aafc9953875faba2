"""Reads of players and teams: search and look-up by number."""

from django.db.models import Q, QuerySet

from lib.lookups import any_of
from players.links import NamedParticipant
from players.models import Participant, Player, Team, team_label

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


# Names -------------------------------------------------------------------------------


def participant_names(*, participant_ids) -> dict[int, NamedParticipant]:
    """participant id -> its name and page, for pages that name hundreds of players or teams at once."""
    rows = (
        Participant.objects.filter(any_of("pk", participant_ids))
        .order_by()
        .values_list("pk", "kind", "player__name", "player__membership_number", "team__name", "team__member_key")
    )
    return {
        pk: NamedParticipant(pk, kind, player_name, number)
        if kind == Participant.Kind.PLAYER
        else NamedParticipant(pk, kind, team_label(team_name or "", member_key or ""))
        for pk, kind, player_name, number, team_name, member_key in rows
    }


# Teams --------------------------------------------------------------------------------


def player_teams(*, player: Player) -> list[Team]:
    return list(player.teams.order_by("name", "member_key"))
