from django.core.management import call_command

from events.models import Event, EventStatus, Match, Standing
from players.models import Player, Team
from ratings.models import RatingEntry


def test_it_loads_a_world_in_every_format_once(db, capsys):
    call_command("seed_demo", players=200, events=30, seed=3)

    assert Player.objects.count() == 200
    assert set(Event.objects.values_list("format", flat=True)) >= {
        "standard",
        "block",
        "extended",
        "sealed",
        "booster-draft",
        "rochester-draft",
        "vintage",
        "type-1.5",
        "vtes",
    }
    assert Team.objects.exists()
    assert Match.objects.filter(event__team_size=3).exists()
    assert Standing.objects.filter(event__format="vtes").exists()
    # Every imported event is rated; the demo organizer's own two are a draft and one waiting to be rated.
    assert set(Event.objects.exclude(organizer__username="organizer").values_list("status", flat=True)) == {
        EventStatus.RATED
    }
    assert RatingEntry.objects.filter(category__slug="constructed").exists()
    assert "Demo world imported" in capsys.readouterr().out


def test_if_empty_leaves_a_populated_database_alone(db, capsys):
    call_command("seed_demo", players=100, events=10, seed=3)
    matches = Match.objects.count()

    call_command("seed_demo", players=100, events=10, seed=4, if_empty=True)

    assert Match.objects.count() == matches
    assert "already has players" in capsys.readouterr().out


def test_the_demo_world_shows_the_site_in_use(db, client):
    """Corrections in the log, an appeal and a claim waiting for the admin, the organizer's draft and submitted
    events: a visitor of the demo sees every page with something on it."""
    from accounts.models import MembershipClaim
    from corrections.models import Appeal, Correction
    from events.models import Event, EventStatus

    call_command("seed_demo", players=200, events=30, seed=3)

    assert Correction.objects.filter(corrected_by__username="admin").count() == 2
    assert Appeal.objects.filter(filed_by__username="player", status="open").count() == 1
    assert MembershipClaim.objects.filter(user__username="newcomer", status="open").count() == 1
    organized = Event.objects.filter(organizer__username="organizer")
    assert sorted(organized.values_list("status", flat=True)) == [EventStatus.DRAFT, EventStatus.SUBMITTED]
    assert all(event.matches.exists() for event in organized)
    assert "The players swapped seats" in client.get("/corrections/").content.decode()
    assert client.login(username="player", password="player-demo")
    assert "Open" in client.get("/appeals/").content.decode()
