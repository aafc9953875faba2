"""Links to players and teams, for whichever a participant is."""

from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from string import ascii_letters, digits
from urllib.parse import quote

from django.urls import reverse
from django.utils.html import format_html
from django.utils.http import RFC3986_SUBDELIMS
from django.utils.safestring import SafeString

from players.models import Participant, Player, Team


@dataclass(frozen=True, slots=True)
class NamedParticipant:
    """A participant as a long page names and links it, read as plain values (players.selectors.participant_names).

    The 900 participants of a big event, built as models with their players,
    cost a quarter of its page.
    """

    pk: int
    kind: str
    name: str
    membership_number: str = ""  # a player's page is keyed by it; a team's by its participant id
    member_key: str = ""  # a team's members' numbers (Team.member_key), as the API names a team

    def __str__(self):
        return self.name


def player_url(player: Player) -> str:
    return reverse("players:detail", args=[player.membership_number])


def team_url(team: Team) -> str:
    return reverse("players:team", args=[team.participant_id])


def participant_entity(participant: Participant | None) -> Player | Team | None:
    """The player or team behind a participant (loaded with select_related: no query)."""
    if participant is None:
        return None
    return getattr(participant, participant.kind, None)


def participant_link(participant: Participant | NamedParticipant | None, missing: str = "—"):
    if isinstance(participant, NamedParticipant):
        return ParticipantLinks()(participant, missing)
    entity = participant_entity(participant)
    if entity is None:
        return missing
    url = player_url(entity) if isinstance(entity, Player) else team_url(entity)
    return format_html('<a href="{}">{}</a>', url, entity.name or str(entity))


_MARKER = "7301946825"  # digits: an argument every path converter of the site accepts


def url_maker(viewname: str) -> Callable[[object], str]:
    """reverse(viewname, args=[value]) for many values at the cost of one reverse().

    The URL is reversed once around a marker argument; each value is then
    quoted as reverse() quotes it and put in the marker's place.
    """
    prefix, suffix = reverse(viewname, args=[_MARKER]).split(_MARKER)
    safe = RFC3986_SUBDELIMS + "/~:@"
    unreserved = frozenset(ascii_letters + digits + "-._~")  # what quote() leaves as it is: most values

    def url(value) -> str:
        text = str(value)
        return f"{prefix}{text if unreserved.issuperset(text) else quote(text, safe=safe)}{suffix}"

    return url


class ParticipantLinks:
    """participant_link() for the many rows of one page, reversing each URL pattern once.

    Its links are SafeString()s of plain text, not mark_safe()'s, which checks its argument for lazy text on
    every call: the largest event page writes a link 1,100 times."""

    def __init__(self):
        self.player_url = url_maker("players:detail")
        self.team_url = url_maker("players:team")

    def __call__(self, participant: Participant | NamedParticipant | None, missing: str = "—") -> SafeString | str:
        if isinstance(participant, NamedParticipant):
            if not (participant.name or participant.membership_number):  # neither a player nor a team
                return missing
            if participant.kind == Participant.Kind.PLAYER:
                url = self.player_url(participant.membership_number)
            else:
                url = self.team_url(participant.pk)
            return SafeString(f'<a href="{escape(url)}">{escape(participant.name)}</a>')
        entity = participant_entity(participant)
        if entity is None:
            return missing
        if isinstance(entity, Player):
            url = self.player_url(entity.membership_number)
        else:
            url = self.team_url(entity.participant_id)
        return SafeString(f'<a href="{escape(url)}">{escape(entity.name or str(entity))}</a>')
