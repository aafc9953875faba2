"""Rows and models as the JSON bodies of `api.schemas`, with absolute links to related resources."""

from django.http import HttpRequest, QueryDict
from django.urls import reverse

from api.selectors import HISTORY_RULESETS
from events.models import Event, Standing, match_result
from players.links import NamedParticipant, url_maker
from players.models import Participant, Player
from ratings.engine import displayed
from ratings.models import Category, CurrentRating, RatingEntry
from ratings.selectors.lists import LEVEL_RANK
from ratings.selectors.rankings import row_columns

RESULT_OF_SCORE = {1.0: "win", 0.0: "loss"}  # anything between is a draw (1/2, or 1/3 under match points)

# A ranking row's fields as the API names them (schemas.RankingRow), and those of a player's rating in a category.
RANKING_ROW = row_columns(rename={"display_id": "id"})
PLAYER_RATING = row_columns(leave_out=("rank", "display_id", "name", "country", "continent", "region"))


def page(request: HttpRequest, *, count: int, limit: int, offset: int) -> dict:
    """The envelope fields of a list: its size and the links to the neighbouring pages."""

    def link(to_offset: int) -> str:
        query: QueryDict = request.GET.copy()
        query["limit"], query["offset"] = str(limit), str(to_offset)
        return request.build_absolute_uri(f"{request.path}?{query.urlencode()}")

    return {
        "count": count,
        "limit": limit,
        "offset": offset,
        "next": link(offset + limit) if offset + limit < count else None,
        "previous": link(max(offset - limit, 0)) if offset > 0 else None,
    }


def url(request: HttpRequest, name: str, *args) -> str:
    return request.build_absolute_uri(reverse(f"api:{name}", args=args))


def player_url(request: HttpRequest, number: str) -> str:
    """url(request, "player", number), reversed and made absolute once per request: a big event names 7,500
    sides, and reverse() with build_absolute_uri() for each cost a third of its answer."""
    make = getattr(request, "_api_player_url", None)
    if make is None:
        path_of, origin = url_maker("api:player"), request.build_absolute_uri("/").removesuffix("/")
        make = request._api_player_url = lambda value: origin + path_of(value)
    return make(number)


def category_ref(category: Category) -> dict:
    return {
        "slug": category.slug,
        "name": category.name,
        "ruleset": category.ruleset,
        "display_rounding": category.display_rounding,
    }


def category(request, category: Category) -> dict:
    return {
        **category_ref(category),
        "formats": category.format_list,
        "components": category.component_list,
        "team_size": category.team_size,
        "start_rating": category.start_rating,
        "ranked_after": category.ranked_after,
        "provisional_until": category.provisional_until,
        "rankings_url": url(request, "rankings", category.slug),
    }


def ranks(row) -> dict:
    return {level: getattr(row, field) for level, field in LEVEL_RANK.items()}


def ranking_row(request, row, category: Category) -> dict:
    """A listed row (ratings.selectors.rankings.ROW_FIELDS) of the category's list."""
    return {
        **{name: getattr(row, field) for name, field in RANKING_ROW.items()},
        "rating_display": displayed(row.rating, category.display_rounding),
        "ranks": ranks(row),
        "player_url": url(request, "player", row.display_id) if category.team_size == 1 else None,
    }


def player(request, player: Player) -> dict:
    return {
        "membership_number": player.membership_number,
        "name": player.name,
        "country": player.country.code or "",
        "continent": player.continent,
        "region": player.region,
        "url": url(request, "player", player.membership_number),
    }


def player_rating(request, player: Player, row: CurrentRating) -> dict:
    history_url = f"{url(request, 'player-history', player.membership_number)}?category={row.category.slug}"
    has_history = row.category.ruleset in HISTORY_RULESETS
    return {
        "category": category_ref(row.category),
        **{name: getattr(row, field) for name, field in PLAYER_RATING.items()},
        "rating_display": displayed(row.rating, row.category.display_rounding),
        "ranks": ranks(row),
        "history_url": history_url if has_history else None,
    }


def participant(request, participant: Participant | None) -> dict | None:
    """A player or a team, named without further queries (the caller select_related both), as side() names it."""
    if participant is None:
        return None
    if hasattr(participant, "player"):
        player = participant.player
        named = NamedParticipant(participant.pk, Participant.Kind.PLAYER, player.name, player.membership_number)
    elif hasattr(participant, "team"):
        team = participant.team
        named = NamedParticipant(participant.pk, Participant.Kind.TEAM, str(team), member_key=team.member_key)
    else:
        named = NamedParticipant(participant.pk, participant.kind, "")
    return side(request, named)


def history_entry(request, entry: RatingEntry) -> dict:
    return {
        "date": entry.event_date,
        "event": {"id": entry.event_id, "name": entry.event.name, "url": url(request, "event", entry.event_id)},
        "round": entry.round,
        "opponent": participant(request, entry.opponent),
        "opponent_rating": entry.opponent_rating,
        "result": RESULT_OF_SCORE.get(entry.score, "draw"),
        "score": entry.score,
        "expected": entry.expected,
        "k": entry.k,
        "k_reason": entry.k_reason,
        "change": entry.change,
        "rating_before": entry.rating_before,
        "rating_after": entry.rating_after,
        "provisional": entry.provisional,
    }


def event(request, event: Event) -> dict:
    return {
        "id": event.pk,
        "code": event.code,
        "name": event.name,
        "date": event.date,
        "format": event.format,
        "team_size": event.team_size,
        "k": event.k,
        "player_count": event.player_count,
        "level2_judge": event.level2_judge,
        "structure": event.structure,
        "country": event.country.code or "",
        "city": event.city,
        "level": event.level,
        "status": event.status,
        "matches": event.match_count,
        "url": url(request, "event", event.pk),
    }


def standing(request, standing: Standing) -> dict:
    return {
        "rank": standing.rank,
        "participant": participant(request, standing.participant),
        "vp": float(standing.vp),
        "gw": standing.gw,
        "final": standing.final,
    }


def side(request, named: NamedParticipant | None) -> dict | None:
    """A player or a team as the API names it (players.selectors.participant_names gives a match's sides);
    a participant whose player or team is gone by its id alone."""
    if named is None:
        return None
    if named.kind == Participant.Kind.PLAYER and named.membership_number:
        number = named.membership_number
        return {"kind": "player", "id": number, "name": named.name, "url": player_url(request, number)}
    if named.kind == Participant.Kind.TEAM and named.member_key:
        return {"kind": "team", "id": named.member_key.replace(" ", "+"), "name": named.name, "url": None}
    return {"kind": named.kind, "id": str(named.pk), "name": "", "url": None}


def match(row: tuple, sides: dict[int, dict]) -> dict:
    """A MATCH_ROW of api.selectors.event_matches, its sides as `side` gives them (participant id -> side)."""
    pk, _round, participant1, participant2, games1, games2, draws, elimination = row
    return {
        "id": pk,
        # The side's one dict, wherever it plays: the event's answer is written as built (api.endpoints.event).
        # Validated by pydantic, one dict met 3,700 times was far slower than 3,700 copies.
        "participant1": sides.get(participant1),
        "participant2": sides.get(participant2) if participant2 is not None else None,
        "games1": games1,
        "games2": games2,
        "draws": draws,
        "result": match_result(games1, games2, bye=participant2 is None).value,
        "elimination": elimination,
    }


def rounds(request, matches: tuple[list[tuple], dict[int, NamedParticipant]]) -> list[dict]:
    """Matches grouped by round, in round order (api.selectors.event_matches gives them in that order)."""
    rows, named = matches
    # Each side written once, not once a match: the 900 players of the largest event meet in 3,700 matches.
    sides = {pk: side(request, each) for pk, each in named.items()}
    grouped: dict[int, list[dict]] = {}
    for row in rows:
        grouped.setdefault(row[1], []).append(match(row, sides))
    return [{"round": number, "matches": found} for number, found in grouped.items()]
