"""Past dates: the month ends and the year end are written by the recompute job; other new dates are limited
per client.

A past date's list is written the first time someone asks for it (1 to 5 s
at a million matches, and everyone's pages slow down meanwhile): seven
clients cycling dates raised every visitor's median from 17 ms to 1.85 s.
"""

from datetime import date, timedelta

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.db.models import F
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django_tasks_db.models import DBTaskResult

from ratings import snapshots
from ratings.category_tables import elsewhere
from ratings.models import Category, RankingSnapshot, SnapshotRating
from ratings.services.runs import recompute_enqueue
from ratings.snapshots import end_of_previous_month, ranking_snapshots, snapshot_rows_tidy
from ratings.tasks import FULL_RECOMPUTE_PRIORITY, published_list_extras_task, recompute_task
from tests.public.test_rankings_views import TODAY, two_months_rated  # noqa: F401 (the fixture)

pytestmark = pytest.mark.django_db

LIMIT = 3
VISITOR, OTHER_VISITOR = "198.51.100.20", "203.0.113.30"


@pytest.fixture(autouse=True)
def small_budget(settings):
    settings.PAST_DATES_NEW_PER_CLIENT = LIMIT
    settings.PAST_DATES_WINDOW_SECONDS = 600


def new_dates(count: int) -> list[str]:
    """Days of the month before last, never asked for: each needs its list written."""
    first = end_of_previous_month(end_of_previous_month(TODAY)).replace(day=1)
    return [(first + timedelta(days=n)).isoformat() for n in range(count)]


def ranking(client, day, address=VISITOR, api=False):
    url = "/api/rankings/constructed/" if api else "/rankings/constructed/"
    return client.get(url, {"as_of": day}, REMOTE_ADDR=address)


def test_a_client_asking_for_many_new_dates_is_told_when_to_try_again(two_months_rated):  # noqa: F811
    client = Client()
    days = new_dates(LIMIT + 1)
    answers = [ranking(client, day).status_code for day in days]

    refused = ranking(client, days[-1])

    assert answers == [200] * LIMIT + [429]
    assert 0 < int(refused["Retry-After"]) <= 600
    html = refused.content.decode()
    assert "Please try again in" in html and "end of each of the last two months and of last year" in html
    assert ranking(Client(), days[-1], address=OTHER_VISITOR).status_code == 200  # someone else is not held up
    assert ranking(client, days[0]).status_code == 200  # a date written already costs nothing
    assert ranking(client, TODAY.isoformat()).status_code == 200  # nor does today


def test_the_api_keeps_the_same_limit_and_says_so_in_json(two_months_rated):  # noqa: F811
    client = Client()
    answers = [ranking(client, day, api=True) for day in new_dates(LIMIT + 1)]

    assert [answer.status_code for answer in answers] == [200] * LIMIT + [429]
    body = answers[-1].json()
    assert body["error"] == "too_many_requests" and "try again in" in body["message"]
    assert int(answers[-1]["Retry-After"]) > 0


def test_visitors_behind_the_proxy_are_counted_apart(two_months_rated, settings):  # noqa: F811
    settings.TRUSTED_PROXY_COUNT = 1
    days = new_dates(2 * LIMIT)

    def through_proxy(day, visitor):
        return Client().get(
            "/rankings/constructed/", {"as_of": day}, REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR=visitor
        )

    first = [through_proxy(day, VISITOR).status_code for day in days[:LIMIT]]
    second = [through_proxy(day, OTHER_VISITOR).status_code for day in days[LIMIT:]]

    assert first == second == [200] * LIMIT


def test_staff_are_not_limited(two_months_rated, admin):  # noqa: F811
    client = Client()
    client.force_login(admin)

    assert {ranking(client, day).status_code for day in new_dates(LIMIT + 2)} == {200}


def test_the_recompute_job_writes_the_month_end_and_year_end_lists_so_no_visitor_waits_for_them(
    two_months_rated,  # noqa: F811
):
    RankingSnapshot.objects.all().delete()
    constructed = Category.objects.get(slug="constructed")
    run = recompute_enqueue(category=constructed, since=None, reason="a test")

    recompute_task.call(run.pk)
    extras = DBTaskResult.objects.get(task_path="ratings.tasks.published_list_extras_task", status="READY")
    assert extras.priority < FULL_RECOMPUTE_PRIORITY  # after any recompute waiting
    published_list_extras_task.call(*extras.args_kwargs["args"])  # as a job worker does next

    last = end_of_previous_month(TODAY)
    year_end = date(TODAY.year - 1, 12, 31)
    written = set(RankingSnapshot.objects.filter(category__slug="constructed").values_list("as_of", flat=True))
    assert written == {end_of_previous_month(last), last, year_end}
    composite = RankingSnapshot.objects.filter(category__slug="composite").values_list("as_of", flat=True)
    assert set(composite) == written  # derived from constructed: written with it
    rows = SnapshotRating.objects.count()
    client = Client()
    for _ in range(LIMIT + 1):  # more than the budget: the month end and the year end cost nothing
        assert ranking(client, last.isoformat()).status_code == 200
        assert ranking(client, year_end.isoformat()).status_code == 200
    assert SnapshotRating.objects.count() == rows  # read, not written again


@pytest.mark.parametrize(
    ("today", "written"),
    [
        (date(2026, 11, 28), [date(2025, 12, 31), date(2026, 9, 30), date(2026, 10, 31)]),
        (date(2027, 1, 15), [date(2026, 11, 30), date(2026, 12, 31)]),  # the year's end is last month's
        (date(2027, 2, 1), [date(2026, 12, 31), date(2027, 1, 31)]),
        (date(2027, 3, 31), [date(2026, 12, 31), date(2027, 1, 31), date(2027, 2, 28)]),
    ],
)
def test_the_dates_written_ahead_are_the_last_two_month_ends_and_the_last_year_end(today, written):
    assert snapshots.dates_written_ahead(today) == written


@pytest.mark.django_db(transaction=True)  # the job worker commits
def test_a_new_past_date_leaves_the_tidying_to_a_job(two_months_rated):  # noqa: F811
    """The statistics of the list just written and dropping the lists it replaced do not delay the page (0.1 s
    and more at a million matches): one job does them, however many pages asked meanwhile."""
    first, second = new_dates(2)
    with CaptureQueriesContext(connection) as queries:
        assert ranking(Client(), first).status_code == 200
    said = [query["sql"].lstrip().split()[0].upper() for query in queries]
    assert "VACUUM" not in said
    # On PostgreSQL the month end's list and the date's are written side by side, neither from the other; on
    # SQLite, one after the other, and nothing to analyse.
    assert "ANALYZE" not in said
    waiting = DBTaskResult.objects.filter(task_path="ratings.tasks.snapshot_tidy_task", status="READY")
    assert waiting.count() == 1
    assert ranking(Client(), second).status_code == 200
    assert waiting.count() == 1  # the job waiting covers both

    call_command("db_worker", batch=True, startup_delay=False, reload=False, verbosity=0)

    assert not waiting.exists()
    assert DBTaskResult.objects.filter(task_path="ratings.tasks.snapshot_tidy_task", status="SUCCESSFUL").count() == 1
    assert ranking(Client(), first).status_code == 200


def snapshot_partitions() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
            " WHERE i.inhparent = 'ratings_snapshotrating'::regclass"
        )
        return {name for (name,) in cursor.fetchall()}


@pytest.mark.django_db(transaction=True)  # partitions are dropped in transactions of their own
def test_on_postgresql_each_past_list_is_a_table_of_its_own_dropped_once_no_page_can_ask_for_it(
    two_months_rated,  # noqa: F811
):
    if connection.vendor != "postgresql":
        pytest.skip("partitions are PostgreSQL's; elsewhere a list's rows are deleted with it")
    constructed = Category.objects.get(slug="constructed")
    day = TODAY - timedelta(days=1)
    old = ranking_snapshots(category=constructed, dates=[day])[day]
    rows = SnapshotRating.objects.filter(snapshot=old).count()
    assert rows and f"ratings_snapshotrating_s{old}" in snapshot_partitions()

    Category.objects.filter(pk=constructed.pk).update(history_version=F("history_version") + 1)  # as a recompute
    constructed.refresh_from_db()
    new = ranking_snapshots(category=constructed, dates=[day])[day]  # written again; the old list is deleted

    assert new != old and not RankingSnapshot.objects.filter(pk=old).exists()
    partitions = snapshot_partitions()
    assert f"ratings_snapshotrating_s{old}" not in partitions and f"ratings_snapshotrating_s{new}" in partitions
    assert SnapshotRating.objects.filter(snapshot=new).count() == rows
    assert ranking(Client(), day.isoformat()).status_code == 200
    RankingSnapshot.objects.all().delete()
    snapshot_rows_tidy()
    assert not snapshot_partitions()


@pytest.mark.django_db(transaction=True)  # side by side only outside a transaction, on connections of their own
def test_on_postgresql_a_date_and_its_month_end_written_side_by_side_are_those_written_one_after_the_other(
    two_months_rated,  # noqa: F811
    monkeypatch,
):
    if connection.vendor != "postgresql":
        pytest.skip("lists are written side by side on PostgreSQL only")
    constructed = Category.objects.get(slug="constructed")
    day = TODAY - timedelta(days=1)
    dates = [day, end_of_previous_month(day)]
    beside = []
    monkeypatch.setattr(
        snapshots, "elsewhere", lambda *args, **kwargs: beside.append(args) or elsewhere(*args, **kwargs)
    )

    def lists(found: dict) -> dict:
        fields = [
            "participant_id",
            "rating",
            "ranked",
            "world_rank",
            "country_rank",
            "world_position",
            "region_position",
        ]
        return {
            as_of: list(
                SnapshotRating.objects.filter(snapshot=pk).order_by("ranked", "world_position").values_list(*fields)
            )
            for as_of, pk in found.items()
        }

    side_by_side = lists(ranking_snapshots(category=constructed, dates=dates))
    assert len(beside) == 1
    RankingSnapshot.objects.all().delete()
    snapshot_rows_tidy()
    with transaction.atomic():
        one_after_the_other = lists(ranking_snapshots(category=constructed, dates=dates))

    assert len(beside) == 1  # not side by side inside a transaction
    assert side_by_side == one_after_the_other
    assert side_by_side[dates[0]] != side_by_side[dates[1]] and all(side_by_side.values())
    RankingSnapshot.objects.all().delete()
    snapshot_rows_tidy()


def test_a_recompute_from_a_date_keeps_the_past_lists_before_it_and_writes_those_after_again(
    two_months_rated,  # noqa: F811
):
    """A correction of this month's event B rewrites the history from B's date only: the list on an earlier
    date is still its list, kept for the new version; the list on B's date is written again with the change."""
    from events.models import Match
    from ratings.services.recompute import category_recompute
    from tests.public.test_rankings_views import THIS_MONTH

    constructed = Category.objects.get(slug="constructed")
    earlier = THIS_MONTH - timedelta(days=1)
    before = ranking_snapshots(category=constructed, dates=[earlier, THIS_MONTH])
    rating_of_1005 = SnapshotRating.objects.filter(snapshot=before[THIS_MONTH], display_id="1005")
    was = rating_of_1005.get().rating

    Match.objects.filter(event__code="B", round=2).update(games1=0, games2=2)  # 1005 won round 2, not 1006
    category_recompute(category=constructed, since=THIS_MONTH)
    constructed.refresh_from_db()
    after = ranking_snapshots(category=constructed, dates=[earlier, THIS_MONTH])

    assert after[earlier] == before[earlier]  # the same list: not written again
    assert after[THIS_MONTH] != before[THIS_MONTH]
    assert SnapshotRating.objects.get(snapshot=after[THIS_MONTH], display_id="1005").rating > was
