"""Players ask to correct their own name, country or region; admins decide in the queue; the lists move them.

The world is the default bundle with constructed ranked from one match: Alice Archer (1001, Germany, DE-BY) is
ranked first in Germany and in Europe.
"""

import pytest
from django.core.management import call_command
from django.test import Client

from corrections.models import AppealStatus, DetailRequest
from players.models import Player
from ratings.models import CurrentRating
from tests.clients import client_of
from tests.factories import AdminFactory, UserFactory
from tests.worlds import account_of, bundle_rated, default_bundle_ranked_from_one_match

pytestmark = pytest.mark.django_db

ASK = "/appeals/details/"


@pytest.fixture
def alice(tmp_path):
    bundle_rated(default_bundle_ranked_from_one_match(tmp_path))
    return account_of("1001", username="alice")


def alice_in_constructed() -> CurrentRating:
    return CurrentRating.objects.get(category__slug="constructed", participant__player__membership_number="1001")


def jobs_run() -> None:
    call_command("db_worker", batch=True, startup_delay=False, reload=False, verbosity=0)


@pytest.mark.django_db(transaction=True)  # the job worker reads what the admin's request committed
def test_a_player_asks_an_admin_accepts_and_a_job_moves_them_in_the_lists(alice):
    before = alice_in_constructed()
    assert (before.name, before.country, before.country_rank) == ("Alice Archer", "DE", 1)
    client = client_of(alice)

    filed = client.post(
        ASK, {"name": "Alice Archer", "country": "AT", "region": "", "explanation": "I moved to Vienna in 2002."}
    )

    assert filed["Location"] == ASK
    request = DetailRequest.objects.get()
    assert request.changes == [("Country", "DE", "AT"), ("Region", "DE-BY", "")]
    assert Player.objects.get(membership_number="1001").country == "DE"  # nothing changes before an admin decides
    admin = client_of(AdminFactory())
    queue = admin.get("/claims/queue/").content.decode()
    assert "Alice Archer (1001)</a> asks to correct their details" in queue and "I moved to Vienna" in queue

    decided = admin.post(f"/claims/details/{request.pk}/decide/", {"decision": "accept", "reason": "Confirmed."})

    assert decided["Location"] == "/claims/queue/"
    assert "lists move them within a minute" in admin.get("/claims/queue/").content.decode()
    player = Player.objects.get(membership_number="1001")
    assert (player.country.code, player.region) == ("AT", "")
    assert alice_in_constructed().country == "DE"  # the admin's request does not wait for the lists
    germany = Client().get("/rankings/constructed/?country=DE")
    assert "Alice Archer" in germany.content.decode()
    jobs_run()
    # A visitor's browser or a shared cache asking again is not told the old page still holds.
    again = Client().get("/rankings/constructed/?country=DE", headers={"if-none-match": germany["ETag"]})
    assert again.status_code == 200 and "Alice Archer" not in again.content.decode()
    after = alice_in_constructed()
    assert (after.country, after.region, after.continent) == ("AT", "", "EU")
    assert after.country_rank == 1 and after.rating == before.rating  # ranked afresh in Austria, rating unchanged
    request.refresh_from_db()
    assert request.status == AppealStatus.ACCEPTED and (request.old_country, request.country.code) == ("DE", "AT")
    assert "Accepted" in client.get(ASK).content.decode()


def test_a_refusal_needs_a_reason_the_player_reads(alice):
    client_of(alice).post(ASK, {"name": "Alicia Archer", "country": "DE", "region": "DE-BY", "explanation": "Typo."})
    request = DetailRequest.objects.get()
    admin = client_of(AdminFactory())

    admin.post(f"/claims/details/{request.pk}/decide/", {"decision": "reject", "reason": ""})
    assert DetailRequest.objects.get().is_open
    admin.post(f"/claims/details/{request.pk}/decide/", {"decision": "reject", "reason": "Your ID says Alice."})

    assert DetailRequest.objects.get().status == AppealStatus.REJECTED
    assert Player.objects.get(membership_number="1001").name == "Alice Archer"
    assert "Your ID says Alice." in client_of(alice).get(ASK).content.decode()


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"region": "FR-IDF"}, "__all__", "The region must be a subdivision of the player's country."),
        ({}, "__all__", "Change at least one of your details."),
        ({"name": "Alice\u202eArcher"}, "name", "bidirectional control character"),
    ],
)
def test_a_request_that_cannot_be_is_refused_where_it_is_wrong(alice, fields, field, message):
    data = {"name": "Alice Archer", "country": "DE", "region": "DE-BY", "explanation": "Please.", **fields}

    response = client_of(alice).post(ASK, data)

    assert response.status_code == 200
    assert any(message in error for error in response.context["form"].errors[field])
    assert not DetailRequest.objects.exists()


def test_only_a_player_linked_to_their_number_asks(alice):
    assert Client().get(ASK).status_code == 302  # to sign in
    assert client_of(UserFactory()).get(ASK).status_code == 403
    assert client_of(alice).get(ASK).status_code == 200
