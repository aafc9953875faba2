"""Players an organizer registers with a draft are theirs alone until the event is submitted.

Before, a draft's upload made its new players public at once, and they
stayed after the draft was deleted: anyone with the organizer role could put
any name on the site (one was "Visit evil.example for free cards").
"""

import pytest
from django.test import Client

from events.models import Event
from organize.importer import writing
from players.models import Participant, Player
from tests.factories import EventFactory, PlayerFactory
from tests.organize.pages import MATCH_HEADER, upload

pytestmark = pytest.mark.django_db

NEW_PLAYER = "id,name,country\n2001,Visit evil.example for free cards,DE\n"


@pytest.fixture
def draft(organizer):
    PlayerFactory(membership_number="1001", name="Registered Rita")
    return EventFactory(organizer=organizer, name="Thursday Standard", player_count=2)


def uploaded(client, event, number="2001", players=NEW_PLAYER):
    response = upload(client, event, matches=MATCH_HEADER + f"1,1001,{number},2,0,0,0\n", players=players)
    assert response.status_code == 302, response.content.decode()[:3000]
    return response


def seen_by_the_public(number: str, name: str) -> dict:
    visitor = Client()
    return {
        "page": visitor.get(f"/players/{number}/").status_code,
        "list": name in visitor.get("/players/").content.decode(),
        "search": name in visitor.get("/players/", {"q": name.split()[0]}).content.decode(),
        "api": visitor.get(f"/api/players/{number}/").status_code,
        "api search": visitor.get("/api/players/", {"q": name.split()[0]}).json()["count"],
    }


HIDDEN = {"page": 404, "list": False, "search": False, "api": 404, "api search": 0}
SHOWN = {"page": 200, "list": True, "search": True, "api": 200, "api search": 1}


def test_a_drafts_new_player_is_not_public_until_the_event_is_submitted(organizer_client, draft):
    uploaded(organizer_client, draft)

    assert seen_by_the_public("2001", "Visit evil.example for free cards") == HIDDEN

    assert organizer_client.post(f"/organize/events/{draft.pk}/submit/", {"confirm": "yes"}).status_code == 302
    draft.refresh_from_db()
    assert draft.status == "submitted"
    assert seen_by_the_public("2001", "Visit evil.example for free cards") == SHOWN


def test_deleting_a_draft_deletes_the_players_only_it_named(organizer_client, draft):
    uploaded(organizer_client, draft)

    organizer_client.post(f"/organize/events/{draft.pk}/delete/", {"confirm": "delete"})

    assert not Event.objects.filter(pk=draft.pk).exists()
    assert list(Player.objects.values_list("membership_number", flat=True)) == ["1001"]
    assert Participant.objects.count() == 1


def test_a_new_player_another_draft_also_names_stays_when_one_draft_is_deleted(organizer_client, draft, organizer):
    other = EventFactory(organizer=organizer, name="Friday Standard", player_count=2)
    uploaded(organizer_client, draft)
    uploaded(organizer_client, other, players="id,name,country\n")  # 2001 is registered (privately) already

    organizer_client.post(f"/organize/events/{draft.pk}/delete/", {"confirm": "delete"})

    assert Player.objects.filter(membership_number="2001", public=False).exists()


def test_uploading_again_without_a_new_player_removes_them(organizer_client, draft):
    uploaded(organizer_client, draft)

    uploaded(organizer_client, draft, number="2002", players="id,name,country\n2002,Nora New,NO\n")

    assert sorted(Player.objects.values_list("membership_number", flat=True)) == ["1001", "2002"]


@pytest.mark.parametrize("name", ["Evil\u202eetis.example", "Line\nbreak", "Nul\x07bell", "Iso\u2066late"])
def test_names_with_control_or_bidirectional_characters_are_refused_with_the_reason(organizer_client, draft, name):
    players = f'id,name,country\n2001,"{name}",DE\n'

    response = upload(organizer_client, draft, matches=MATCH_HEADER + "1,1001,2001,2,0,0,0\n", players=players)

    html = response.content.decode()
    assert response.status_code == 200
    assert "control character" in html
    assert not Player.objects.filter(membership_number="2001").exists()


def test_two_uploads_registering_the_same_new_player_at_once_answer_409_for_the_second(
    organizer_client,
    draft,
    monkeypatch,
):
    players_numbered = writing._players_numbered

    def registered_by_the_other_upload_right_after_the_lookup(numbers):
        found = list(players_numbered(numbers))
        PlayerFactory(membership_number="2001", name="Registered elsewhere", public=False)
        return found

    monkeypatch.setattr(writing, "_players_numbered", registered_by_the_other_upload_right_after_the_lookup)

    response = upload(organizer_client, draft, matches=MATCH_HEADER + "1,1001,2001,2,0,0,0\n", players=NEW_PLAYER)

    assert response.status_code == 409
    assert "another upload registered one of these new players a moment ago" in response.content.decode()
    assert not draft.matches.exists()


def test_a_team_only_a_draft_names_has_no_public_page(organizer):
    from players.models import Team, team_member_key

    members = [PlayerFactory(membership_number=str(n)) for n in (3001, 3002, 3003)]
    team = Team.objects.create(
        participant=Participant.objects.create(kind=Participant.Kind.TEAM),
        name="Visit evil.example",
        member_key=team_member_key(member.membership_number for member in members),
    )
    team.members.set(members)
    EventFactory(organizer=organizer, team_size=3, format="standard")

    assert Client().get(f"/teams/{team.participant_id}/").status_code == 404
