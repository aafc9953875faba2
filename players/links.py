"""Links to players and teams, for whichever a participant is."""

from django.urls import reverse
from django.utils.html import format_html

from players.models import Participant, Player, Team


def player_url(player: Player) -> str:
    return reverse("players:detail", args=[player.membership_number])


def team_url(team: Team) -> str:
    return reverse("players:team", args=[team.participant_id])


def participant_entity(participant: Participant | None) -> Player | Team | None:
    """The player or team behind a participant (loaded with select_related: no query)."""
    if participant is None:
        return None
    return getattr(participant, participant.kind, None)


def participant_link(participant: Participant | None, missing: str = "—"):
    entity = participant_entity(participant)
    if entity is None:
        return missing
    url = player_url(entity) if isinstance(entity, Player) else team_url(entity)
    return format_html('<a href="{}">{}</a>', url, entity.name or str(entity))
