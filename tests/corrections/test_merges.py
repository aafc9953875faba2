"""Merging two membership numbers of one person (SPEC 5): the matches of the number given up move to the one kept,
its page redirects there, the lists are recomputed like a correction, and the merge is in the correction log.

The world: the default bundle with constructed ranked from one match (tests/conftest.py). Finn Gallagher (1006)
plays nothing in constructed; a second number of his, 2006, is given two matches at a later event against
Bruno Becker (1002) and Chloé Dubois (1003), and is then merged into 1006.
"""

import pytest
from django.core.exceptions import ValidationError

from corrections import services
from corrections.models import PlayerMerge
from events.models import Match
from organize.importer import BundleInvalid, results_import
from players.models import Player
from players.services import team_create
from ratings.models import CurrentRating, RecomputeRun, RecomputeStatus
from tests.bundles import Bundle
from tests.clients import client_of
from tests.factories import AdminFactory, EventFactory, MatchFactory, OrganizerFactory, PlayerFactory, UserFactory
from tests.worlds import every_category_recomputed

pytestmark = pytest.mark.django_db

MERGE = "/claims/merge/"


@pytest.fixture
def second_number(ranked_default_bundle):
    finn_again = PlayerFactory(membership_number="2006", name="Finn Gallager", country="IE")
    event = EventFactory(name="Dublin Open", format="standard", status="submitted")
    bruno, chloe = (Player.objects.get(membership_number=number) for number in ("1002", "1003"))
    MatchFactory(event=event, round=1, participant1=finn_again.participant, participant2=bruno.participant)
    MatchFactory(event=event, round=2, participant1=chloe.participant, participant2=finn_again.participant)
    every_category_recomputed()
    return finn_again


def finn() -> Player:
    return Player.objects.get(membership_number="1006")


def test_the_preview_shows_what_moves_then_the_merge_moves_it_and_recomputes(client, second_number):
    admin = client_of(AdminFactory())
    form = {"kept": "1006", "merged": "Finn Gallager (2006)", "reason": "Same person, ID checked at Dublin Open."}

    preview = admin.post(MERGE, {**form, "action": "preview"})

    page = preview.content.decode()
    assert "Check, then merge" in page and "2 matches and 0 standings at 1 event" in page
    # Finn (1006) had no constructed match: replayed as him, the two matches give him exactly 2006's rating,
    # and nobody else's rating moves (their opponent is rated the same).
    [constructed] = [impact for impact, _, _ in preview.context["impacts"] if impact.category.slug == "constructed"]
    given_up = CurrentRating.objects.get(category__slug="constructed", display_id="2006").rating
    assert {(row.display_id, row.rating_now, row.rating_after) for row in constructed.rows} == {
        ("1006", None, given_up),
        ("2006", given_up, None),
    }
    assert "Impact on the ratings" in page
    dublin = Match.objects.filter(event__name="Dublin Open")
    assert not dublin.filter(participant1=finn().participant).exists()  # nothing moved yet

    merged = admin.post(MERGE, {**form, "action": "merge"})

    assert merged["Location"] == "/players/1006/"
    assert dublin.filter(participant1=finn().participant).count() == 1
    assert dublin.filter(participant2=finn().participant).count() == 1
    merge = PlayerMerge.objects.get()
    assert (merge.merged_number, merge.kept, merge.matches_moved) == ("2006", finn(), 2)
    assert not Player.objects.get(membership_number="2006").public
    assert RecomputeRun.objects.filter(status=RecomputeStatus.QUEUED, reason__startswith="merge #").exists()
    every_category_recomputed()
    row = CurrentRating.objects.get(category__slug="constructed", display_id="1006")
    assert row.matches == 2
    assert not CurrentRating.objects.filter(category__slug="constructed", display_id="2006").exists()


def test_the_number_given_up_redirects_and_the_log_records_the_merge(client, second_number):
    services.players_merge(kept=finn(), merged=second_number, reason="Same person.", by=AdminFactory())

    response = client.get("/players/2006/")

    assert response.status_code == 301 and response["Location"] == "/players/1006/"
    assert client.get("/players/9999/").status_code == 404
    log = client.get("/corrections/").content.decode()
    assert "Finn Gallager (2006)" in log and "Same person." in log
    assert client.get("/players/?q=Gallager").context["table"].paginator.count == 1  # the number kept only


def test_two_numbers_that_played_each_other_cannot_be_merged(second_number):
    bruno = Player.objects.get(membership_number="1002")

    plan = services.merge_plan(kept=bruno, merged=second_number)

    assert plan.conflicts == ["They played each other: Dublin Open, round 1."]
    with pytest.raises(ValidationError, match="They played each other"):
        services.players_merge(kept=bruno, merged=second_number, reason="Mistake.", by=AdminFactory())
    assert Player.objects.get(membership_number="2006").public  # nothing changed


def test_a_merge_needs_a_reason_and_two_players(client, second_number):
    admin = client_of(AdminFactory())

    no_reason = admin.post(MERGE, {"kept": "1006", "merged": "2006", "reason": "", "action": "merge"})
    nobody = admin.post(MERGE, {"kept": "1006", "merged": "9999", "reason": "x", "action": "preview"})
    itself = admin.post(MERGE, {"kept": "1006", "merged": "1006", "reason": "x", "action": "merge"})

    assert "reason" in no_reason.context["form"].errors
    assert nobody.context["form"].errors["merged"] == ["No player has the membership number “9999”."]
    assert "A player cannot be merged into themselves." in itself.content.decode()
    assert "Finn Gallagher</a> (1006) cannot be merged into" in itself.content.decode()
    assert not PlayerMerge.objects.exists()


@pytest.mark.parametrize("who", ["anonymous", "player", "organizer"])
def test_only_admins_merge(client, second_number, who):
    visitor = {"anonymous": client, "player": client_of(UserFactory()), "organizer": client_of(OrganizerFactory())}
    response = visitor[who].post(MERGE, {"kept": "1006", "merged": "2006", "reason": "x", "action": "merge"})

    assert response.status_code in (302, 403)
    assert not PlayerMerge.objects.exists()


def test_results_imported_later_under_the_number_given_up_are_refused_with_the_number_to_write(second_number, tmp_path):
    services.players_merge(kept=finn(), merged=second_number, reason="Same person.", by=AdminFactory())
    (tmp_path / "later").mkdir()
    bundle = Bundle(tmp_path / "later")
    bundle.add_event("L9", name="League night", date="2024-05-01")
    bundle.add_match("L9", 1, "2006", "1002", 2, 0, 0)

    with pytest.raises(BundleInvalid) as refused:
        results_import(source=bundle.write())

    assert "player 2006 was merged into 1006: write 1006" in [error.message for error in refused.value.errors]


def test_a_merge_that_would_make_one_team_of_two_records_is_refused(second_number):
    alice, bruno, chloe = (Player.objects.get(membership_number=number) for number in ("1001", "1002", "1003"))
    team_create(members=[alice, bruno, second_number], name="Dragons again")  # 1001 1002 2006

    plan = services.merge_plan(kept=chloe, merged=second_number)  # Bavarian Dragons are 1001 1002 1003

    assert "would have the members of the team Bavarian Dragons" in " ".join(plan.conflicts)
