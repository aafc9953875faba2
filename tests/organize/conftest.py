"""Fixtures of the organizer pages' tests and of the importer's: a client signed in as the shared `organizer`, four
registered players, a draft event of the organizer's, and a bundle folder."""

import pytest

from tests.bundles import Bundle
from tests.clients import client_of
from tests.factories import EventFactory, PlayerFactory


@pytest.fixture
def organizer_client(organizer):
    """A client signed in as the shared `organizer` (tests/conftest.py)."""
    return client_of(organizer)


@pytest.fixture
def players():
    """Four registered players, 1001-1004."""
    return [PlayerFactory(membership_number=str(number), name=f"Player {number}") for number in range(1001, 1005)]


@pytest.fixture
def event(organizer):
    return EventFactory(organizer=organizer, name="Friday Standard", player_count=4)


@pytest.fixture
def bundle(tmp_path):
    return Bundle(tmp_path)
