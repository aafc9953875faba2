"""The read-only JSON API (django-ninja): endpoints, and errors as JSON.

Each endpoint parses its parameters (the schemas validate them), calls one
selector and shapes the result; the OpenAPI document comes from the same
signatures, so it cannot drift from the code.
"""

from django.conf import settings
from django.http import Http404
from ninja import NinjaAPI, Query
from ninja.errors import HttpError, ValidationError

from api import selectors, serializers
from api.schemas import (
    CategoryPage,
    CategorySlug,
    Error,
    EventDetail,
    EventId,
    EventPage,
    EventParams,
    HistoryPage,
    HistoryParams,
    MembershipNumber,
    PageParams,
    PlayerDetail,
    PlayerPage,
    RankingPage,
    RankingParams,
    SearchParams,
)
from lib.client_address import client_address
from players.selectors import player_matches, player_matches_counted
from ratings.models import Category
from ratings.selectors.rankings import new_past_date_wait

api = NinjaAPI(
    title="Card game ratings API",
    version="1",
    description=(
        "Read-only JSON: rating categories, ranking lists (today's or as of a past date), players with their "
        "ratings and match histories, and events with standings and matches. Lists are paginated with `limit` "
        "and `offset` and share one envelope (`count`, `limit`, `offset`, `next`, `previous`, `results`). "
        "Errors are JSON too: `status`, `error`, `message` and, for bad parameters, `details`."
    ),
    urls_namespace="api",
    # Swagger UI from django-ninja's own static files, which it serves only when "ninja" is installed:
    # otherwise it would load them from a CDN, so then there is no Swagger page at all.
    docs_url="/docs/swagger/" if "ninja" in settings.INSTALLED_APPS else None,
)


# Errors -------------------------------------------------------------------


def error_response(request, status: int, error: str, message: str, details=()):
    body = {"status": status, "error": error, "message": message, "details": list(details)}
    return api.create_response(request, body, status=status)


def _parameter(location) -> str:
    """("query", "limit") -> "limit": the name a client sent."""
    return ".".join(str(part) for part in location[1:]) or str(location[0])


@api.exception_handler(ValidationError)
def bad_parameters(request, exc: ValidationError):
    details = [
        {"parameter": _parameter(error["loc"]), "message": error["msg"].removeprefix("Value error, ")}
        for error in exc.errors
    ]
    message = "; ".join(f"{detail['parameter']}: {detail['message']}" for detail in details)
    return error_response(request, 400, "bad_request", f"Invalid parameters: {message}.", details)


@api.exception_handler(selectors.BadRequest)
def bad_request(request, exc: selectors.BadRequest):
    details = [{"parameter": parameter, "message": message} for parameter, message in exc.details.items()]
    return error_response(request, 400, "bad_request", str(exc), details)


@api.exception_handler(selectors.NotFound)
def not_found(request, exc: selectors.NotFound):
    return error_response(request, 404, "not_found", str(exc))


@api.exception_handler(Http404)
def http_not_found(request, exc: Http404):
    return error_response(request, 404, "not_found", "Nothing here: see /api/docs/ for the endpoints.")


@api.exception_handler(HttpError)
def http_error(request, exc: HttpError):
    return error_response(request, exc.status_code, "http_error", exc.message)


# Categories ---------------------------------------------------------------


@api.get(
    "/categories/",
    response={200: CategoryPage, 400: Error},
    url_name="categories",
    summary="List the rating categories",
    tags=["categories"],
)
def categories(request, params: Query[PageParams]):
    """The rating categories: which formats feed them, by which rules, and how they display ratings."""
    rows = Category.objects.all()
    page = serializers.page(request, count=rows.count(), limit=params.limit, offset=params.offset)
    page_rows = rows[params.offset : params.offset + params.limit]
    return {**page, "results": [serializers.category(request, each) for each in page_rows]}


@api.get(
    "/rankings/{slug}/",
    response={200: RankingPage, 400: Error, 404: Error, 429: Error},
    url_name="rankings",
    summary="A category's ranking list",
    tags=["rankings"],
)
def rankings(request, slug: CategorySlug, params: Query[RankingParams]):
    """A category's ranking list at one level (world, continent, country or region), today or on a past date.

    The rank is the one at the narrowest place given (region, then country, then continent); equal ratings
    share a rank (1, 2, 2, 4), and `ranks` holds all four levels. `list=unranked` lists the players without
    enough matches to be ranked. `q` narrows the list without renumbering it: part of a name, or the start of
    a membership number (a team is found by any member's number).

    The filters are those of the site's ranking page, checked the same way: a country outside the continent
    given, or a region outside the country, is a 400 in the page's words. Any page of a list costs the same:
    it is read by rank (or, on a past date, by position), not by skipping `offset` rows.
    """
    category = selectors.category_get(slug=slug)
    filters = selectors.ranking_filters_of(
        continent=params.continent,
        country=params.country,
        region=params.region,
        as_of=params.as_of,
        ranked=params.list == "ranked",
        q=params.q,
    )
    wait = new_past_date_wait(
        category=category,
        as_of=filters.as_of,
        client=client_address(request),
        unlimited=request.user.is_staff,
        with_movement=False,
    )
    if wait:
        message = (
            f"Too many past dates not asked for before: try again in {wait} s. Today's lists, the ends of the "
            "last two months and dates asked for today are always available."
        )
        response = error_response(request, 429, "too_many_requests", message)
        response["Retry-After"] = str(wait)
        return response
    ranking = selectors.ranking_page(category=category, filters=filters, limit=params.limit, offset=params.offset)
    return {
        **serializers.page(request, count=ranking.count, limit=params.limit, offset=params.offset),
        "category": serializers.category_ref(category),
        "as_of": ranking.as_of,
        "level": ranking.level,
        "list": params.list,
        "continent": params.continent,
        "country": params.country,
        "region": params.region,
        "q": params.q,
        "near": ranking.near,
        "results": [serializers.ranking_row(request, row, category) for row in ranking.rows],
    }


# Players ------------------------------------------------------------------


@api.get(
    "/players/",
    response={200: PlayerPage, 400: Error},
    url_name="players",
    summary="Find players",
    tags=["players"],
)
def players(request, params: Query[SearchParams]):
    """Players by name, or by the start of their membership number."""
    matches = player_matches(query=params.q)
    rows = player_matches_counted(matches, query=params.q.strip())  # the number kept a minute, as on the pages
    count = len(rows)
    page = serializers.page(request, count=count, limit=params.limit, offset=params.offset)
    page_rows = rows[params.offset : params.offset + params.limit]
    return {
        **page,
        "near": matches.near and count > 0,
        "results": [serializers.player(request, each) for each in page_rows],
    }


@api.get(
    "/players/{membership_number}/",
    response={200: PlayerDetail, 404: Error},
    url_name="player",
    summary="A player and their ratings",
    tags=["players"],
)
def player(request, membership_number: MembershipNumber):
    """A player, with today's rating, matches and ranks at every level in each category they are rated in."""
    found = selectors.player_get(membership_number=membership_number)
    ratings = selectors.player_current_ratings(player=found)
    return {
        **serializers.player(request, found),
        "ratings": [serializers.player_rating(request, found, row) for row in ratings],
    }


@api.get(
    "/players/{membership_number}/history/",
    response={200: HistoryPage, 400: Error, 404: Error},
    url_name="player-history",
    summary="A player's match history in a category",
    tags=["players"],
)
def player_history(request, membership_number: MembershipNumber, params: Query[HistoryParams]):
    """A player's rated matches in one category, newest first: what each did to the rating, and why."""
    found = selectors.player_get(membership_number=membership_number)
    category = selectors.category_get(slug=params.category)
    entries = selectors.player_history(player=found, category=category)
    page = serializers.page(request, count=entries.count(), limit=params.limit, offset=params.offset)
    page_rows = entries[params.offset : params.offset + params.limit]
    return {
        **page,
        "player": serializers.player(request, found),
        "category": serializers.category_ref(category),
        "results": [serializers.history_entry(request, entry) for entry in page_rows],
    }


# Events -------------------------------------------------------------------


@api.get(
    "/events/",
    response={200: EventPage, 400: Error},
    url_name="events",
    summary="List events",
    tags=["events"],
)
def events(request, params: Query[EventParams]):
    """Submitted and rated events, newest first."""
    rows = selectors.event_search(q=params.q, format=params.format, country=params.country)
    page = serializers.page(request, count=rows.count(), limit=params.limit, offset=params.offset)
    page_rows = selectors.event_page(rows, offset=params.offset, limit=params.limit)
    return {**page, "results": [serializers.event(request, each) for each in page_rows]}


@api.get(
    "/events/{int:event_id}/",
    response={200: EventDetail, 404: Error},
    url_name="event",
    summary="An event with standings and matches",
    tags=["events"],
)
def event(request, event_id: EventId):
    """An event: its details, final standings, and the matches of every round."""
    found = selectors.event_get(event_id=event_id)
    body = {
        **serializers.event(request, found),
        "standings": [serializers.standing(request, row) for row in selectors.event_standings(event=found)],
        "rounds": serializers.rounds(request, selectors.event_matches(event=found)),
    }
    # Written as built, not validated against EventDetail on the way out: for the 3,700 matches of the largest
    # event that took a third of the answer (20 ms). The tests hold every answer to the schema instead
    # (tests/api/test_api_events.py: an answer is what EventDetail would write of it).
    return api.create_response(request, body, status=200)
