"""The pages `manage.py bench` times: median and worst server time in process, and the queries of one request."""

import csv
import io
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


def _largest_event(events=None, *, played: bool = False) -> Event | None:
    """The event of `events` (every event) with the most players, then matches: the site's, the API's and the
    admin's pages time the same; `played`: one with matches (a V:EKN event has standings only)."""
    counted = (Event.objects if events is None else events).annotate(rows=Count("matches"))
    if played:
        counted = counted.filter(rows__gt=0)
    return counted.order_by(F("player_count").desc(nulls_last=True), "-rows", "pk").first()


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


def _signed_in(user):
    """A test client signed in as `user`."""
    from django.test import Client

    client = Client()
    guard = logging.getLogger("axes")  # its notes of the sign-in would come out among the figures
    level = guard.level
    guard.setLevel(logging.WARNING)
    try:
        client.force_login(user)
    finally:
        guard.setLevel(level)
    return client


def signed_in_pages_measure() -> list[PageFigure]:
    """The pages admins work in, signed in as one (every event is theirs): the organizers' event list; the
    admin's lists of matches, searched by the largest event's code and by a surname and narrowed to one of
    its rounds; a match and its correction page; the events, the players and the rating history, searched;
    then the admin's list of every other kind of row."""
    from django.contrib.auth import get_user_model

    from events.models import Match

    admin, _ = get_user_model().objects.update_or_create(
        username="bench-admin", defaults={"is_staff": True, "is_superuser": True}
    )
    client = _signed_in(admin)
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
    pages += [(f"admin: {label}", url) for label, url in _other_admin_lists({url for _, url in pages})]
    with override_settings(DEBUG=False):
        return [page_measure(client, name, url, repeat=7) for name, url in pages]


def _other_admin_lists(measured: set[str]) -> list[tuple[str, str]]:
    """(the rows' name, the list's address) of every kind of row in the admin whose list is not in `measured`."""
    from django.apps import apps
    from django.contrib import admin
    from django.urls import reverse

    lists = []
    for model in apps.get_models():
        if admin.site.is_registered(model):
            address = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
            if address not in measured:
                lists.append((str(model._meta.verbose_name_plural), address))
    return sorted(lists)


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


BENCH_DRAFT = "Bench draft (the largest event again)"


def _results_files(event: Event) -> dict[str, str]:
    """The event's results as an organizer uploads them: the upload form's field -> its file's text, from the rows
    the organizers' pages check (organize.results.stored_results_rows), without the source event's id."""
    from organize.results import stored_results_rows

    files = {}
    for file, rows in stored_results_rows(event).items():
        if rows:
            text = io.StringIO()
            columns = [column for column in rows[0] if column != "event_id"]
            writer = csv.DictWriter(text, columns, extrasaction="ignore", lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
            files[file.removesuffix(".csv")] = text.getvalue()
    return files


def _draft_like(source: Event, organizer) -> Event:
    """A new draft of `organizer` shaped like `source` (its earlier drafts of the bench go)."""
    from organize.services import event_create

    Event.objects.filter(organizer=organizer, name=BENCH_DRAFT).delete()
    fields = ("date", "format", "k", "player_count", "level2_judge", "structure", "country", "city")
    return event_create(organizer=organizer, name=BENCH_DRAFT, **{field: getattr(source, field) for field in fields})


def organizer_pages_measure() -> list[PageFigure]:
    """An organizer's pages, signed in as one who reported three small events and now reports one as large as
    the largest individual event: its results uploaded into the empty draft (the matches and standings files),
    then the organizer's event list, the draft's page, its upload form, round 1 and the standings as forms to
    type into, and the preview of what it does to the ratings."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.core.files.uploadedfile import SimpleUploadedFile

    from accounts.roles import ORGANIZERS

    organizer, _ = get_user_model().objects.get_or_create(username="bench-organizer")
    organizer.groups.add(Group.objects.get(name=ORGANIZERS))
    individual = Event.objects.filter(team_size=1).exclude(name=BENCH_DRAFT)
    small = individual.order_by("player_count", "pk").values_list("pk", flat=True)[:3]
    Event.objects.filter(pk__in=list(small)).update(organizer=organizer)
    source = _largest_event(individual, played=True)
    files = _results_files(source)
    client = _signed_in(organizer)
    times = []
    with override_settings(DEBUG=False):
        for _ in range(3):  # each into a new empty draft: every match and standing written
            draft = _draft_like(source, organizer)
            data = {name: SimpleUploadedFile(f"{name}.csv", text.encode()) for name, text in files.items()}
            started = time.perf_counter()
            response = client.post(f"/organize/events/{draft.pk}/upload/", data)
            times.append((time.perf_counter() - started) * 1000)
            if response.status_code != 302:
                raise RuntimeError(f"the upload answered {response.status_code}: {response.content[:2000]!r}")
        base = f"/organize/events/{draft.pk}/"
        size = f"{source.player_count} players, {source.rows} matches"
        pages = [
            (f"organizer: their event list ({Event.objects.filter(organizer=organizer).count()} events)", "/organize/"),
            (f"organizer: the draft's page ({size})", base),
            ("organizer: its upload form", f"{base}upload/"),
            ("organizer: its round 1 as a form", f"{base}rounds/1/"),
            ("organizer: its standings as a form", f"{base}standings/"),
            ("organizer: its preview (the ratings it changes)", f"{base}preview/"),
        ]
        figures = [PageFigure(f"organizer: upload of its results ({size})", statistics.median(times), max(times), -1)]
        return figures + [page_measure(client, name, url, repeat=5) for name, url in pages]


def player_pages_measure() -> list[PageFigure]:
    """A player's pages, signed in as the marathon player's account: their account, their appeals, the
    appeal form of their last match and their details; and the correction log everyone reads."""
    from django.contrib.auth import get_user_model

    from accounts.models import Profile
    from events.models import Match
    from players.models import Player

    # The marathon player the bench's bundle adds; in a smaller world, a player of the last match.
    played = Match.objects.filter(participant1__player__isnull=False).order_by("-event__date", "-pk")
    player = Player.objects.filter(membership_number=MARATHON_ID).first() or played.first().participant1.player
    user, _ = get_user_model().objects.get_or_create(username="bench-player")
    Profile.objects.filter(player=player).exclude(user=user).update(player=None)
    Profile.objects.update_or_create(user=user, defaults={"player": player})
    match = Match.objects.filter(participant1__player=player).order_by("-event__date", "-pk").first()
    client = _signed_in(user)
    pages = [
        ("player: their account", "/accounts/"),
        ("player: their appeals", "/appeals/"),
        ("player: the appeal form of their last match", f"/appeals/new/{match.pk}/"),
        ("player: their details", "/appeals/details/"),
        ("the correction log", "/corrections/"),
    ]
    with override_settings(DEBUG=False):
        return [page_measure(client, name, url, repeat=7) for name, url in pages]
