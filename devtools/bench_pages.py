"""The pages `manage.py bench` times: median and worst server time in process, and the queries of one request."""

import csv
import io
import logging
import statistics
import time
from dataclasses import dataclass
from datetime import date, timedelta
from urllib.parse import urlencode

from django.core.management.color import no_style
from django.db import connection
from django.db.models import Count, F, Q
from django.test.utils import CaptureQueriesContext, override_settings

from events.models import Event
from public.player_views import HISTORY_PER_PAGE
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
    url: str = ""  # what was asked for (empty: a POST, or several requests)


def _answered(client, url: str):
    """GET `url` and read the answer to its last byte: a streamed download (a list's export, the history file)
    is timed until it has all been sent, not until its first chunk is ready."""
    response = client.get(url)
    if response.streaming:
        b"".join(response.streaming_content)  # the test client closes it once read
    return response


def page_measure(client, name: str, url: str, *, repeat: int = 15) -> PageFigure:
    """Median and worst server time of `repeat` requests (after one warm-up), and the queries of one."""
    response = _answered(client, url)
    if response.status_code != 200:
        raise RuntimeError(f"{url} answered {response.status_code}")
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        _answered(client, url)
        times.append((time.perf_counter() - started) * 1000)
    with CaptureQueriesContext(connection) as queries:
        _answered(client, url)
    return PageFigure(name, statistics.median(times), max(times), len(queries), url)


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


def visitor_pages_measure() -> list[PageFigure]:
    """Every other page a visitor opens, anonymous: the lists' index, the players' list and the search's
    suggestions, head to head (the opponent's pick and the meetings with the most frequent opponent), the
    largest team, the feeds, the official lists, the calculator, a correction, the sign-in and sign-up pages,
    and the downloads: the ranked list as CSV and JSON, a country, an official list, the history file."""
    from django.test import Client

    from corrections.models import Correction
    from players.models import Participant, Player
    from ratings.models import CurrentRating, OfficialList
    from ratings.services.downloads import history_files_refresh
    from ratings.services.official import official_lists_publish

    category = Category.objects.get(slug="constructed")
    lists = CurrentRating.objects.filter(category=category)
    marathon = Player.objects.get(membership_number=_marathon(lists).display_id)
    opponent = _most_met(marathon.participant_id)
    team = (
        CurrentRating.objects.filter(participant__kind=Participant.Kind.TEAM)
        .order_by("-matches", "pk")
        .values_list("participant_id", flat=True)
        .first()
    )
    first_name = _common_first_name()
    country = lists.filter(ranked=True).exclude(country="").order_by("world_rank").values_list("country")[0][0]
    official_lists_publish(categories=[category])  # last month's, as the job at the start of a month
    official = OfficialList.objects.filter(category=category).order_by("-as_of").first()
    history_files_refresh()  # as the jobs after a publication do
    correction = Correction.objects.order_by("-pk").values_list("pk", flat=True).first()
    rows = lists.filter(ranked=True).count()
    base = f"/rankings/{category.slug}/"
    person = f"/players/{marathon.membership_number}/"
    official_url = f"{base}official/{official.as_of.isoformat()}/"
    calculation = "rating=1650&rules=dci-2001&k=16" + "".join(
        f"&opponent{n}={1500 + 40 * n}&result{n}={'WLD'[n % 3]}" for n in range(1, 9)
    )
    pages = [
        ("every list's leaders", "/rankings/"),
        ("players, the list", "/players/"),
        (f"player suggestions ({first_name[:3]!r})", "/suggest/players/?" + urlencode({"q": first_name[:3]})),
        (f"head to head, an opponent to pick ({first_name!r})", f"{person}vs/?{urlencode({'opponent': first_name})}"),
    ]
    if opponent:
        pages.append(("head to head with their most met opponent", f"{person}vs/{opponent}/"))
    if team:
        pages.append(("team page, the most played team", f"/teams/{team}/"))
    pages += [
        ("player feed", f"{person}feed/"),
        ("ranking feed", f"{base}feed/"),
        ("official lists", f"{base}official/"),
        (f"official list of {official.as_of} ({official.ranked:,} ranked)", official_url),
        ("official list, last page", f"{official_url}?page={max(1, (official.ranked + 49) // 50)}"),
        ("calculator", "/calculator/"),
        ("calculator, eight opponents", f"/calculator/?{calculation}"),
    ]
    if correction:
        pages.append(("a correction", f"/corrections/{correction}/"))
    pages += [
        ("the corrections' feed", "/corrections/feed/"),
        ("sign in", "/accounts/login/"),
        ("sign up", "/accounts/sign-up/"),
        ("sign up, the mail sent", "/accounts/sign-up/sent/"),
        ("password reset", "/accounts/password_reset/"),
        ("password reset, the mail sent", "/accounts/password_reset/done/"),
        ("password reset, done", "/accounts/reset/done/"),
        (f"download: the ranked list as CSV ({rows:,} rows)", f"{base}?_export=csv"),
        (f"download: the ranked list as JSON ({rows:,} rows)", f"{base}?_export=json"),
        (f"download: a country as CSV ({country})", f"{base}?{urlencode({'country': country, '_export': 'csv'})}"),
        ("download: the official list as CSV", f"{official_url}?_export=csv"),
        ("download: the history file", f"{base}history.csv.gz"),
    ]
    with override_settings(DEBUG=False, PUBLIC_PAGE_KEPT_MAX_BYTES=0):
        return [page_measure(Client(), name, url, repeat=7) for name, url in pages]


def _common_first_name() -> str:
    """The first name most common among a thousand players: several to pick from, as for most names."""
    from collections import Counter

    from players.models import Player

    names = Player.objects.order_by("pk").values_list("name", flat=True)[:1000]
    return Counter(name.split()[0] for name in names if name.split()).most_common(1)[0][0]


def _marathon(listed):
    """The marathon player's row of `listed` (an individual list): the one the bench's bundle adds; in a smaller
    world, the most played."""
    return listed.filter(display_id=MARATHON_ID).first() or listed.order_by("-matches", "pk").first()


def _most_met(participant_id: int) -> str | None:
    """The membership number of the player `participant_id` met most often."""
    from django.db.models import Case, When

    from events.models import Match
    from players.models import Player

    met = (
        Match.objects.filter(Q(participant1_id=participant_id) | Q(participant2_id=participant_id))
        .exclude(participant2__isnull=True)
        .annotate(
            other=Case(When(participant1_id=participant_id, then=F("participant2_id")), default=F("participant1_id"))
        )
        .values("other")
        .annotate(meetings=Count("pk"))
        .order_by("-meetings", "other")
        .values_list("other", flat=True)
    )
    # An individual list's player meets players only.
    return Player.objects.filter(participant_id=met[:1]).values_list("membership_number", flat=True).first()


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
    marathon = _marathon(lists)
    history_page = min(40, (marathon.matches + HISTORY_PER_PAGE - 1) // HISTORY_PER_PAGE)
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
        (f"player page ({marathon.matches} matches)", f"/players/{marathon.display_id}/"),
        (f"player page, history page {history_page}", f"/players/{marathon.display_id}/?page={history_page}"),
    ]  # fmt: skip
    if site_pages:
        pages = _site_pages(sample.name) + pages + _other_lists_pages()
    # Past lists are written on their first request: start from none, so the first requests below are first.
    tables = [model._meta.db_table for model in (SnapshotRating, RankingSnapshot, OfficialList)]
    connection.ops.execute_sql_flush(connection.ops.sql_flush(no_style(), tables))  # TRUNCATE where there is one
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


def _bench_admin():
    """The bench's admin: staff and a member of the Admins group, as the site's admins are; not a superuser,
    whose every permission is granted without reading any."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from accounts.roles import ADMINS

    admin, _ = get_user_model().objects.update_or_create(
        username="bench-admin", defaults={"is_staff": True, "is_superuser": False}
    )
    admin.groups.add(Group.objects.get(name=ADMINS))
    return admin


def signed_in_pages_measure() -> list[PageFigure]:
    """The pages admins work in, signed in as one (every event is theirs): the organizers' event list; the
    admin's lists of matches, searched by the largest event's code and by a surname and narrowed to one of
    its rounds; a match, its correction page and the correction's preview, its removal page, a match added; the
    appeals, claims and merges to decide; the events, the players and the rating history, searched; then the
    admin's list of every other kind of row."""

    from events.models import Match

    admin = _bench_admin()
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
        ("a match's removal page", f"/corrections/matches/{match.pk}/remove/"),
        ("a match added to the largest event: its form", f"/corrections/events/{event.pk}/add-match/"),
        ("the appeals to review", "/appeals/queue/"),
        ("the claims and detail requests to decide", "/claims/queue/"),
        ("two players merged: its form", "/claims/merge/"),
        ("admin: events", "/admin/events/event/"),
        ("admin: players", "/admin/players/player/"),
        (f"admin: players, search ({surname!r})", f"/admin/players/player/?{urlencode({'q': surname})}"),
        ("admin: rating history", "/admin/ratings/ratingentry/"),
        (f"admin: rating history, search ({name!r})", f"/admin/ratings/ratingentry/?{urlencode({'q': name})}"),
    ]
    pages += [(f"admin: {label}", url) for label, url in _other_admin_lists({url for _, url in pages}, admin)]
    # The correction's preview: what it would do to every rating, before the admin applies it.
    was = {"was_games1": match.games1, "was_games2": match.games2, "was_draws": match.draws}
    swapped = {"games1": match.games2, "games2": match.games1, "draws": match.draws, "reason": "Bench: slips swapped."}
    preview = {**was, **swapped, "action": "preview"}
    with override_settings(DEBUG=False):
        figures = [page_measure(client, name, url, repeat=7) for name, url in pages]
        name = f"a match's correction previewed ({event.date}: its impact on the ratings)"
        figures.insert(
            7,
            post_measure(
                client,
                name,
                f"/corrections/matches/{match.pk}/correct/",
                preview,
                repeat=7,
                must_contain=b'id="impact-heading"',
            ),
        )
        return figures


def post_measure(client, name: str, url: str, data: dict, *, repeat: int, must_contain: bytes) -> PageFigure:
    """As page_measure, for a form posted that answers with a page (a preview) holding `must_contain`: not a
    redirect, nor the form again with its errors."""
    times = []
    for _ in range(repeat + 1):  # the first one warms up
        started = time.perf_counter()
        response = client.post(url, data)
        times.append((time.perf_counter() - started) * 1000)
        if response.status_code != 200 or must_contain not in response.content:
            raise RuntimeError(f"POST {url} answered {response.status_code} without {must_contain!r}")
    with CaptureQueriesContext(connection) as queries:
        client.post(url, data)
    return PageFigure(name, statistics.median(times[1:]), max(times[1:]), len(queries))


def _other_admin_lists(measured: set[str], user) -> list[tuple[str, str]]:
    """(the rows' name, the list's address) of every kind of row in the admin whose list `user` may see and is
    not in `measured`."""
    from django.apps import apps
    from django.contrib import admin
    from django.urls import reverse

    lists = []
    for model in apps.get_models():
        if admin.site.is_registered(model) and user.has_perm(f"{model._meta.app_label}.view_{model._meta.model_name}"):
            address = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
            if address not in measured:
                lists.append((str(model._meta.verbose_name_plural), address))
    return sorted(lists)


def api_pages_measure() -> list[PageFigure]:
    """The API as a program reads it: its index, documentation and schema, the lists, a players' search, the
    event list (first and page 101), the largest event whole, the ranking list (first, middle and last 100 rows,
    a country), the marathon player and a page of their history."""
    from django.test import Client

    from ratings.models import CurrentRating

    client = Client()
    event = _largest_event()
    listed = CurrentRating.objects.filter(category__slug="constructed")
    rows = listed.filter(ranked=True).count()  # the API lists the ranked (list=unranked the others)
    country = listed.filter(ranked=True).exclude(country="").order_by("world_rank").values_list("country", flat=True)[0]
    rankings = "/api/rankings/constructed/"
    marathon = _marathon(listed)
    history = f"/api/players/{marathon.display_id}/history/?category=constructed"
    surname = marathon.name.split()[-1] if marathon.name.split() else marathon.display_id
    pages = [
        ("api: its index", "/api/"),
        ("api: its documentation", "/api/docs/"),
        ("api: its OpenAPI schema", "/api/openapi.json"),
        ("api: its interactive documentation", "/api/docs/swagger/"),
        ("api: the lists", "/api/categories/"),
        (f"api: players, search ({surname!r})", "/api/players/?" + urlencode({"q": surname})),
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
    then the organizer's event list, a new event's form, the draft's page, its details, its upload form, round 1
    and the standings as forms to type into, the preview of what it does to the ratings and its deletion page."""
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
            ("organizer: a new event's form", "/organize/events/new/"),
            (f"organizer: the draft's page ({size})", base),
            ("organizer: its details as a form", f"{base}edit/"),
            ("organizer: its upload form", f"{base}upload/"),
            ("organizer: its round 1 as a form", f"{base}rounds/1/"),
            ("organizer: its standings as a form", f"{base}standings/"),
            ("organizer: its preview (the ratings it changes)", f"{base}preview/"),
            ("organizer: its deletion page", f"{base}delete/"),
        ]
        figures = [PageFigure(f"organizer: upload of its results ({size})", statistics.median(times), max(times), -1)]
        return figures + [page_measure(client, name, url, repeat=5) for name, url in pages]


def player_pages_measure() -> list[PageFigure]:
    """A player's pages, signed in as the marathon player's account: their account, their appeals, the
    appeal form of their last match, their details and their password's change; the correction log everyone
    reads; and their appeal of that match as an admin reviews it (the bench's admin: signed_in_pages_measure)."""
    from django.contrib.auth import get_user_model

    from accounts.models import Profile
    from corrections.services import appeal_file
    from events.models import Match
    from players.models import Player

    # The marathon player the bench's bundle adds; in a smaller world, a player of the last match.
    played = Match.objects.filter(participant1__player__isnull=False).order_by("-event__date", "-pk")
    player = Player.objects.filter(membership_number=MARATHON_ID).first() or played.first().participant1.player
    user, _ = get_user_model().objects.get_or_create(username="bench-player")
    Profile.objects.filter(player=player).exclude(user=user).update(player=None)
    Profile.objects.update_or_create(user=user, defaults={"player": player})
    match = (
        Match.objects.filter(participant1__player=player, participant2__isnull=False)
        .order_by("-event__date", "-pk")
        .first()
    )
    client = _signed_in(user)
    pages = [
        ("player: their account", "/accounts/"),
        ("player: their appeals", "/appeals/"),
        ("player: the appeal form of their last match", f"/appeals/new/{match.pk}/"),
        ("player: their details", "/appeals/details/"),
        ("player: their password changed: its form", "/accounts/password_change/"),
        ("player: their password changed", "/accounts/password_change/done/"),
        ("the correction log", "/corrections/"),
    ]
    with override_settings(DEBUG=False):
        figures = [page_measure(client, name, url, repeat=7) for name, url in pages]
        # Their appeal of that match, as an admin reviews it.
        own, other = (
            (match.games1, match.games2)
            if match.participant1_id == player.participant_id
            else (match.games2, match.games1)
        )
        claimed = (other, own) if own != other else (own + 1, other)  # the slips swapped, or a draw won
        appeal = appeal_file(
            user=user, match=match, own_games=claimed[0], opponent_games=claimed[1], draws=match.draws,
            explanation="Bench: the slips were swapped.",
        )  # fmt: skip
        try:
            admin = _signed_in(_bench_admin())
            figures.append(page_measure(admin, "admin: a player's appeal to review", f"/appeals/{appeal.pk}/review/"))
        finally:
            appeal.delete()
        return figures
