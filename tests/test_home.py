import datetime

from events.models import Event
from players.services import player_create


def test_it_shows_the_world_in_numbers(client, db):
    player_create(membership_number="1", name="Ann", country="DE")
    player_create(membership_number="2", name="Ben", country="FR")
    player_create(membership_number="3", name="Cy", country="FR")

    response = client.get("/")

    assert response.status_code == 200
    assert response.context["summary"] == {"players": 3, "countries": 2, "events": 0, "matches": 0}
    assert "No events yet" in response.content.decode()


def test_it_lists_recent_events_newest_first(client, db):
    for day in (1, 3, 2):
        Event.objects.create(
            name=f"Event on the {day}", date=datetime.date(2024, 5, day), format="standard", player_count=8
        )

    response = client.get("/")

    html = response.content.decode()
    assert html.index("Event on the 3") < html.index("Event on the 2") < html.index("Event on the 1")


def test_its_query_count_does_not_grow_with_events(client, db, django_assert_max_num_queries):
    for day in range(1, 11):
        Event.objects.create(name=f"E{day}", date=datetime.date(2024, 5, day), format="standard", player_count=8)

    with django_assert_max_num_queries(6):
        client.get("/")
