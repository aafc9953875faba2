"""Bundles built to exhaust the importer: their cost follows their rows, not their bytes.

Members are read as streams, runs of blank lines are skipped a megabyte at a
time, and a file of junk stops being checked after ERRORS_AT_MOST problems.
(A 1 MB zip of 1 GiB of newlines took 104 s and 6.4 GB; it takes 8 s and
under 100 MB now: docs/reliability.md.)
"""

import tracemalloc
import zipfile

import pytest

from organize.importer import BundleInvalid, results_import
from organize.importer.errors import ERRORS_AT_MOST
from organize.importer.reading import CHUNK_BYTES
from players.models import Player
from tests.bundles import Bundle
from tests.organize.importing import NEXT_PLAYER_LINE

pytestmark = pytest.mark.django_db

MiB = 1024 * 1024


def zipped(bundle: Bundle, path, players_tail_blocks) -> str:
    """The bundle as a zip whose players.csv ends with the blocks of bytes given, written as a stream."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in bundle.files().items():
            if name != "players.csv":
                archive.writestr(name, data)
        with archive.open("players.csv", "w", force_zip64=True) as member:
            member.write(bundle.text("players.csv"))
            for block in players_tail_blocks:
                member.write(block)
    return path


def test_a_zip_of_128_mib_of_blank_lines_imports_in_little_memory(tmp_path):
    blank = b"\n" * MiB
    path = zipped(Bundle(tmp_path / "b"), tmp_path / "bundle.zip", [blank] * 128)
    assert path.stat().st_size < MiB  # the bomb: 128 MiB in a few hundred kilobytes

    tracemalloc.start()
    report = results_import(source=path)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    assert report.players.created == Player.objects.count() > 0
    assert peak < 16 * MiB  # a chunk or two at a time, never the member


def test_line_numbers_count_the_blank_lines_skipped_in_bulk(tmp_path):
    bundle = Bundle(tmp_path / "b")
    blank_lines = 3 * CHUNK_BYTES + 5  # three chunks skipped whole, and a few lines read one by one
    path = zipped(bundle, tmp_path / "bundle.zip", [b"\n" * blank_lines, b"2001,Bad Country,XX,\n"])

    with pytest.raises(BundleInvalid) as invalid:
        results_import(source=path)

    line = NEXT_PLAYER_LINE + blank_lines
    assert [str(error) for error in invalid.value.errors] == [
        f"players.csv:{line}: country: 'XX' is not an ISO 3166-1 alpha-2 country code"
    ]


def test_a_member_of_junk_lines_stops_being_checked_after_the_first_problems(tmp_path):
    path = zipped(Bundle(tmp_path / "b"), tmp_path / "bundle.zip", [b"x\n" * 500_000])

    with pytest.raises(BundleInvalid) as invalid:
        results_import(source=path)

    errors = invalid.value.errors
    assert len(errors) == ERRORS_AT_MOST + 1
    assert str(errors[0]).startswith("players.csv:0: -: more than 10,000 problems: checking stopped at line")
    assert str(errors[1]) == f"players.csv:{NEXT_PLAYER_LINE}: -: expected 4 fields as in the header, found 1"
    assert not Player.objects.exists()
