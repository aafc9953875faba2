"""The ranking pages' CSV and JSON exports: the whole filtered list, as `manage.py export_ratings` writes it."""

import io
import json

import pytest
from django.core.management import call_command

from lib.spreadsheet import spreadsheet_safe
from ratings.snapshots import end_of_previous_month
from tests.public.test_rankings_views import (  # noqa: F401 (two_months_rated: the fixture)
    FORMULA_NAME,
    TODAY,
    TWO_WINS,
    export,
    export_command,
    two_months_rated,
)

pytestmark = pytest.mark.usefixtures("two_months_rated")

# export ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "level", [{}, {"continent": "EU"}, {"country": "DE"}, {"country": "DE", "region": "DE-BY"}], ids=str
)
def test_the_csv_export_is_the_export_command_for_the_same_list(client, level):
    query = "&".join(f"{key}={value}" for key, value in level.items())
    command_rows = export_command(*[f"--{key}={value}" for key, value in level.items()])
    for row in command_rows:
        row[2] = spreadsheet_safe(row[2])

    ranked = client.get(f"/rankings/constructed/?{query}&_export=csv")
    unranked = client.get(f"/rankings/constructed/?{query}&list=unranked&_export=csv")

    assert ranked["Content-Type"] == "text/csv; charset=utf-8"
    assert "attachment" in ranked["Content-Disposition"]
    assert export(ranked) + export(unranked) == command_rows


def test_the_csv_export_holds_the_whole_list_not_a_page(client):
    rows = export(client.get("/rankings/constructed/?per_page=10&page=1&_export=csv&per_page=2"))

    assert [row[1] for row in rows] == ["1001", "1006", "1003", "1004", "1005", "1002"]
    assert rows[0] == ["1", "1001", "Alice Archer", "DE", "DE-BY", repr(TWO_WINS), "2", "1"]
    assert rows[2][0] == rows[3][0] == "3"


def test_the_export_of_a_past_date_is_the_export_command_of_that_date(client):
    day = end_of_previous_month(TODAY).isoformat()
    command_rows = export_command(f"--as-of={day}", "--country=DE")

    ranked = export(client.get(f"/rankings/constructed/?as_of={day}&country=DE&_export=csv"))
    unranked = export(client.get(f"/rankings/constructed/?as_of={day}&country=DE&list=unranked&_export=csv"))

    assert ranked + unranked == [[*row[:2], spreadsheet_safe(row[2]), *row[3:]] for row in command_rows]


def test_the_json_export_holds_the_same_records_as_the_export_command(client):
    out = io.StringIO()
    call_command("export_ratings", "--category", "constructed", "--format", "json", stdout=out)
    expected = json.loads(out.getvalue())

    ranked = client.get("/rankings/constructed/?_export=json")
    unranked = client.get("/rankings/constructed/?list=unranked&_export=json")

    assert ranked["Content-Type"] == "application/json"
    records = json.loads(b"".join(ranked.streaming_content)) + json.loads(b"".join(unranked.streaming_content))
    assert records == expected
    assert records[0] == {
        "rank": 1, "player_id": "1001", "name": "Alice Archer", "country": "DE", "region": "DE-BY",
        "rating": TWO_WINS, "matches": 2, "ranked": True,
    }  # fmt: skip


def test_the_csv_export_defuses_names_a_spreadsheet_would_run(client):
    rows = export(client.get("/rankings/constructed/?list=unranked&_export=csv"))

    formula = next(row for row in rows if row[1] == "1007")
    assert formula[2] == "'" + FORMULA_NAME
    assert formula[0] == "" and formula[7] == "0"  # numbers and codes are left alone
    assert not formula[5].startswith("'")


@pytest.mark.parametrize("text", ["=1+1", "+1", "-1", "@SUM(A1)"])
def test_spreadsheet_safe_quotes_every_formula_start(text):
    assert spreadsheet_safe(text) == "'" + text
    assert spreadsheet_safe("Ann " + text) == "Ann " + text
