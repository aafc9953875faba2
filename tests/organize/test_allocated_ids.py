"""Ids reserved for a bulk insert (lib.bulk.allocate_ids) are new, distinct, and never handed out again."""

import pytest

from lib.bulk import allocate_ids, insert_rows
from players.models import Participant
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


def test_reserved_ids_are_new_and_distinct_and_the_next_row_gets_another():
    stored = PlayerFactory().participant_id

    reserved = allocate_ids(Participant, 500)
    insert_rows(Participant, ["id", "kind"], ((pk, Participant.Kind.PLAYER) for pk in reserved))
    after = PlayerFactory().participant_id

    assert len(set(reserved)) == 500
    assert stored not in reserved
    assert min(reserved) > stored
    assert after not in reserved
    assert Participant.objects.count() == 502


def test_nothing_reserved_for_no_rows():
    assert allocate_ids(Participant, 0) == []
