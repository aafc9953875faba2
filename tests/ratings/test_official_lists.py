"""Official lists (SPEC 4): every list as it stands at each month's end, published by the job workers, kept as
published, with an archive page, each list's movement since the one before, and its downloads.

The world: the default bundle with constructed ranked from one match (tests/conftest.py), plus one
match in the middle of last month: Bruno Becker (1002, 1584) beats Alice Archer (1001, 1646.56) at K 32.
Bruno's expected score 1 / (1 + 10^(62.56 / 400)) = 0.411, so he gains 32 × 0.589 = 18.85 -> 1602.85 and
Alice falls to 1627.71. At the end of the month before last the ranks were Alice 1, Emi Fujita (1600.70) 2,
Chloé Dubois (1584.74) 3, Bruno and Dan Evans (1584) 4; at last month's end Alice 1, Bruno 2 (up 2), Emi 3,
Chloé 4, Dan 5.
"""

import csv
import io
import json

import pytest
from django.core.management import call_command
from django.utils import timezone

from corrections import services as corrections
from corrections.services import Result
from players.formatting import day
from ratings.management.commands.db_worker import _month_end_lists
from ratings.models import OfficialList, RankingSnapshot, SnapshotRating
from ratings.services.official import month_ends, official_lists_publish
from ratings.services.recompute import category_recompute
from ratings.snapshots import end_of_previous_month, ranking_snapshots
from tests.factories import AdminFactory
from tests.worlds import bundle_rated, default_bundle_ranked_from_one_match, the_match

pytestmark = pytest.mark.django_db

LAST, BEFORE = sorted(month_ends(months=2), reverse=True)


@pytest.fixture
def world(tmp_path):
    bundle = default_bundle_ranked_from_one_match(tmp_path)
    bundle.add_event("L1", name="League night", date=LAST.replace(day=15).isoformat())
    bundle.add_match("L1", 1, "1002", "1001", 2, 0, 0)
    bundle_rated(bundle)


def constructed(as_of) -> OfficialList:
    return OfficialList.objects.get(category__slug="constructed", as_of=as_of)


def official_rows(as_of) -> list[tuple]:
    rows = SnapshotRating.objects.filter(snapshot=constructed(as_of).snapshot, ranked=True).order_by("world_position")
    return [(row.display_id, row.world_rank, round(row.rating, 2)) for row in rows]


def test_the_month_ends_are_published_once_with_their_ranked_rows(world):
    published = official_lists_publish(months=2)

    assert {(official.category.slug, official.as_of) for official in published} >= {
        ("constructed", BEFORE),
        ("constructed", LAST),
    }
    assert official_rows(BEFORE) == [
        ("1001", 1, 1646.56), ("1005", 2, 1600.70), ("1003", 3, 1584.74), ("1002", 4, 1584.0), ("1004", 4, 1584.0),
    ]  # fmt: skip
    assert official_rows(LAST) == [
        ("1001", 1, 1627.71), ("1002", 2, 1602.85), ("1005", 3, 1600.70), ("1003", 4, 1584.74), ("1004", 5, 1584.0),
    ]  # fmt: skip
    assert constructed(LAST).ranked == 5
    assert official_lists_publish(months=2) == []  # published already: nothing twice


def test_an_official_list_stays_as_published_when_the_history_is_corrected(world):
    official_lists_publish(months=1)
    published = official_rows(LAST)

    corrections.match_correct(
        match=the_match("L1", 1, "1002"), result=Result(0, 2), reason="Slips swapped.", by=AdminFactory()
    )
    category_recompute(category=constructed(LAST).category)
    # Past lists written for the new history delete the old history's snapshots: never an official list's.
    ranking_snapshots(category=constructed(LAST).category, dates=[LAST, BEFORE])

    assert official_rows(LAST) == published
    assert RankingSnapshot.objects.filter(pk=constructed(LAST).snapshot_id).exists()
    today = SnapshotRating.objects.filter(
        snapshot_id=ranking_snapshots(category=constructed(LAST).category, dates=[LAST])[LAST],
        participant__player__membership_number="1001",
    ).get()
    assert round(today.rating, 2) == 1659.71  # the corrected history: Alice won, 32 × (1 − 0.589) = +13.15


def test_the_archive_lists_every_official_list_with_its_leader_and_downloads(client, world):
    official_lists_publish(months=2)

    page = client.get("/rankings/constructed/official/").content.decode()

    assert f'<a href="/rankings/constructed/official/{LAST.isoformat()}/">{LAST:%B %Y}</a>' in page
    assert f'<a href="/rankings/constructed/official/{BEFORE.isoformat()}/">{BEFORE:%B %Y}</a>' in page
    assert page.index(f"{LAST:%B %Y}") < page.index(f"{BEFORE:%B %Y}")  # newest first
    assert "Alice Archer (1627)" in page and "Alice Archer (1646)" in page
    assert f"/rankings/constructed/official/{LAST.isoformat()}/?_export=csv" in page
    assert 'href="/rankings/constructed/official/"' in client.get("/rankings/constructed/").content.decode()


def test_an_official_list_shows_its_movement_since_the_one_before(client, world):
    official_lists_publish(months=2)

    first = client.get(f"/rankings/constructed/official/{BEFORE.isoformat()}/")
    last = client.get(f"/rankings/constructed/official/{LAST.isoformat()}/")

    rows = {row.record.display_id: row.record for row in last.context["table"].paginated_rows}
    assert {number: (row.rank, row.previous_rank) for number, row in rows.items()} == {
        "1001": (1, 1), "1002": (2, 4), "1005": (3, 2), "1003": (4, 3), "1004": (5, 4),
    }  # fmt: skip
    html = last.content.decode()
    assert f"Up 2 since {day(BEFORE)}" in html
    assert f'movement since the <a href="/rankings/constructed/official/{BEFORE.isoformat()}/">' in html
    assert "movement" not in [column.name for column in first.context["table"].columns]  # the first: none
    assert "The first official list" in first.content.decode()


def test_an_official_list_downloads_as_csv_and_json(client, world):
    official_lists_publish(months=1)
    url = f"/rankings/constructed/official/{LAST.isoformat()}/"

    as_csv = client.get(url, {"_export": "csv"})
    as_json = client.get(url, {"_export": "json"})

    lines = list(csv.reader(io.StringIO(b"".join(as_csv.streaming_content).decode())))
    assert lines[0] == ["rank", "player_id", "name", "country", "region", "rating", "matches", "ranked"]
    assert [line[:3] for line in lines[1:3]] == [["1", "1001", "Alice Archer"], ["2", "1002", "Bruno Becker"]]
    assert f'filename="constructed-official-{LAST.isoformat()}.csv"' in as_csv["Content-Disposition"]
    records = json.loads(b"".join(as_json.streaming_content))
    assert [record["player_id"] for record in records] == ["1001", "1002", "1005", "1003", "1004"]


@pytest.mark.parametrize(
    "url",
    [
        "/rankings/constructed/official/not-a-date/",
        "/rankings/constructed/official/1999-12-31/",
        "/rankings/no-such-list/official/",
    ],
)
def test_an_official_list_that_is_not_is_not_found(client, world, url):
    official_lists_publish(months=1)

    assert client.get(url).status_code == 404


def test_the_job_workers_publish_last_months_lists_and_a_command_publishes_older_ones(world):
    _month_end_lists()  # what a worker does at its start, just after midnight and hourly

    assert set(OfficialList.objects.filter(category__slug="constructed").values_list("as_of", flat=True)) == {LAST}

    out = io.StringIO()
    call_command("publish_official_lists", months=3, stdout=out)

    three = end_of_previous_month(BEFORE)
    assert set(OfficialList.objects.filter(category__slug="constructed").values_list("as_of", flat=True)) == {
        LAST, BEFORE, three,
    }  # fmt: skip
    assert f"Published Constructed as of {BEFORE}: 5 ranked." in out.getvalue()
    assert timezone.now() >= constructed(BEFORE).published_at


def test_an_official_list_sorts_by_its_columns_as_a_ranking_does(client, world):
    official_lists_publish(months=1)

    page = client.get(f"/rankings/constructed/official/{LAST.isoformat()}/", {"sort": "name"})

    assert [row.record.name for row in page.context["table"].paginated_rows] == [
        "Alice Archer", "Bruno Becker", "Chloé Dubois", "Dan Evans", "Emi Fujita",
    ]  # fmt: skip
