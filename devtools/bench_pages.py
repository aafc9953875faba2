"""The pages `manage.py bench` times: median and worst server time in process, and the queries of one request."""

import logging
import statistics
import time
from dataclasses import dataclass
from datetime import date, timedelta
from urllib.parse import urlencode

from django.db import connection
from django.db.models import Count, F
from django.test.utils import CaptureQueriesContext, override_settings

from events.models import Event
from ratings.models import Category
from ratings.snapshots import SNAPSHOTS_KEPT, ranking_snapshots, snapshot_rows_tidy

MARATHON_ID = "BENCH-MARATHON"  # the player with a 2,000-match history the bundle adds (devtools.benchmark)
EVENTS_PER_PAGE = 50  # public.event_views


@dataclass
class PageFigure:
    name: str
    median_ms: float
    worst_ms: float
    queries: int


def page_measure(client, name: str, url: str, *, repeat: int = 15) -> PageFigure:
    """Median and worst server time of `repeat` requests (after one warm-up), and the queries of one."""
    response = client.get(url)
    if response.status_code != 200:
        raise RuntimeError(f"{url} answered {response.status_code}")
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        client.get(url)
        times.append((time.perf_counter() - started) * 1000)
    with CaptureQueriesContext(connection) as queries:
        client.get(url)
    return PageFigure(name, statistics.median(times), max(times), len(queries))


def _typo(name: str) -> str:
    """`name` with a letter of its last word dropped, as a hurried visitor types it."""
    *first, last = name.split()
    middle = len(last) // 2
    return " ".join([*first, last[:middle] + last[middle + 1 :]])


def _largest_event() -> Event | None:
    """The event with the most players (then matches): the site's, the API's and the admin's pages time the same."""
    events = Event.objects.annotate(rows=Count("matches"))
    return events.order_by(F("player_count").desc(nulls_last=True), "-rows", "pk").first()


def _site_pages(sample_name: str) -> list[tuple[str, str]]:
    """The pages every visitor passes through: home, the event list, the largest event, player searches (one
    word, a whole name in reverse order, a whole name with a typo)."""
    events = Event.objects.count()
    deep = max(1, min(50, (events + EVENTS_PER_PAGE - 1) // EVENTS_PER_PAGE))
    largest = _largest_event()
    pages = [
        ("home page", "/"),
        ("event list, page 1", "/events/"),
        (f"event list, page {deep}", f"/events/?page={deep}"),
    ]
    if largest:
        name = f"event page, the largest event ({largest.player_count} players, {largest.rows} matches)"
        pages.append((name, f"/events/{largest.pk}/"))
    words = sample_name.split()
    for query in (words[0], " ".join(reversed(words)), _typo(sample_name)):
        pages.append((f"player search ({query!r})", "/players/?" + urlencode({"q": query})))
    return pages


def _other_lists_pages() -> list[tuple[str, str]]:
    """Every other list's ranking (limited, vintage, composite, the team lists, V:EKN): its first page, its
    middle page and a search for its leader's first name (or number)."""
    from ratings.models import CurrentRating

    pages = []
    for category in Category.objects.exclude(slug="constructed").order_by("position"):
        ranked = CurrentRating.objects.filter(category=category, ranked=True)
        middle = max(1, ranked.count() // 100)
        leader = ranked.order_by("world_rank").values_list("name", "display_id").first()
        base = f"/rankings/{category.slug}/"
        pages += [
            (f"ranking: {category.slug}", base),
            (f"ranking: {category.slug}, page {middle}", f"{base}?page={middle}"),
        ]
        if leader:
            word = leader[0].split()[0] if leader[0] else leader[1]
            pages.append((f"ranking: {category.slug}, search ({word!r})", f"{base}?{urlencode({'q': word})}"))
    return pages


def pages_measure(*, site_pages: bool = True) -> list[PageFigure]:
    """The ranking pages of `constructed` (every level, deep pages, past dates), a player page, and with
    `site_pages` the home page, event list and largest event page and a player search."""
    from django.test import Client

    from ratings.models import CurrentRating, OfficialList, RankingSnapshot, SnapshotRating

    client = Client()
    category = Category.objects.get(slug="constructed")
    lists = CurrentRating.objects.filter(category=category)
    sample = lists.filter(ranked=True).exclude(region="").order_by("world_rank")[0]

    def last_page(**level) -> int:
        return max(1, (lists.filter(**level).count() + 49) // 50)

    world, unranked = last_page(ranked=True), last_page(ranked=False)
    continent = last_page(ranked=True, continent=sample.continent)
    country = last_page(ranked=True, country=sample.country)
    base = "/rankings/constructed/"
    past = (date.today().replace(day=1) - timedelta(days=400)).isoformat()
    marathon_matches = lists.filter(display_id=MARATHON_ID).values_list("matches", flat=True).first()
    search = "?" + urlencode({"q": sample.name.split()[0]})
    typo = "?" + urlencode({"q": _typo(sample.name)})
    pages = [
        ("ranking: world, page 1", "/rankings/constructed/"),
        (f"ranking: world, last page ({world})", f"/rankings/constructed/?page={world}"),
        (f"ranking: world, middle page ({world // 2})", f"/rankings/constructed/?page={world // 2}"),
        ("ranking: continent", f"/rankings/constructed/?continent={sample.continent}"),
        (f"ranking: continent, last page ({continent})", f"{base}?continent={sample.continent}&page={continent}"),
        ("ranking: country", f"/rankings/constructed/?country={sample.country}"),
        (f"ranking: country, last page ({country})", f"/rankings/constructed/?country={sample.country}&page={country}"),
        ("ranking: region", f"/rankings/constructed/?country={sample.country}&region={sample.region}"),
        ("ranking: unranked list", "/rankings/constructed/?list=unranked"),
        (f"ranking: unranked, last page ({unranked})", f"/rankings/constructed/?list=unranked&page={unranked}"),
        (f"ranking: unranked, middle page ({unranked // 2})", f"{base}?list=unranked&page={unranked // 2}"),
        ("ranking: search", f"/rankings/constructed/{search}"),
        (f"ranking: search with a typo ({_typo(sample.name)!r})", f"/rankings/constructed/{typo}"),
        ("ranking: sorted by name, page 2", "/rankings/constructed/?sort=name&page=2"),
        (f"ranking: as of {past}", f"/rankings/constructed/?as_of={past}"),
        (f"ranking: as of {past}, last page", f"/rankings/constructed/?as_of={past}&page={world}"),
        (f"ranking: as of {past}, country", f"/rankings/constructed/?as_of={past}&country={sample.country}"),
        (f"ranking: as of {past}, unranked", f"/rankings/constructed/?as_of={past}&list=unranked"),
        (f"ranking: as of {past}, search", f"/rankings/constructed/{search}&as_of={past}"),
        (f"player page ({marathon_matches} matches)", f"/players/{MARATHON_ID}/"),
        ("player page, history page 40", f"/players/{MARATHON_ID}/?page=40"),
    ]  # fmt: skip
    if site_pages:
        pages = _site_pages(sample.name) + pages + _other_lists_pages()
    # Past lists are written on their first request: start from none, so the first requests below are first.
    with connection.cursor() as cursor:
        tables = (SnapshotRating, RankingSnapshot, OfficialList)  # an official list's snapshot goes with it
        cursor.execute(f"TRUNCATE {', '.join(model._meta.db_table for model in tables)}")
    # Then lived in, as a day of visitors leaves it: SNAPSHOTS_KEPT lists of other dates (and the statistics
    # and vacuum their jobs gave them), so each list written below replaces the oldest, as on the site.
    visited = [date.today() - timedelta(days=30 * months + 15) for months in range(15, 15 + SNAPSHOTS_KEPT)]
    ranking_snapshots(category=category, dates=visited)
    snapshot_rows_tidy()
    # As in production (no query log, no debug templates), but every request rendered: a page the site kept
    # under its ETag (public.conditional) would time a cache, not the page a visitor meets first.
    with override_settings(DEBUG=False, PUBLIC_PAGE_KEPT_MAX_BYTES=0):
        # The past date's first visit writes its list (and the month end's before it) and queues a job for
        # the list's statistics, which a job worker carries out seconds later: the visitors timed below come
        # after.
        client.get(f"/rankings/constructed/?as_of={past}")
        snapshot_rows_tidy()
        figures = [page_measure(client, name, url) for name, url in pages]
        # A past date nobody asked for yet today: its list and the month end's before it are written.
        day = date.today() - timedelta(days=333)
        figures.append(_first_request("ranking: a new past date, first request", day, client))
        # Another day of that month: written from the month end's list and the history in between.
        other = day + timedelta(days=1 if day.day < 20 else -1)
        figures.append(_first_request("ranking: a day of the same month, first request", other, client))
    return figures


def _first_request(name: str, day: date, client) -> PageFigure:
    started = time.perf_counter()
    response = client.get(f"/rankings/constructed/?as_of={day.isoformat()}")
    first = (time.perf_counter() - started) * 1000
    if response.status_code != 200:
        raise RuntimeError(f"as_of={day} answered {response.status_code}")
    return PageFigure(f"{name} ({day.isoformat()})", first, first, -1)


def signed_in_pages_measure() -> list[PageFigure]:
    """The pages admins work in, signed in as one (every event is theirs): the organizers' event list; the
    admin's lists of matches, searched by the largest event's code and by a surname and narrowed to one of
    its rounds; a match and its correction page; the events, the players and the rating history, searched."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from events.models import Match

    admin, _ = get_user_model().objects.update_or_create(
        username="bench-admin", defaults={"is_staff": True, "is_superuser": True}
    )
    client = Client()
    guard = logging.getLogger("axes")  # its notes of the sign-in would come out among the figures
    level = guard.level
    guard.setLevel(logging.WARNING)
    try:
        client.force_login(admin)
    finally:
        guard.setLevel(level)
    event = _largest_event()
    match = (
        Match.objects.filter(event=event, participant2__isnull=False, participant1__player__isnull=False)
        .select_related("participant1__player")
        .order_by("round", "pk")
        .first()
    )
    name = match.participant1.player.name
    surname = name.split()[-1]
    matches = "/admin/events/match/"
    pages = [
        ("organizers' event list (an admin: every event)", "/organize/"),
        ("admin: matches", matches),
        (f"admin: matches, search for an event's code ({event.code})", f"{matches}?{urlencode({'q': event.code})}"),
        (f"admin: matches, search for a surname ({surname!r})", f"{matches}?{urlencode({'q': surname})}"),
        ("admin: matches of the largest event, round 1", f"{matches}?event={event.pk}&round=1"),
        ("admin: a match", f"{matches}{match.pk}/change/"),
        ("a match's correction page", f"/corrections/matches/{match.pk}/correct/"),
        ("admin: events", "/admin/events/event/"),
        ("admin: players", "/admin/players/player/"),
        (f"admin: players, search ({surname!r})", f"/admin/players/player/?{urlencode({'q': surname})}"),
        ("admin: rating history", "/admin/ratings/ratingentry/"),
        (f"admin: rating history, search ({name!r})", f"/admin/ratings/ratingentry/?{urlencode({'q': name})}"),
    ]
    with override_settings(DEBUG=False):
        return [page_measure(client, name, url, repeat=7) for name, url in pages]


def api_pages_measure() -> list[PageFigure]:
    """The API as a program reads it: the event list (first and page 101), the largest event whole, the
    ranking list (first, middle and last 100 rows, a country), the marathon player and a page of their history."""
    from django.test import Client

    from ratings.models import CurrentRating

    client = Client()
    event = _largest_event()
    listed = CurrentRating.objects.filter(category__slug="constructed")
    rows = listed.filter(ranked=True).count()  # the API lists the ranked (list=unranked the others)
    country = listed.filter(ranked=True).exclude(country="").order_by("world_rank").values_list("country", flat=True)[0]
    rankings = "/api/rankings/constructed/"
    # The marathon player the bench's bundle adds; in a smaller world, the most played.
    marathon = listed.filter(display_id=MARATHON_ID).first() or listed.order_by("-matches", "pk").first()
    history = f"/api/players/{marathon.display_id}/history/?category=constructed"
    pages = [
        ("api: events", "/api/events/"),
        ("api: events, page 101", "/api/events/?offset=5000"),
        (f"api: the largest event, every match ({event.player_count} players)", f"/api/events/{event.pk}/"),
        ("api: ranking, first 100", f"{rankings}?limit=100"),
        (f"api: ranking, 100 from the middle ({rows // 2:,})", f"{rankings}?limit=100&offset={rows // 2}"),
        ("api: ranking, the last 100", f"{rankings}?limit=100&offset={max(rows - 100, 0)}"),
        (f"api: ranking, a country ({country})", f"{rankings}?country={country}"),
        (f"api: a player ({marathon.matches} matches)", f"/api/players/{marathon.display_id}/"),
        ("api: their history, the last 50", f"{history}&offset={max(marathon.matches - 50, 0)}"),
    ]
    with override_settings(DEBUG=False):
        return [page_measure(client, name, url, repeat=7) for name, url in pages]
