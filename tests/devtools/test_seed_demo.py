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
    assert set(Event.objects.values_list("status", flat=True)) == {EventStatus.RATED}
    assert RatingEntry.objects.filter(category__slug="constructed").exists()
    assert "Demo world imported" in capsys.readouterr().out


def test_if_empty_leaves_a_populated_database_alone(db, capsys):
    call_command("seed_demo", players=100, events=10, seed=3)
    matches = Match.objects.count()

    call_command("seed_demo", players=100, events=10, seed=4, if_empty=True)

    assert Match.objects.count() == matches
    assert "already has players" in capsys.readouterr().out
