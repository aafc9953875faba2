"""The preview before submitting: each player's rating change, by the rating engine, from the stored history.

Numbers are worked out by hand from SPEC 3: We = 1 / (10^((O - R)/400) + 1),
new = old + K x (S - We); the 1997 provisional rating is
Rc + 400 x (wins - losses) / matches; V:EKN points 5 + 4 VP + 8 GW + bonus x coef.
"""

import math
import re
from datetime import date

import pytest
from django.test import Client

from events.models import EventStatus
from ratings.models import Category, CurrentRating, EventScore, RatingEntry
from ratings.preview import event_preview, states_before
from ratings.services.recompute import category_recompute
from tests.factories import EventFactory, MatchFactory, OrganizerFactory, PlayerFactory, StandingFactory
from tests.pages import page, text

pytestmark = pytest.mark.django_db

EXACT = 1e-9


@pytest.fixture
def ann():
    return PlayerFactory(membership_number="1001", name="Ann")


@pytest.fixture
def bob():
    return PlayerFactory(membership_number="1002", name="Bob")


@pytest.fixture
def cid():
    return PlayerFactory(membership_number="1003", name="Cid")


def category(slug) -> Category:
    return Category.objects.get(slug=slug)


def played(event, winner, loser, round=1, games=(2, 0)):
    return MatchFactory(
        event=event, round=round, participant1=winner.participant, participant2=loser.participant,
        games1=games[0], games2=games[1],
    )  # fmt: skip


def rated_event(on, *results, **fields):
    """A submitted event on `on` with `results` ((winner, loser) per round), rated in every category."""
    event = EventFactory(date=on, status=EventStatus.SUBMITTED, **fields)
    for round_number, (winner, loser) in enumerate(results, start=1):
        played(event, winner, loser, round=round_number)
    for each in Category.objects.all():
        category_recompute(category=each)
    return event


def preview_of(event, slug):
    return next(each for each in event_preview(event=event) if each.category.slug == slug)


def row(preview, player):
    return next(each for each in preview.participants if each.participant == player.participant_id)


def expected(rating, opponent):
    return 1 / (10 ** ((opponent - rating) / 400) + 1)


def test_two_new_players_at_k16_move_by_eight(ann, bob):
    event = EventFactory(k=16)
    played(event, ann, bob)

    preview = preview_of(event, "constructed")

    assert (row(preview, ann).rating_before, row(preview, ann).rating_after) == (1600, 1608)
    assert (row(preview, bob).rating_before, row(preview, bob).rating_after) == (1600, 1592)
    assert (row(preview, ann).wins, row(preview, bob).losses) == (1, 1)
    assert row(preview, ann).k_reasons == ["event K 16"]


def test_a_draw_between_equals_changes_nothing_and_k_scales_the_change(ann, bob, cid):
    event = EventFactory(k=48)
    played(event, ann, bob, games=(1, 1))
    played(event, cid, ann, round=2)

    preview = preview_of(event, "constructed")

    # Round 1: a draw at 1600 each. Round 2: Cid (1600) beats Ann (1600): +-24 at K 48.
    assert row(preview, bob).change == 0
    assert row(preview, ann).rating_after == 1600 - 24
    assert row(preview, cid).rating_after == 1600 + 24
    assert (row(preview, ann).wins, row(preview, ann).draws, row(preview, ann).losses) == (0, 1, 1)


def test_players_start_from_their_rating_just_before_the_event(ann, bob):
    rated_event(date(2024, 1, 6), (ann, bob), k=16)  # Ann 1608, Bob 1592
    event = EventFactory(date=date(2024, 2, 3), k=32)
    played(event, ann, bob)

    preview = preview_of(event, "constructed")

    we = expected(1608, 1592)
    assert abs(we - 0.523010) < 1e-6
    assert row(preview, ann).rating_before == 1608
    assert row(preview, ann).matches_before == 1
    assert abs(row(preview, ann).rating_after - (1608 + 32 * (1 - we))) < EXACT
    assert abs(row(preview, ann).change - 15.2637) < 1e-4
    assert abs(row(preview, bob).rating_after - (1592 - 32 * (1 - we))) < EXACT


def test_later_history_and_later_events_of_the_same_day_do_not_count(ann, bob):
    rated_event(date(2024, 3, 2), (ann, bob), k=16)  # the same day, recorded earlier: counts
    draft = EventFactory(date=date(2024, 3, 2), k=16)
    played(draft, ann, bob)
    rated_event(date(2024, 3, 2), (bob, ann), k=40)  # the same day, recorded later: rated after it
    rated_event(date(2024, 6, 1), (bob, ann), k=40)  # later: after it

    preview = preview_of(draft, "constructed")

    assert row(preview, ann).rating_before == 1608
    assert row(preview, bob).rating_before == 1592


def test_the_preview_is_what_the_recompute_then_writes(ann, bob, cid):
    rated_event(date(2024, 1, 6), (ann, bob), (cid, ann), k=24)
    event = EventFactory(date=date(2024, 2, 3), k=40, player_count=8)
    played(event, bob, cid)
    played(event, ann, bob, round=2, games=(1, 1))
    played(event, cid, ann, round=3)
    preview = preview_of(event, "constructed")

    event.status = EventStatus.SUBMITTED
    event.save()
    category_recompute(category=category("constructed"), since=event.date)

    for player in (ann, bob, cid):
        written = RatingEntry.objects.filter(event=event, participant_id=player.participant_id).order_by("seq")
        assert abs(row(preview, player).rating_after - written.last().rating_after) < EXACT
        assert abs(row(preview, player).rating_before - written.first().rating_before) < EXACT


@pytest.fixture
def dci_1997():
    """A 1997-rules list of standard events, provisional for the first 25 matches."""
    return Category.objects.create(
        slug="standard-1997", name="Standard 1997", ruleset="dci-1997", formats="standard", team_size=1,
        provisional_until=25, ranked_after=25,
    )  # fmt: skip


def test_a_provisional_player_continues_from_their_stored_totals(dci_1997, ann, bob, cid):
    rated_event(date(2024, 1, 6), (ann, bob), player_count=8)
    # Ann: 1600 + 400 x (1 - 0) / 1 = 2000; Bob: 1600 - 400 = 1200 (Rc = 1600 for both).
    event = EventFactory(date=date(2024, 2, 3), player_count=8)
    played(event, cid, ann)

    preview = preview_of(event, "standard-1997")

    # Ann: opponents 1600 then 1600 (Cid, new) -> Rc 1600; 1 win 1 loss over 2 -> 1600.
    assert row(preview, ann).rating_before == 2000
    assert row(preview, ann).rating_after == 1600
    # Cid: one opponent rated 2000 (Ann before the match), one win -> 2000 + 400 = 2400.
    assert row(preview, cid).rating_after == 2400
    assert row(preview, ann).provisional and row(preview, cid).provisional


def test_the_stored_provisional_totals_are_the_engines(dci_1997, ann, bob, cid):
    rated_event(date(2024, 1, 6), (ann, bob), (bob, cid), (ann, cid), player_count=8)

    states = states_before(
        category=dci_1997, participants=[ann.participant_id, bob.participant_id], event_date=date(2024, 2, 3)
    )

    # Round 1: Ann beats Bob (1600, 1600): Ann 2000, Bob 1200.
    # Round 2: Bob (1200) beats Cid (1600): Cid 1200 - 400 = 800; Bob met 1600 and 1600.
    # Round 3: Ann beats Cid: her opponents 1600 and 800, two wins: 1200 + 400 x 2 / 2 = 1600.
    ann_state = states[ann.participant_id]
    assert (ann_state.matches, ann_state.wins, ann_state.losses) == (2, 2, 0)
    assert ann_state.opponent_rating_sum == 1600 + 800
    assert ann_state.rating == 1600
    bob_state = states[bob.participant_id]
    assert (bob_state.wins, bob_state.losses, bob_state.opponent_rating_sum) == (1, 1, 1600 + 1600)


def test_a_1997_list_does_not_rate_a_small_event(dci_1997, ann, bob):
    event = EventFactory(player_count=7)
    played(event, ann, bob)

    preview = preview_of(event, "standard-1997")

    assert preview.participants == []
    assert preview.not_rated_because == "Standard 1997 rates only events of at least 8 players"
    assert preview_of(event, "constructed").participants  # the 2001 rules rate it all the same


def test_a_vtes_event_shows_each_players_points(ann, bob, cid):
    event = EventFactory(format="vtes", player_count=50, level="continental-qualifier")
    StandingFactory(event=event, participant=ann.participant, rank=1, vp=4, gw=2, final="winner")
    StandingFactory(event=event, participant=bob.participant, rank=2, vp=2, gw=1, final="finalist")
    StandingFactory(event=event, participant=cid.participant, rank=3, vp="0.5", gw=0)

    [preview] = event_preview(event=event)

    coefficient = math.log(50**2, 15) - 1 + 0.25
    assert abs(coefficient - 2.139) < 1e-3  # SPEC 3.4's example
    assert abs(preview.coefficient - coefficient) < EXACT
    points = [each.points.points for each in preview.standings]
    assert abs(points[0] - (5 + 4 * 4 + 8 * 2 + 90 * coefficient)) < EXACT
    assert abs(preview.standings[0].points.bonus - 192.5) < 0.05
    assert abs(points[1] - (5 + 4 * 2 + 8 * 1 + 30 * coefficient)) < EXACT
    assert points[2] == 5 + 4 * 0.5


def test_a_team_event_is_previewed_in_the_team_list():
    members = [PlayerFactory() for _ in range(6)]
    from players.services import team_create

    one, two = team_create(members=members[:3]), team_create(members=members[3:])
    event = EventFactory(team_size=3, k=16)
    MatchFactory(event=event, participant1=one.participant, participant2=two.participant)

    [preview] = event_preview(event=event)

    assert preview.category.slug == "team-constructed"
    assert {(each.participant, each.rating_after) for each in preview.participants} == {
        (one.participant_id, 1608),
        (two.participant_id, 1592),
    }


def test_previewing_writes_nothing(ann, bob):
    rated_event(date(2024, 1, 6), (ann, bob), k=16)
    event = EventFactory(date=date(2024, 2, 3), k=32, organizer=OrganizerFactory())
    played(event, bob, ann)
    before = [set(model.objects.values_list()) for model in (RatingEntry, CurrentRating, EventScore, Category)]

    client = Client()
    client.force_login(event.organizer)
    response = client.get(f"/organize/events/{event.pk}/preview/")

    assert response.status_code == 200
    assert [set(model.objects.values_list()) for model in (RatingEntry, CurrentRating, EventScore, Category)] == before
    page = response.content.decode()
    we = expected(1592, 1608)
    assert f"+{32 * (1 - we):.2f}" in page  # Bob's gain
    assert "Bob (1002)" in page and "event K 32" in page


def test_each_players_change_is_a_row_of_the_preview_page(dci_1997, ann, bob):
    event = EventFactory(k=16, player_count=8, organizer=OrganizerFactory())
    played(event, ann, bob)
    client = Client()
    client.force_login(event.organizer)

    html = page(client, f"/organize/events/{event.pk}/preview/")

    rows = [text(row).strip() for row in re.findall(r"<tr class=\"(?:odd|even)\">(.*?)</tr>", html, re.S)]
    # Player, W-D-L, matches before, before, after, change, K. Constructed (2001 rules): new players at 1600,
    # K 16, a win against an equal: +-16 x 0.5 = 8. Standard 1997: provisional, 1600 +- 400 x 1 / 1.
    assert rows == [
        "Ann (1001) 1–0–0 0 1600 1608 +8.00 event K 16",
        "Bob (1002) 0–0–1 0 1600 1592 −8.00 event K 16",
        "Ann (1001) 1–0–0 0 1600 2000 provisional +400.00 provisional formula",
        "Bob (1002) 0–0–1 0 1600 1200 provisional −400.00 provisional formula",
    ]
    assert '<span class="tag tag-muted">provisional</span>' in html
    assert '<span title="1608.00">1608</span>' in html  # the rating as the list shows it, two decimals on hover


def test_a_team_is_named_on_the_preview_page_by_its_name_or_its_members():
    from players.services import team_create

    members = [PlayerFactory(membership_number=str(2001 + index)) for index in range(6)]
    named, unnamed = team_create(members=members[:3], name="The Decks"), team_create(members=members[3:])
    event = EventFactory(team_size=3, k=16, organizer=OrganizerFactory())
    MatchFactory(event=event, participant1=named.participant, participant2=unnamed.participant)
    client = Client()
    client.force_login(event.organizer)

    html = page(client, f"/organize/events/{event.pk}/preview/")

    rows = [text(row).strip() for row in re.findall(r"<tr class=\"(?:odd|even)\">(.*?)</tr>", html, re.S)]
    assert [row.split(" 1–0–0")[0].split(" 0–0–1")[0] for row in rows] == ["The Decks", "2004 / 2005 / 2006"]


def test_a_large_events_preview_is_paged_and_sorted_as_the_event_pages_changes():
    event = EventFactory(k=16, player_count=120, organizer=OrganizerFactory())
    players = [PlayerFactory(membership_number=str(3000 + index), name=f"P{index}") for index in range(120)]
    for index in range(60):  # new players at 1600: each winner +8, each loser -8
        played(event, players[2 * index], players[2 * index + 1])
    client = Client()
    client.force_login(event.organizer)
    base = f"/organize/events/{event.pk}/preview/"

    def rows(query: str = "") -> list[str]:
        html = page(client, base + query)
        return [text(row).strip() for row in re.findall(r"<tr class=\"(?:odd|even)\">(.*?)</tr>", html, re.S)]

    first, second = rows(), rows("?constructed-page=2")
    assert len(first) == 100 and len(second) == 20
    assert all("+8.00" in row for row in first[:60]) and all("−8.00" in row for row in first[60:] + second)
    # Every player once, each named on the page that shows them.
    shown = {row.split(" (")[0] for row in first + second}
    assert shown == {player.name for player in players}
    assert "?constructed-page=2#preview-constructed" in page(client, base)
    # Sorted the other way, the losses come first.
    ascending = rows("?constructed-sort=change")
    assert all("−8.00" in row for row in ascending[:60]) and all("+8.00" in row for row in ascending[60:])
