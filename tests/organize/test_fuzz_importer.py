"""Broken bundles, generated (SPEC 6): whatever is wrong with a file, the import refuses it with errors a
person can act on, each located as `file:line: column: message`, and saves nothing; never a traceback.

Each property starts from the small valid bundle of tests/bundles.py and breaks it one way: bad values
in typed columns, unknown ids, bad dates, duplicated rows, rows cut short, other encodings, huge fields,
random bytes changed in a file or in the .zip. A random change may leave a valid bundle (a letter of a
name changed): then it imports whole. Runs are repeatable (derandomized); FUZZ_EXAMPLES=2000 explores
more, with fresh random examples.
"""

import codecs
import re
import tempfile
from pathlib import Path

import pytest
from django.db import transaction
from hypothesis import assume, given
from hypothesis import strategies as st

from organize.importer import BundleInvalid, results_import
from organize.importer.errors import BUNDLE_FILES
from tests.bundles import Bundle, db_snapshot
from tests.fuzzing import fuzz_settings

pytestmark = pytest.mark.django_db

fuzz = fuzz_settings(40)

LOCATED = re.compile(r"(?P<file>[^:\n]+):(?P<line>\d+): (?P<column>[^:\n]+): (?P<message>.+)", re.DOTALL)
NOT_FOR_PEOPLE = re.compile(r"Traceback|Error\(|Exception|\bNone\b|<[a-z_.]+ object at")
QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")  # a value echoed back, as the file had it


def import_outcome(path: Path, *, zip_name: str = "") -> list[str] | None:
    """None when the bundle was imported; else its errors, checked: located, for people, nothing saved."""
    before = db_snapshot()
    errors = None
    with transaction.atomic():
        try:
            results_import(source=path)
        except BundleInvalid as invalid:
            errors = [str(error) for error in invalid.errors]
            assert db_snapshot() == before, "a refused bundle saved something"
        transaction.set_rollback(True)  # every example starts from the same database
    if errors is not None:
        assert errors, "refused without a reason"
        for error in errors:
            located = LOCATED.fullmatch(error)
            assert located, error
            assert located["file"] in (*BUNDLE_FILES, zip_name), error
            assert not NOT_FOR_PEOPLE.search(QUOTED.sub("", located["message"])), error
    return errors


def refused_at(bundle: Bundle, file: str, line: int) -> list[str]:
    """Import the bundle, which must be refused with an error on `file` line `line`."""
    errors = import_outcome(bundle.write())
    assert errors is not None, f"imported a bundle broken at {file}:{line}"
    assert any(error.startswith(f"{file}:{line}: ") for error in errors), errors
    return errors


def a_bundle() -> Bundle:
    return Bundle(Path(tempfile.mkdtemp(prefix="fuzz-")))


# bad values in typed columns ---------------------------------------------------------------------------------------

# Columns whose value has a type or refers to something: (file, column). Names and cities take any text.
TYPED = [
    ("players.csv", "id"), ("players.csv", "country"), ("players.csv", "region"),
    ("teams.csv", "member1"), ("teams.csv", "member2"), ("teams.csv", "member3"),
    ("events.csv", "date"), ("events.csv", "format"), ("events.csv", "k"), ("events.csv", "players"),
    ("events.csv", "level2_judge"), ("events.csv", "team_size"), ("events.csv", "structure"),
    ("events.csv", "country"), ("events.csv", "level"),
    ("matches.csv", "event_id"), ("matches.csv", "round"), ("matches.csv", "player1_id"),
    ("matches.csv", "player2_id"), ("matches.csv", "player1_games"), ("matches.csv", "player2_games"),
    ("matches.csv", "draws"), ("matches.csv", "elimination"),
    ("standings.csv", "event_id"), ("standings.csv", "player_id"), ("standings.csv", "rank"),
    ("standings.csv", "vp"), ("standings.csv", "gw"), ("standings.csv", "final"),
]  # fmt: skip

# Any text after a character no number, date, code or id may hold.
junk = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=30)
bad_text = st.builds(lambda prefix, rest: prefix + rest, st.sampled_from("?!#%*~"), junk)
# Not numbers, codes or choices; but membership numbers, so not for players.csv's id.
bad_value = st.one_of(
    bad_text, st.sampled_from(["-1", "-0.5", "1e3", "0x10", "twelve", "NaN", "∞", "12345678901234567890", "1,5"])
)
bad_date = st.one_of(
    st.sampled_from(["2023-02-30", "2023-13-01", "2023-00-10", "31/12/2023", "2023/01/05", "20230105",
                     "2023-W01-1", "05.01.2023", "2023-1-5", "yesterday", "0000-01-01"]),
    st.dates().map(lambda day: day.strftime("%d/%m/%Y")),
    bad_value,
)  # fmt: skip


@fuzz
@given(data=st.data())
def test_a_bad_value_in_any_typed_column_is_refused_at_its_line(data):
    file, column = data.draw(st.sampled_from(TYPED), label="column")
    bundle = a_bundle()
    index = data.draw(st.integers(0, len(bundle.rows[file]) - 1), label="row")
    value = data.draw({"date": bad_date, "id": bad_text}.get(column, bad_value), label="value")
    if column == "player2_id":
        assume(value.strip())  # blank is a bye

    line = bundle.change(file, index, **{column: value})

    refused_at(bundle, file, line)


@fuzz
@given(length=st.integers(201, 300_000), file_column=st.sampled_from(
    [("players.csv", "name"), ("teams.csv", "name"), ("events.csv", "name"), ("events.csv", "city")]
))  # fmt: skip
def test_a_huge_field_is_refused_at_its_line(length, file_column):
    file, column = file_column
    bundle = a_bundle()

    line = bundle.change(file, 0, **{column: "x" * length})

    refused_at(bundle, file, line)


@fuzz
@given(number=st.from_regex(r"[A-Z]{1,3}-?[0-9]{1,8}", fullmatch=True), data=st.data())
def test_an_unknown_id_is_refused_where_it_is_used(number, data):
    bundle = a_bundle()
    assume(number not in {row["id"] for row in bundle.rows["players.csv"] + bundle.rows["teams.csv"]})
    file, column = data.draw(
        st.sampled_from([("matches.csv", "player1_id"), ("matches.csv", "player2_id"), ("standings.csv", "player_id"),
                         ("teams.csv", "member1"), ("matches.csv", "event_id"), ("standings.csv", "event_id")])
    )  # fmt: skip
    index = data.draw(st.integers(0, len(bundle.rows[file]) - 1))

    line = bundle.change(file, index, **{column: number})

    refused_at(bundle, file, line)


# rows duplicated, cut short; files in other encodings ---------------------------------------------------------------


@fuzz
@given(data=st.data())
def test_a_duplicated_row_is_refused_at_the_copy(data):
    file = data.draw(st.sampled_from(["players.csv", "teams.csv", "events.csv", "matches.csv", "standings.csv"]))
    bundle = a_bundle()
    rows = bundle.rows[file]
    if file == "matches.csv":
        rows = [row for row in rows if row["player2_id"]]  # two byes of one player in a round are one bye too many
    row = data.draw(st.sampled_from(rows))

    line = bundle.add(file, **row)

    refused_at(bundle, file, line)


@fuzz
@given(data=st.data())
def test_a_row_cut_short_is_refused_at_its_line(data):
    file = data.draw(st.sampled_from(["players.csv", "teams.csv", "events.csv", "matches.csv", "standings.csv"]))
    bundle = a_bundle()
    text = bundle.text(file).decode()
    lines = text.splitlines(keepends=True)
    line = data.draw(st.integers(2, len(lines)), label="line")
    fields = lines[line - 1].rstrip("\n").split(",")
    keep = data.draw(st.integers(1, len(fields) - 1), label="fields kept")
    lines[line - 1] = ",".join(fields[:keep]) + "\n"

    bundle.write_raw(file, "".join(lines))

    refused_at(bundle, file, line)


@pytest.mark.parametrize("encoding", ["latin-1", "cp1252", "utf-16", "utf-16-le", "utf-32", "mac-roman"])
def test_a_file_in_another_encoding_is_refused_as_not_utf8(encoding):
    bundle = a_bundle()
    players = bundle.text("players.csv").decode()  # Chloé Dubois is not ASCII
    bundle.write_raw("players.csv", players.encode(encoding))

    errors = import_outcome(bundle.write())

    assert errors is not None
    assert any(error.startswith("players.csv:") and "not valid UTF-8" in error for error in errors), errors


def test_a_utf8_file_with_a_byte_order_mark_and_windows_line_ends_is_imported():
    bundle = a_bundle()
    for file in ("players.csv", "matches.csv"):
        bundle.write_raw(file, codecs.BOM_UTF8 + bundle.text(file).replace(b"\n", b"\r\n"))

    assert import_outcome(bundle.write()) is None


# random damage -------------------------------------------------------------------------------------------------------

flips = st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 255)), min_size=1, max_size=8)


def flipped(data: bytes, changes) -> bytes:
    damaged = bytearray(data)
    for where, byte in changes:
        damaged[int(where * len(damaged))] = byte
    return bytes(damaged)


@fuzz
@given(file=st.sampled_from(["players.csv", "teams.csv", "events.csv", "matches.csv", "standings.csv"]), changes=flips)
def test_random_bytes_changed_in_a_file_are_refused_with_located_errors_or_imported_whole(file, changes):
    bundle = a_bundle()
    bundle.write_raw(file, flipped(bundle.text(file), changes))

    import_outcome(bundle.write())  # either way, checked there


@fuzz
@given(changes=flips, inside=st.sampled_from(["", "results"]))
def test_random_bytes_changed_in_a_zip_are_refused_with_located_errors_or_imported_whole(changes, inside):
    bundle = a_bundle()
    path = bundle.zip(inside)
    path.write_bytes(flipped(path.read_bytes(), changes))

    import_outcome(path, zip_name=path.name)


@fuzz
@given(file=st.sampled_from(["players.csv", "events.csv", "matches.csv"]), cut=st.floats(0, 1, exclude_max=True))
def test_a_file_cut_off_anywhere_is_refused_with_located_errors_or_imported_whole(file, cut):
    bundle = a_bundle()
    text = bundle.text(file)
    bundle.write_raw(file, text[: int(cut * len(text))])

    import_outcome(bundle.write())


@fuzz
@given(cut=st.floats(0, 1, exclude_max=True))
def test_a_zip_cut_off_anywhere_is_refused(cut):
    path = a_bundle().zip()
    data = path.read_bytes()
    path.write_bytes(data[: int(cut * len(data))])

    errors = import_outcome(path, zip_name=path.name)

    assert errors is not None


def test_a_nul_byte_deep_in_a_file_is_refused_at_its_line():
    bundle = a_bundle()
    line = bundle.change_player("1004", name="Dan\x00Evans")

    errors = refused_at(bundle, "players.csv", line)

    assert "binary data" in errors[0]
