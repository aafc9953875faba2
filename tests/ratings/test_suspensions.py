"""Suspensions (SPEC 4; DCI practice): an admin suspends a player for a period with a reason; while suspended the
player is left out of every ranking, today's and past dates', and keeps their rating; their page says so and the
correction log records it.

The world: the default bundle with constructed ranked from one match (tests/conftest.py). Today's ranked list:
Alice Archer (1001) 1646.56, Emi Fujita (1005) 1600.70, Chloé Dubois (1003) 1584.74, Bruno Becker (1002) and
Dan Evans (1004) 1584.00, tied fourth. Suspending Alice moves everyone up one.
"""

import re
from datetime import date, timedelta

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.utils import timezone

from corrections import services
from players.models import Player, Suspension
from ratings.models import Category, CurrentRating, OfficialList, SnapshotRating
from ratings.services.official import official_lists_publish
from ratings.services.recompute import category_recompute
from ratings.snapshots import end_of_previous_month, ranking_snapshots
from ratings.tasks import participant_lists_refresh_task
from tests.clients import client_of
from tests.factories import AdminFactory, OrganizerFactory

TODAY = timezone.localdate()


def jobs_run() -> None:
    call_command("db_worker", batch=True, startup_delay=False, reload=False, verbosity=0)


def world_ranks() -> dict[str, int | None]:
    rows = CurrentRating.objects.filter(category__slug="constructed")
    return dict(rows.values_list("display_id", "world_rank"))


def suspend(number="1001", *, starts_on=TODAY, ends_on=None, reason="Cheating at Munich Open.") -> Suspension:
    suspension = Suspension(player=Player.objects.get(membership_number=number), starts_on=starts_on, ends_on=ends_on)
    suspension.reason = reason
    return services.suspension_save(suspension=suspension, by=AdminFactory())


@pytest.mark.django_db(transaction=True)  # the job worker reads what the suspension committed
def test_a_suspended_player_leaves_the_rankings_keeps_the_rating_and_comes_back(client, ranked_default_bundle):
    before = CurrentRating.objects.get(category__slug="constructed", display_id="1001")

    suspension = suspend(ends_on=TODAY + timedelta(days=30))
    jobs_run()

    after = CurrentRating.objects.get(category__slug="constructed", display_id="1001")
    assert (after.ranked, after.world_rank, after.rating) == (False, None, before.rating)
    assert world_ranks() == {"1001": None, "1005": 1, "1003": 2, "1002": 3, "1004": 3}
    page = client.get("/rankings/constructed/").content.decode()
    assert "Alice Archer" not in page and "Emi Fujita" in page
    player = client.get("/players/1001/?category=constructed").content.decode()
    assert f"<strong>Suspended</strong> from {TODAY:%-d %b %Y} until" in player
    assert "Reason: Cheating at Munich Open." in player and "1646" in player  # the rating is still shown
    assert re.search(r'class="cc-status">\s*Suspended', player)  # the list's card says why she is not ranked
    log = client.get("/corrections/").content.decode()
    assert "Suspensions" in log and "Cheating at Munich Open." in log

    # Lifted: the suspension ends yesterday, and she is ranked again.
    suspension.ends_on = TODAY - timedelta(days=1)
    suspension.starts_on = TODAY - timedelta(days=2)
    services.suspension_save(suspension=suspension, by=AdminFactory())
    jobs_run()

    assert world_ranks() == {"1001": 1, "1005": 2, "1003": 3, "1002": 4, "1004": 4}
    assert "Suspended" not in client.get("/players/1001/?category=constructed").content.decode()


@pytest.mark.django_db
def test_past_dates_inside_the_period_leave_the_player_out_and_official_lists_stay_as_published(
    ranked_default_bundle,
):
    official_lists_publish(months=1)
    last = end_of_previous_month(TODAY)
    published = OfficialList.objects.get(category__slug="constructed", as_of=last)
    category = published.category

    suspend(starts_on=date(2003, 6, 1), ends_on=date(2003, 6, 30))
    participant_lists_refresh_task.call(Player.objects.get(membership_number="1001").participant_id, True)
    category.refresh_from_db()

    inside, outside = date(2003, 6, 15), date(2003, 7, 15)
    snapshots = ranking_snapshots(category=category, dates=[inside, outside])

    def alice(snapshot_id):
        return SnapshotRating.objects.get(snapshot_id=snapshot_id, display_id="1001")

    assert (alice(snapshots[inside]).ranked, alice(snapshots[inside]).world_rank) == (False, None)
    assert (alice(snapshots[outside]).ranked, alice(snapshots[outside]).world_rank) == (True, 1)
    assert SnapshotRating.objects.get(snapshot=published.snapshot, display_id="1001").world_rank == 1


@pytest.mark.django_db
def test_a_suspension_needs_a_reason_and_an_end_after_its_start(ranked_default_bundle):
    with pytest.raises(ValidationError, match="Say why"):
        suspend(reason="  ")
    with pytest.raises(ValidationError, match="A suspension ends on its first day or later."):
        suspend(starts_on=TODAY, ends_on=TODAY - timedelta(days=1))
    assert not Suspension.objects.exists()


@pytest.mark.django_db
def test_admins_suspend_in_the_admin_site_and_nobody_else_can(ranked_default_bundle):
    admin = client_of(AdminFactory())
    alice = Player.objects.get(membership_number="1001")

    response = admin.post(
        "/admin/players/suspension/add/",
        {"player": alice.pk, "starts_on": TODAY.isoformat(), "ends_on": "", "reason": "Marked cards."},
    )

    assert response.status_code == 302
    suspension = Suspension.objects.get()
    assert (suspension.player, suspension.reason, suspension.suspended_by.is_staff) == (alice, "Marked cards.", True)
    assert client_of(OrganizerFactory()).get("/admin/players/suspension/add/").status_code in (302, 403)


@pytest.mark.django_db
def test_a_full_recompute_ranks_the_suspended_nowhere_today_and_as_they_were_last_month(ranked_default_bundle):
    """A full recompute streams the history into the database (PostgreSQL: one COPY) and takes today's and last
    month's standings on the way: who is suspended on each day is read before, and the list reflects each day."""
    Suspension.objects.create(
        player=Player.objects.get(membership_number="1001"), starts_on=TODAY, reason="Marked cards."
    )

    category_recompute(category=Category.objects.get(slug="constructed"))

    alice = CurrentRating.objects.get(category__slug="constructed", display_id="1001")
    assert (alice.ranked, alice.world_rank) == (False, None)
    assert (alice.previous_ranked, alice.previous_world_rank) == (True, 1)  # not yet suspended last month
    assert world_ranks()["1005"] == 1


@pytest.mark.django_db(transaction=True)  # the job worker reads what the suspension committed
def test_a_suspension_reaching_into_last_month_moves_last_months_column_too(ranked_default_bundle):
    suspend(starts_on=end_of_previous_month(TODAY) - timedelta(days=3))
    jobs_run()

    alice = CurrentRating.objects.get(category__slug="constructed", display_id="1001")
    assert (alice.ranked, alice.previous_ranked, alice.previous_world_rank) == (False, False, None)
    emi = CurrentRating.objects.get(category__slug="constructed", display_id="1005")
    assert (emi.world_rank, emi.previous_world_rank) == (1, 1)
