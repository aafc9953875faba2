"""What the importer's tests share: the default bundle's shape, importing it, reading what it stored."""

import datetime

import pytest

from events.models import Match
from organize.importer import BundleInvalid, results_import
from players.models import Participant, Player, Team
from ratings.models import Category
from tests.bundles import Bundle, db_counts

# The default bundle's last lines: rows added by a test come right after them.
NEXT_PLAYER_LINE = 8
NEXT_TEAM_LINE = 4
NEXT_EVENT_LINE = 6
NEXT_MATCH_LINE = 11
NEXT_STANDING_LINE = 5


def rejected(source) -> list[str]:
    """Import `source` (a Bundle or a path), which must fail; check nothing was saved; the errors as text."""
    path = source.write() if isinstance(source, Bundle) else source
    before, categories = db_counts(), set(Category.objects.values_list())
    with pytest.raises(BundleInvalid) as invalid:
        results_import(source=path)
    assert db_counts() == before
    assert set(Category.objects.values_list()) == categories
    return [str(error) for error in invalid.value.errors]


def assert_only_error(source, where: str, message: str) -> None:
    """The import fails with one error, at `where` ("file:line: column:"), saying `message` (or more)."""
    errors = rejected(source)
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"{where} "), errors
    assert message in errors[0], errors


# What a first import of the default bundle stores and affects.
E1_DATE = datetime.date(2003, 5, 1)
E2_DATE = datetime.date(2003, 6, 14)
E3_DATE = datetime.date(2003, 7, 5)
E4_DATE = datetime.date(2003, 8, 2)
FIRST_IMPORT_AFFECTED = {
    "constructed": E1_DATE,
    "composite": E1_DATE,
    "limited": E2_DATE,
    "team-constructed": E3_DATE,
    "vtes": E4_DATE,
}


def run(bundle, **options):
    return results_import(source=bundle.write(), **options)


def tally(report, name):
    part = getattr(report, name)
    return (part.created, part.updated, part.deleted, part.unchanged)


def participant(number):
    return Player.objects.get(membership_number=number).participant_id


def team_participant(*members):
    return Team.objects.get(member_key=" ".join(sorted(members))).participant_id


def the_match(event_code, round_number, number1):
    return Match.objects.get(event__code=event_code, round=round_number, participant1_id=participant(number1))


def a_registered_player(number, name="Registered Player", country=""):
    return Player.objects.create(
        participant=Participant.objects.create(kind=Participant.Kind.PLAYER),
        membership_number=number,
        name=name,
        country=country,
    )
