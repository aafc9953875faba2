"""Each Elo list's whole history as a compressed CSV, rebuilt after each recompute and linked from the list with
its size and date.

The world: the default bundle with constructed ranked from one match (tests/conftest.py). Hand-checked,
Munich Open at K 32 from 1600: R1 Alice Archer (1001) beats Bruno Becker (1002), expected 0.5, 1600 -> 1616.
"""

import csv
import gzip
import io

import pytest
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.db import connection

from corrections import services as corrections
from corrections.services import Result
from players.models import Player
from ratings.models import Category, RecomputeStatus
from ratings.services import downloads
from ratings.services.downloads import HISTORY_COLUMNS, _number, history_file_write, history_files_refresh
from ratings.services.lists import participant_lists_refresh
from ratings.services.runs import recompute_enqueue
from ratings.tasks import published_list_extras_task, recompute_task
from tests.factories import AdminFactory
from tests.worlds import bundle_rated, default_bundle_ranked_from_one_match, player, the_match

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def storage(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def constructed() -> Category:
    return Category.objects.get(slug="constructed")


def downloaded(client, slug="constructed") -> list[list[str]]:
    response = client.get(f"/rankings/{slug}/history.csv.gz")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/gzip"
    assert f'filename="{slug}-history.csv.gz"' in response["Content-Disposition"]
    return list(csv.reader(io.StringIO(gzip.decompress(b"".join(response.streaming_content)).decode())))


def test_every_elo_list_gets_its_history_file_and_the_list_links_it(client, ranked_default_bundle):
    written = history_files_refresh()

    assert "constructed" in {category.slug for category in written}
    assert not {"composite", "vtes"} & {category.slug for category in written}  # no matches of their own
    lines = downloaded(client)
    assert lines[0] == HISTORY_COLUMNS
    first = dict(zip(lines[0], lines[1], strict=True))
    assert (first["event"], first["round"], first["player_id"], first["opponent_id"]) == (
        "Munich Open",
        "1",
        "1001",
        "1002",
    )
    assert (first["score"], first["rating_before"], first["rating_after"], first["k"]) == (
        "1",
        "1600",
        "1616",
        "32",
    )
    assert first["expected"] == "0.5" and first["name"] == "Alice Archer" and first["opponent"] == "Bruno Becker"
    category = constructed()
    assert len(lines) - 1 == category.history_file_rows == 2 * 5  # two rows for each of the five rated matches
    # Numbers are written alike by either database: the shortest text that reads back exactly, no ".0".
    numeric = ["score", "rating_before", "rating_after", "opponent_rating", "expected", "k"]
    for line in lines[1:]:
        row = dict(zip(lines[0], line, strict=True))
        assert all(row[column] == _number(float(row[column])) for column in numeric if row[column])
    page = client.get("/rankings/constructed/").content.decode()
    assert 'href="/rankings/constructed/history.csv.gz"' in page
    assert f"{category.history_file_rows} rows" in page
    assert "history.csv.gz" not in client.get("/rankings/vtes/").content.decode()
    assert history_files_refresh() == []  # nothing to write until the history changes


@pytest.mark.django_db(transaction=True)  # the correction queues its recompute job when it commits
def test_a_recompute_writes_a_new_file_and_the_old_one_goes(client, ranked_default_bundle):
    history_file_write(category=constructed())
    old = constructed().history_file

    corrections.match_correct(
        match=the_match("E1", 1, "1001"), result=Result(0, 2), reason="Swapped.", by=AdminFactory()
    )
    call_command("db_worker", batch=True, startup_delay=False, reload=False, verbosity=0)  # the recompute job

    new = constructed().history_file
    assert new != old and default_storage.exists(new) and not default_storage.exists(old)
    first = dict(zip(HISTORY_COLUMNS, downloaded(client)[1], strict=True))
    assert (first["player_id"], first["score"], first["rating_after"]) == ("1001", "0", "1584")


def test_a_history_file_not_written_yet_is_not_found(client, ranked_default_bundle):
    assert client.get("/rankings/constructed/history.csv.gz").status_code == 404
    assert client.get("/rankings/no-such-list/history.csv.gz").status_code == 404


def test_a_history_file_that_cannot_be_written_does_not_fail_the_published_recompute(
    ranked_default_bundle, monkeypatch
):
    def storage_full(*, category):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("ratings.tasks.history_file_write", storage_full)
    run = recompute_enqueue(category=constructed(), since=None, reason="test")

    result = recompute_task.call(run.pk)
    published_list_extras_task.call(constructed().pk)  # the job after it: the file fails, the job does not

    assert result["status"] == RecomputeStatus.DONE
    assert not constructed().history_file


@pytest.fixture
def a_later_event_rated(tmp_path, monkeypatch):
    """The default bundle with constructed ranked from one match, and a later event (E9, a month after E1) where
    1001 beats 1002 again; history files in parts of two rows (a match each)."""
    monkeypatch.setattr(downloads, "PART_ROWS", 2)
    bundle = default_bundle_ranked_from_one_match(tmp_path)
    bundle.add_event("E9", date="2003-06-01", format="standard", k="16")
    bundle.add_match("E9", 1, "1001", "1002", 2, 0, 0)
    bundle_rated(bundle)


def file_bytes(category: Category) -> bytes:
    with default_storage.open(category.history_file, "rb") as stored:
        return stored.read()


def correction_published(match, result: Result) -> None:
    """The correction, its recompute job and the job after it (which writes the file), as the job worker runs them."""
    corrections.match_correct(match=match, result=result, reason="Slips swapped.", by=AdminFactory())
    call_command("db_worker", batch=True, startup_delay=False, reload=False, verbosity=0)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="written in part where new rows take new ids")
@pytest.mark.django_db(transaction=True)
def test_after_a_correction_only_the_parts_from_its_first_rewritten_row_are_written_again(
    client, a_later_event_rated, monkeypatch
):
    history_file_write(category=constructed())
    before = file_bytes(constructed())
    written_after = []  # the last seq each file write kept: its rows are written from the next one on
    copied = downloads._rows_copied

    def rows_copied(category, raw, parts):
        written_after.append(parts.last_seq)
        copied(category, raw, parts)

    monkeypatch.setattr(downloads, "_rows_copied", rows_copied)

    correction_published(the_match("E9", 1, "1001"), Result(0, 2))  # the last event's only match (seq 6)

    after = constructed()
    starts = after.history_file_parts["starts"]
    assert [start[0] for start in starts] == [1, 2, 3, 4, 5, 6]  # a part for each rated match
    kept_up_to = starts[-1][1]  # E9's part begins here: everything before it is the old file's bytes
    assert file_bytes(after)[:kept_up_to] == before[:kept_up_to] and file_bytes(after) != before
    assert written_after == [5]  # E1's five matches kept, E9's written again
    in_part = downloaded(client)
    assert [(row[6], row[10]) for row in in_part[-2:]] == [("1001", "0"), ("1002", "1")]  # the result corrected
    Category.objects.filter(pk=after.pk).update(history_file_version=None, history_file_parts=None)
    history_file_write(category=constructed())  # the same history written whole
    assert downloaded(client) == in_part
    assert constructed().history_file_rows == after.history_file_rows == 12


@pytest.mark.django_db(transaction=True)
def test_a_file_after_a_players_new_name_shows_it_on_every_row(client, a_later_event_rated):
    history_file_write(category=constructed())
    alice = player("1001")
    Player.objects.filter(pk=alice.pk).update(name="Alice Armstrong")
    participant_lists_refresh(participant_id=alice.participant_id)  # as an accepted correction of her details

    correction_published(the_match("E9", 1, "1001"), Result(0, 2))  # rewrites from the last match only

    rows = downloaded(client)[1:]
    assert len(rows) == 12
    assert {row[7] for row in rows if row[6] == "1001"} == {"Alice Armstrong"}  # in E1's rows too
