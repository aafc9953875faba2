"""Reads of players and teams: search and look-up by number."""

from dataclasses import dataclass
from difflib import SequenceMatcher

from django.contrib.postgres.search import TrigramWordSimilarity
from django.db import connection
from django.db.models import F, Q, QuerySet

from lib.counting import CountKept
from lib.lookups import Unindexed, any_of
from players.links import NamedParticipant
from players.models import Participant, Player, Suspension, Team, team_label
from players.search import query_words

# Search ------------------------------------------------------------------------------


# SQLite has no trigram index: the near search compares names in Python, only in worlds this small.
NEAR_IN_PYTHON_UP_TO = 20_000


@dataclass(frozen=True, slots=True)
class PlayerMatches:
    players: QuerySet[Player]
    near: bool  # found by names like the query, none being as typed


def player_matches(*, query: str) -> PlayerMatches:
    """Players whose name holds every word of `query` in any order, ignoring case and accents, or whose
    membership number starts with it; when none does, those whose names have words like each of the query's
    (a typo forgiven), most alike first.

    On PostgreSQL both are answered by the trigram index on the folded names (migrations 0005 and 0007).
    """
    players = Player.objects.public().order_by("name", "membership_number")
    query = query.strip()
    words = query_words(query)
    if not words:
        return PlayerMatches(players, near=False)
    named = Q()
    for word in words:
        named &= Q(name_folded__contains=word)
    # In name order, though not along the name's index (Unindexed): a page of a search's few players.
    found = players.filter(named | Q(membership_number__istartswith=query)).order_by(
        Unindexed("name"), "membership_number"
    )
    if found.exists():
        return PlayerMatches(found, near=False)
    return PlayerMatches(_near(players, words), near=True)


def _near(players: QuerySet[Player], words: list[str]) -> QuerySet[Player]:
    if connection.vendor == "postgresql":
        # Each word like a word of the name by pg_trgm's word similarity (at least NEAR_WORD_SIMILARITY, set on
        # each connection by players.search), answered by the index.
        alike = Q()
        for word in words:
            alike &= Q(name_folded__trigram_word_similar=word)
        similarity = sum(TrigramWordSimilarity(word, "name_folded") for word in words)
        return players.filter(alike).annotate(similarity=similarity).order_by("-similarity", "name")
    if Player.objects.count() > NEAR_IN_PYTHON_UP_TO:
        return players.none()
    alike = [pk for pk, name in players.values_list("pk", "name_folded") if _alike(words, name.split())]
    return players.filter(pk__in=alike)


def _alike(words: list[str], name_words: list[str]) -> bool:
    """Every word of the query is like a word of the name (or part of one): SQLite's near search."""
    return all(
        any(word in name_word or SequenceMatcher(None, word, name_word).ratio() >= 0.75 for name_word in name_words)
        for word in words
    )


# A search's number of players, when it finds many, is kept a minute (lib.counting.CountKept): a common first
# name among a million players is thousands of rows, counted again for every page of its results. Fewer are
# counted each time: a player published when their event is submitted is found at once.
PLAYER_COUNT_SECONDS = 60
PLAYER_COUNT_KEPT_FROM = 500


def player_matches_counted(matches: PlayerMatches, *, query: str) -> CountKept:
    """The players `matches` found, for a paginated table: their number, when large, kept for
    PLAYER_COUNT_SECONDS."""
    return CountKept(
        matches.players,
        name=f"players:{matches.near}:{query}",
        seconds=PLAYER_COUNT_SECONDS,
        kept_from=PLAYER_COUNT_KEPT_FROM,
    )


def player_search(*, query: str) -> QuerySet[Player]:
    """The players a search for `query` finds (player_matches), as the players page and the API list them."""
    return player_matches(query=query).players


def player_by_number(*, number: str) -> Player | None:
    return Player.objects.public().filter(membership_number=number.strip()).first()


# Names -------------------------------------------------------------------------------


def participants_containing(*, words: list[str]) -> list[int]:
    """The participants whose player's name or membership number, or team's name or members' numbers, contain
    every word of `words` in any case: found in the players' table through its trigram index, and in the teams',
    all the words in one query each (a query a word and table, then intersected: 19 of the 43 ms of the rating
    history's search for a whole name at ten million matches)."""
    players, teams = Q(), Q()
    for word in words:
        players &= Q(name__icontains=word) | Q(membership_number__icontains=word)
        teams &= Q(name__icontains=word) | Q(member_key__icontains=word)
    return [
        *Player.objects.filter(players).order_by().values_list("participant_id", flat=True),  # not by name
        *Team.objects.filter(teams).order_by().values_list("participant_id", flat=True),
    ]


def participant_names(*, participant_ids) -> dict[int, NamedParticipant]:
    """participant id -> its name and page, for pages that name hundreds of players or teams at once.

    Read from the players first, then the teams for those left, rather than
    through the participants joined to both: a big event's 900 players take
    one probe each instead of three (6.7 -> 3.3 ms at a million players).
    """
    wanted = set(participant_ids)
    if not wanted:
        return {}
    named = {
        pk: NamedParticipant(pk, Participant.Kind.PLAYER, name, number)
        for pk, name, number in Player.objects.filter(any_of("participant_id", wanted))
        .order_by()
        .values_list("participant_id", "name", "membership_number")
    }
    left = wanted - named.keys()
    if left:
        named |= {
            pk: NamedParticipant(pk, Participant.Kind.TEAM, team_label(name, member_key), member_key=member_key)
            for pk, name, member_key in Team.objects.filter(any_of("participant_id", left))
            .order_by()
            .values_list("participant_id", "name", "member_key")
        }
        left -= named.keys()
    if left:  # neither a player nor a team: nameless, which ParticipantLinks shows as a missing side
        named |= {
            pk: NamedParticipant(pk, kind, "")
            for pk, kind in Participant.objects.filter(any_of("pk", left)).values_list("pk", "kind")
        }
    return named


# Teams --------------------------------------------------------------------------------


def player_teams(*, player: Player) -> list[Team]:
    return list(player.teams.order_by("name", "member_key"))


# Suspensions ---------------------------------------------------------------------------


def suspended_participants(*, on) -> set[int]:
    """The participants of the players suspended on `on` (a date): left out of every ranking that day."""
    return set(Suspension.objects.on(on).values_list("player__participant_id", flat=True))


def player_suspension(*, player: Player, on) -> Suspension | None:
    """The player's suspension in force on `on`, if any (the one ending last)."""
    return Suspension.objects.on(on).filter(player=player).order_by(F("ends_on").desc(nulls_first=True)).first()


def suspensions_recent(*, limit: int = 20) -> QuerySet[Suspension]:
    """The latest suspensions, newest first, with their players: the correction log lists them."""
    return Suspension.objects.select_related("player", "suspended_by").order_by("-recorded_at", "-pk")[:limit]


def countries_lived_in() -> set[str]:
    """The country codes some player has (blank left out), found along the country index one country at a time:
    a recursive query of about as many index reads as countries, where a DISTINCT over every player took 20-30 ms
    at 100,000 players and grows with them."""
    table, column = Player._meta.db_table, Player._meta.get_field("country").column
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            WITH RECURSIVE used(code) AS (
                SELECT MIN({column}) FROM {table}
                UNION ALL
                SELECT (SELECT MIN({column}) FROM {table} WHERE {column} > used.code) FROM used
                WHERE used.code IS NOT NULL
            )
            SELECT code FROM used WHERE code IS NOT NULL AND code <> ''
            """
        )
        return {code for (code,) in cursor.fetchall()}
