"""The bench's pieces that need no 1M world: its bundle, its limit over every list, and how it reads the reports."""

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from django.db.models import F

from corrections.models import Appeal
from devtools import bench_pages, benchmark
from events.models import Event, EventStatus
from ratings.models import Category, CurrentRating, RatingEntry, Ruleset
from tests.worlds import demo_world_rated

ELO_LISTS = ["constructed", "limited", "vintage", "team-constructed", "team-limited"]


@pytest.fixture
def world(db, tmp_path):
    demo_world_rated(tmp_path, players=300, events=40, seed=7)


def test_the_limit_counts_every_rated_match_of_every_elo_list(world):
    lists = benchmark.elo_lists()

    assert [category.slug for category in lists] == ELO_LISTS  # the derived and V:EKN lists are not Elo
    assert sum(len(benchmark.limit_matches(category)) for category in lists) > 2000
    for category in lists:
        matches = benchmark.limit_matches(category)
        rows = []
        ratings = benchmark.elo_rows(matches, rows)
        assert len(matches) == RatingEntry.objects.filter(category=category).count() // 2, category.slug
        assert len(rows) == 2 * len(matches)
        # The same update as the list's own (dci-2001, K the event's), so the same ratings come out.
        assert ratings == pytest.approx(
            dict(CurrentRating.objects.filter(category=category).values_list("participant_id", "rating"))
        )


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the limit's COPY is PostgreSQL's")
def test_the_limit_copies_two_rows_per_match_of_every_list(world):
    limit = benchmark.limit_lists_measure()

    rated = RatingEntry.objects.filter(category__ruleset=Ruleset.DCI_2001).count() // 2
    assert list(limit.matches) == ELO_LISTS
    assert limit.rated == rated
    assert limit.seconds == limit.loop + limit.copying > 0


def test_every_list_of_a_recompute_is_read_from_its_report(world):
    output = StringIO()
    call_command("recompute_ratings", stdout=output)

    reported = benchmark.reported_lists(output.getvalue())

    assert {slug for line in reported for slug in line.split(", ")} == set(
        Category.objects.values_list("slug", flat=True)
    )
    # The whole run as its last line says, lists side by side or not: no less than the lines' sum when one by one.
    total = float(output.getvalue().strip().splitlines()[-1].split(" in ")[1].removesuffix(" s."))
    rounding = 0.01 * len(reported)  # each line's figures are rounded to the hundredth
    assert benchmark.reported_total(output.getvalue()) == total >= sum(map(sum, reported.values())) - rounding


def test_the_bundle_is_the_demo_world_or_the_one_list_world_and_no_older_bench(tmp_path):
    (tmp_path / "bench-v3-300-5560-7-2026-01-01.done").write_text("an older bench's world")

    counts = benchmark.bundle_prepare(tmp_path, players=300, matches=40 * 139, seed=7)

    assert counts["matches"] > 0  # written afresh: the older bench's marker means nothing
    assert not (tmp_path / "categories.csv").exists()  # the default categories, every list
    assert not list(tmp_path.glob("bench-v3-*"))
    assert benchmark.bundle_prepare(tmp_path, players=300, matches=40 * 139, seed=7, one_list=True) == {"cached": True}
    assert "constructed,Constructed,dci-2001,standard block extended sealed" in (tmp_path / "categories.csv").read_text(
        encoding="utf-8"
    )
    benchmark.bundle_prepare(tmp_path, players=300, matches=40 * 139, seed=7)
    assert not (tmp_path / "categories.csv").exists()


def test_the_bundle_holds_the_matches_asked_for_even_where_events_are_smaller_than_first_guessed(tmp_path, monkeypatch):
    monkeypatch.setattr(benchmark, "MATCHES_PER_EVENT", 400)  # a guess far off: a third of the events needed

    counts = benchmark.bundle_prepare(tmp_path, players=300, matches=40 * 139, seed=7)

    assert counts["matches"] >= benchmark.MATCHES_SHORT_AT_MOST * 40 * 139
    with (tmp_path / "matches.csv").open(encoding="utf-8") as matches:
        assert sum(1 for _ in matches) - 1 == counts["matches"] + benchmark.MARATHON_MATCHES  # the last written


def test_a_report_is_read_line_by_line_whether_derived_lists_follow_each_list_or_come_once():
    alone = "constructed: 10 rated, 20 history rows, cleanup 0.50 s, published in 1.25 s\n"
    together = (
        alone
        + "vtes: 3 rated, 3 history rows, cleanup 0.00 s, published in 0.25 s\ncomposite: derived, built in 0.5 s\n"
    )

    assert benchmark.reported_lists(alone) == {"constructed": (1.25, 0.5)}
    assert benchmark.reported_lists(together)["composite"] == (0.5, 0.0)
    assert benchmark.reported_total(together) == pytest.approx(2.5)
    # Lists recomputed side by side overlap: the run's own total is the whole job.
    assert benchmark.reported_total(together + "Recomputed 3 lists in 1.75 s.\n") == pytest.approx(1.75)


def test_a_command_s_peak_memory_is_its_own_not_the_bench_s():
    # The bench holds the world it wrote; a child spawned from it used to report at least the bench's own
    # peak (Linux counts it into the child's ru_maxrss), so every figure of the report read the same size.
    held = bytearray(400 * 1024 * 1024)  # touched: resident in this process
    held[::4096] = b"x" * len(held[::4096])

    seconds, peak_mb, output = benchmark.run_measured("help")

    assert "Available subcommands" in output
    assert 10 < peak_mb < 300, peak_mb  # a bare manage.py is tens of MB; this process holds more than 400


def test_a_command_s_peak_memory_counts_the_processes_it_starts():
    # recompute_ratings recomputes lists in processes of its own: what they hold is the command's too.
    child = "import time; b = bytearray(300 * 2**20); b[::4096] = b'x' * len(b[::4096]); time.sleep(0.6)"
    code = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {child!r}], check=True)"

    seconds, peak_mb, output = benchmark.run_measured("shell", "-c", code)

    assert peak_mb > 300, peak_mb


def test_the_admins_pages_are_timed_signed_in_and_each_answers(world):
    figures = bench_pages.signed_in_pages_measure()

    names = [figure.name for figure in figures]
    assert names[0] == "organizers' event list (an admin: every event)"
    assert any(name.startswith("admin: matches, search for a surname") for name in names)
    assert any(name.startswith("admin: rating history, search") for name in names)
    # Then every other list of the admin, the rows the recompute writes included.
    assert {"admin: current ratings", "admin: participants", "admin: suspensions", "admin: users"} <= set(names)
    assert "admin: rating entries" not in names  # timed above, as the rating history
    assert names[7].startswith("a match's correction previewed")  # its impact on the ratings, as the admin sees it
    assert all(figure.median_ms > 0 and figure.queries > 0 for figure in figures)  # each answered 200, or it raised


def test_the_api_is_timed_as_a_program_reads_it_and_each_answers(world):
    figures = bench_pages.api_pages_measure()

    names = [figure.name.split(" (")[0] for figure in figures]
    assert names[:4] == [
        "api: its index",
        "api: its documentation",
        "api: its OpenAPI schema",
        "api: its interactive documentation",
    ]
    assert {
        "api: events",
        "api: events, page 101",
        "api: the largest event, every match",
        "api: players, search",
    } <= set(names)
    assert all(figure.median_ms > 0 for figure in figures)  # each answered 200, or it raised
    assert all(figure.queries > 0 for figure in figures if not figure.name.startswith("api: its"))  # its docs read none


def test_an_organizer_s_upload_and_pages_are_timed_signed_in_as_one_and_each_answers(world):
    figures = bench_pages.organizer_pages_measure()

    names = [figure.name.split(" (")[0] for figure in figures]
    assert names[:4] == [
        "organizer: upload of its results",
        "organizer: their event list",
        "organizer: a new event's form",
        "organizer: the draft's page",
    ]
    assert {"organizer: its preview", "organizer: its details as a form", "organizer: its deletion page"} <= set(names)
    assert all(figure.median_ms > 0 for figure in figures)  # each answered as it should, or it raised
    # The organizer sees their own events only: three small ones and the last draft (earlier drafts deleted).
    organizer = get_user_model().objects.get(username="bench-organizer")
    drafts = Event.objects.filter(organizer=organizer, status=EventStatus.DRAFT)
    assert (drafts.count(), Event.objects.filter(organizer=organizer).count()) == (1, 4)
    played = Event.objects.filter(team_size=1, matches__isnull=False).exclude(pk=drafts[0].pk)
    largest = played.order_by("-player_count").values_list("player_count", flat=True)[0]
    assert drafts[0].player_count == largest and drafts[0].matches.exists()  # the largest event's results uploaded


def test_a_player_s_pages_are_timed_signed_in_as_their_account_and_each_answers(world):
    figures = bench_pages.player_pages_measure()

    assert [figure.name for figure in figures][:3] == [
        "player: their account",
        "player: their appeals",
        "player: the appeal form of their last match",
    ]
    assert figures[-1].name == "admin: a player's appeal to review"
    assert all(figure.median_ms > 0 and figure.queries > 0 for figure in figures)
    assert not Appeal.objects.exists()  # the appeal reviewed was the bench's own, and it is gone


# The site's pages the bench does not time, and why: each is an action (a POST), a redirect, or a link that only
# a mail carries. Any other page a new address adds fails the test below until the bench times it.
NOT_TIMED = {
    "favicon": "a redirect to the icon's static file",
    "set_language": "a POST that switches the language and goes back to the page",
    "logout": "a POST",
    "organize:submit": "a POST that queues the world's recompute; its checks are the draft page's (timed)",
    "corrections:claim_decide": "a POST from the claims' page (timed)",
    "corrections:detail_decide": "a POST from the claims' page (timed)",
    "accounts:sign_up_confirm": "a one-use link from the sign-up mail",
    "password_reset_confirm": "a one-use link from the reset mail",
    "api:not-found": "the API's answer to an address it does not have",
}


def site_pages() -> set[str]:
    """The name of every address of the site outside the admin's own, one per address (the first that answers
    it: accounts' sign-in shadows Django's)."""
    from django.urls import get_resolver

    names, routes = set(), set()

    def walk(resolver, prefix: str, namespace: str | None):
        for pattern in resolver.url_patterns:
            if hasattr(pattern, "url_patterns"):
                inner = pattern.namespace or namespace
                if inner != "admin":
                    walk(pattern, prefix + str(pattern.pattern), inner)
            elif (route := prefix + str(pattern.pattern)) not in routes:
                routes.add(route)
                names.add(f"{namespace}:{pattern.name}" if namespace else pattern.name)

    walk(get_resolver(), "", None)
    return names


def test_every_page_of_the_site_is_timed_but_actions_and_mailed_links(world, monkeypatch):
    """Every page a visitor, a player, an organizer or an admin opens is in the bench, each answering 200 (or the
    bench raises): not only the pages optimised once."""
    from django.urls import resolve

    from corrections.services import Result, match_correct
    from events.models import Match

    match = Match.objects.filter(participant2__isnull=False).exclude(games1=F("games2")).order_by("pk").first()
    old = Result.of(match)
    match_correct(
        match=match, result=Result(old.games2, old.games1, old.draws, old.elimination), reason="A slip.", by=None
    )
    measured = bench_pages.page_measure
    monkeypatch.setattr(bench_pages, "page_measure", lambda *args, **kwargs: measured(*args, **{**kwargs, "repeat": 1}))

    figures = [
        *bench_pages.pages_measure(site_pages=True),
        *bench_pages.visitor_pages_measure(),
        *bench_pages.api_pages_measure(),
        *bench_pages.signed_in_pages_measure(),
        *bench_pages.organizer_pages_measure(),
        *bench_pages.player_pages_measure(),
    ]

    timed = {resolve(figure.url.split("?")[0]).view_name for figure in figures if figure.url}
    assert site_pages() - timed == set(NOT_TIMED)
    downloads = [figure for figure in figures if figure.name.startswith("download:")]
    assert len(downloads) == 5 and all(figure.queries > 0 for figure in downloads)
