"""Appeals (SPEC 5): a linked player appeals a match of their own history; an admin accepts or rejects it.

The world is the default test bundle (tests/bundles.py), imported and rated (`rated_default_bundle`).
Munich Open (E1, 2003-05-01): R1 1001 beats 1002 2–1; R2 1001 beats 1003 2–0;
R3 (elimination) 1001 beats 1005 2–1. Team event E3: T1 (1001 1002 1003) beats T2.
"""

import math
from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse
from django.utils import timezone

from corrections import services
from corrections.models import Appeal, AppealStatus, Correction, CorrectionSource
from events.models import Match
from players.models import Team
from ratings.models import CurrentRating, RecomputeRun, RecomputeStatus
from ratings.services.runs import recompute_run_execute
from tests.factories import UserFactory
from tests.worlds import account_of, player, the_match

pytestmark = pytest.mark.django_db

EXACT = 1e-9


def appeal(user, match, own=0, opponent=2, draws=0, explanation="I won that match.") -> Appeal:
    """`user` appeals `match`, saying it ended `own`–`opponent` (and `draws`) from their own side."""
    return services.appeal_file(
        user=user, match=match, own_games=own, opponent_games=opponent, draws=draws, explanation=explanation
    )


def rating(slug, number) -> float:
    return CurrentRating.objects.get(category__slug=slug, participant=player(number).participant).rating


# filing ----------------------------------------------------------------------------------------------


def test_a_player_appeals_from_their_own_side_and_the_match_keeps_its_order(rated_default_bundle):
    chloe = account_of("1003")
    match = the_match("E1", 2, "1001")  # 1001 beat 1003 2–0; 1003 is side 2

    filed = appeal(chloe, match, own=2, opponent=1, explanation="I won two games to one.")

    filed.refresh_from_db()
    assert (filed.status, filed.player, filed.filed_by, filed.side) == (AppealStatus.OPEN, player("1003"), chloe, 2)
    assert (filed.reported_games1, filed.reported_games2, filed.reported_draws) == (2, 0, 0)
    assert (filed.claimed_games1, filed.claimed_games2, filed.claimed_draws) == (1, 2, 0)
    assert (filed.reported_result, filed.claimed_result) == ("lost 0–2", "won 2–1")
    assert filed.match_label == "Munich Open (2003-05-01), round 2: Alice Archer vs Chloé Dubois"
    match.refresh_from_db()
    assert (match.games1, match.games2) == (2, 0)  # nothing changes until an admin accepts


def test_the_appeal_form_files_an_appeal_and_shows_it_under_my_appeals(client, rated_default_bundle):
    alice = account_of("1001")
    client.force_login(alice)
    match = the_match("E1", 2, "1001")
    url = reverse("corrections:appeal_new", args=[match.pk])
    assert client.get(url).context["form"].initial == {"own_games": 2, "opponent_games": 0, "draws": 0}

    response = client.post(url, {"own_games": 1, "opponent_games": 2, "draws": 0, "explanation": "I lost, honestly."})

    assert response.status_code == 302
    assert response.url == reverse("corrections:my_appeals")
    page = client.get(response.url).content.decode()
    assert "Munich Open (2003-05-01), round 2: Alice Archer vs Chloé Dubois" in page
    assert "won 2–0 → <strong>lost 1–2</strong>" in page
    assert "Open" in page


@pytest.mark.parametrize(
    "claim, error",
    [
        ({"own": 2, "opponent": 0}, "That is the result already recorded"),
        ({"explanation": "   "}, "Say what happened"),
    ],
)
def test_an_appeal_must_ask_for_another_result_and_say_why(rated_default_bundle, claim, error):
    alice = account_of("1001")

    with pytest.raises(ValidationError, match=error):
        appeal(alice, the_match("E1", 2, "1001"), **claim)
    assert not Appeal.objects.exists()


def test_an_elimination_match_cannot_be_claimed_a_draw(rated_default_bundle):
    alice = account_of("1001")
    with pytest.raises(ValidationError, match="cannot have been a draw"):
        appeal(alice, the_match("E1", 3, "1001"), own=1, opponent=1)


def test_a_bye_cannot_be_appealed(rated_default_bundle):
    with pytest.raises(ValidationError, match="A bye has no result to appeal"):
        appeal(account_of("1005"), the_match("E1", 1, "1005"))


def test_only_the_players_own_matches_can_be_appealed(rated_default_bundle):
    with pytest.raises(PermissionDenied, match="only matches you played"):
        appeal(account_of("1006"), the_match("E1", 2, "1001"))
    with pytest.raises(PermissionDenied, match="not linked to a player"):
        appeal(UserFactory(), the_match("E1", 2, "1001"))


def test_a_team_member_may_appeal_a_match_of_their_team(rated_default_bundle):
    team = Team.objects.get(members=player("1001"), name="Bavarian Dragons")
    match = Match.objects.get(event__code="E3", participant1=team.participant)

    filed = appeal(account_of("1002"), match, own=1, opponent=2)

    assert (filed.side, filed.claimed_games1, filed.claimed_games2) == (1, 1, 2)


def test_one_open_appeal_per_match_and_player_and_a_new_one_once_decided(rated_default_bundle, admin):
    alice = account_of("1001")
    match = the_match("E1", 2, "1001")
    first = appeal(alice, match)

    with pytest.raises(ValidationError, match="already have an open appeal"):
        appeal(alice, match, own=1)
    # The opponent may appeal the same match.
    appeal(account_of("1003"), match, own=2, opponent=1)

    services.appeal_reject(appeal=first, by=admin, reason="The slip says 2–0.")
    assert appeal(alice, match, own=1, opponent=2).is_open


def test_appeals_are_limited_per_account_and_day(rated_default_bundle, settings):
    settings.APPEALS_PER_DAY = 2
    alice = account_of("1001")
    appeal(alice, the_match("E1", 1, "1001"))
    second = appeal(alice, the_match("E1", 2, "1001"))

    with pytest.raises(ValidationError, match="at most 2 appeals in 24 hours"):
        appeal(alice, the_match("E1", 3, "1001"))

    Appeal.objects.filter(pk=second.pk).update(created_at=timezone.now() - timedelta(hours=25))
    assert appeal(alice, the_match("E1", 3, "1001")).is_open


def test_the_form_shows_why_an_appeal_is_refused(client, rated_default_bundle, settings):
    settings.APPEALS_PER_DAY = 0
    client.force_login(account_of("1001"))
    url = reverse("corrections:appeal_new", args=[the_match("E1", 2, "1001").pk])

    response = client.post(url, {"own_games": 1, "opponent_games": 2, "draws": 0, "explanation": "Really."})

    assert response.status_code == 200
    assert "You can file at most 0 appeals in 24 hours" in response.content.decode()
    assert not Appeal.objects.exists()


# the history rows ---------------------------------------------------------------------------------------


def history_html(client, number="1001") -> str:
    return client.get(f"/players/{number}/?category=constructed").content.decode()


def test_a_players_own_history_offers_an_appeal_on_each_row_and_shows_an_open_one(client, rated_default_bundle):
    alice = account_of("1001")
    open_appeal = appeal(alice, the_match("E1", 2, "1001"))
    client.force_login(alice)

    html = history_html(client)

    for round_number in (1, 3):
        assert f'href="{reverse("corrections:appeal_new", args=[the_match("E1", round_number, "1001").pk])}"' in html
    assert f'href="{reverse("corrections:my_appeals")}#appeal-{open_appeal.pk}">Appeal open</a>' in html


@pytest.mark.parametrize("viewer", ["anonymous", "unlinked", "another player"])
def test_nobody_else_sees_appeal_links_on_a_history(client, rated_default_bundle, viewer):
    if viewer == "unlinked":
        client.force_login(UserFactory())
    elif viewer == "another player":
        client.force_login(account_of("1002"))

    html = history_html(client)

    assert "/appeals/new/" not in html
    assert "col-appeal" not in html


# deciding ------------------------------------------------------------------------------------------------


def test_accepting_an_appeal_corrects_the_match_records_it_and_queues_the_recompute(
    client, rated_default_bundle, admin
):
    chloe = account_of("1003")
    filed = appeal(chloe, the_match("E1", 2, "1001"), own=2, opponent=1, explanation="I won 2–1.")
    client.force_login(admin)
    review = reverse("corrections:appeal_review", args=[filed.pk])
    [(impact, _, _)] = client.get(review).context["impacts"]
    predicted = {row.display_id: row.rating_after for row in impact.rows}

    response = client.post(review, {"decision": "accept", "reason": "The slip confirms 2–1 for Chloé."})

    assert response.status_code == 302
    filed.refresh_from_db()
    assert (filed.status, filed.decided_by, filed.decision_reason) == (
        AppealStatus.ACCEPTED,
        admin,
        "The slip confirms 2–1 for Chloé.",
    )
    correction = Correction.objects.get()
    assert (correction.appeal, correction.source, correction.corrected_by, correction.reason) == (
        filed,
        CorrectionSource.APPEAL,
        admin,
        "The slip confirms 2–1 for Chloé.",
    )
    assert (correction.old_result, correction.new_result) == ("Alice Archer won 2–0", "Chloé Dubois won 2–1")
    match = the_match("E1", 2, "1001")
    assert (match.games1, match.games2) == (1, 2)
    [run] = RecomputeRun.objects.filter(status=RecomputeStatus.QUEUED)
    assert (run.category.slug, run.since, run.requested_by) == ("constructed", match.event.date, admin)

    recompute_run_execute(run_id=run.pk)

    for number, expected in predicted.items():
        assert math.isclose(rating("constructed", number), expected, rel_tol=0, abs_tol=EXACT)
    client.force_login(chloe)
    mine = client.get(reverse("corrections:my_appeals")).content.decode()
    assert "Accepted" in mine
    assert f'href="{correction.get_absolute_url()}"' in mine


def test_rejecting_an_appeal_needs_a_reason_and_changes_no_result(client, rated_default_bundle, admin):
    alice = account_of("1001")
    filed = appeal(alice, the_match("E1", 2, "1001"))
    client.force_login(admin)
    review = reverse("corrections:appeal_review", args=[filed.pk])

    without = client.post(review, {"decision": "reject", "reason": ""})
    assert without.status_code == 200
    assert "This field is required." in without.content.decode()
    filed.refresh_from_db()
    assert filed.is_open

    client.post(review, {"decision": "reject", "reason": "The slip, signed by both, says 2–0."})

    filed.refresh_from_db()
    assert (filed.status, filed.decided_by, filed.decision_reason) == (
        AppealStatus.REJECTED,
        admin,
        "The slip, signed by both, says 2–0.",
    )
    assert not Correction.objects.exists()
    assert not RecomputeRun.objects.exists()
    assert the_match("E1", 2, "1001").games1 == 2
    client.force_login(alice)
    mine = client.get(reverse("corrections:my_appeals")).content.decode()
    assert "Rejected" in mine
    assert "The slip, signed by both, says 2–0." in mine


def test_a_decided_appeal_cannot_be_decided_again(rated_default_bundle, admin):
    filed = appeal(account_of("1001"), the_match("E1", 2, "1001"))
    services.appeal_reject(appeal=filed, by=admin, reason="No.")

    with pytest.raises(ValidationError, match="was rejected already"):
        services.appeal_accept(appeal=filed, by=admin, reason="Yes after all.")
    assert not Correction.objects.exists()


def test_an_appeal_is_not_accepted_once_the_result_changed_meanwhile(rated_default_bundle, admin):
    match = the_match("E1", 2, "1001")
    filed = appeal(account_of("1001"), match)
    Match.objects.filter(pk=match.pk).update(games2=1)

    with pytest.raises(ValidationError, match="changed since the appeal was filed"):
        services.appeal_accept(appeal=filed, by=admin, reason="Fine.")

    filed.refresh_from_db()
    assert filed.is_open
    assert not Correction.objects.exists()


def test_the_queue_lists_open_appeals_oldest_first_and_recent_decisions(client, rated_default_bundle, admin):
    first = appeal(account_of("1001"), the_match("E1", 1, "1001"))
    second = appeal(account_of("1003"), the_match("E1", 2, "1001"), own=2, opponent=1)
    decided = appeal(account_of("1005"), the_match("E1", 3, "1001"), own=2, opponent=1)
    services.appeal_reject(appeal=decided, by=admin, reason="No.")
    client.force_login(admin)

    response = client.get(reverse("corrections:appeal_queue"))

    assert [row.record for row in response.context["table"].page.object_list] == [first, second]
    assert [row.record for row in response.context["decided"].rows] == [decided]
