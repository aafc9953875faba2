"""Fixtures of the organizer pages' tests and of the importer's: an organizer signed in, four registered
players, a draft event of theirs, and a bundle folder."""

import pytest
from django.test import Client

from tests.bundles import Bundle
from tests.factories import EventFactory, OrganizerFactory, PlayerFactory


@pytest.fixture
def organizer():
    return OrganizerFactory()


@pytest.fixture
def client_of(organizer):
    client = Client()
    client.force_login(organizer)
    return client


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
