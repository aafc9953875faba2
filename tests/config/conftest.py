"""The world the site-wide security tests share (test_security_urls, test_security_site,
test_security_crafted_input): someone of each persona, and an id for every URL parameter."""

import pytest

from accounts.models import MembershipClaim
from corrections import services as corrections
from events.models import Event
from players.models import Player, Team
from ratings.models import Category
from ratings.services.downloads import history_file_write
from ratings.services.official import official_lists_publish
from tests.bundles import Bundle
from tests.factories import EventFactory, MatchFactory, UserFactory
from tests.worlds import account_of, bundle_rated, the_match


@pytest.fixture
def personas_and_ids(tmp_path, admin, organizer, settings):
    """The default bundle imported and rated, someone of each persona, and an id for every URL's parameters:
    the player (1001)'s appeal of their own match, an admin's correction, the organizer's own draft."""
    bundle_rated(Bundle(tmp_path))
    player = account_of("1001")
    draft = EventFactory(organizer=organizer)
    MatchFactory(event=draft)
    e1 = Event.objects.get(code="E1")
    own_match = the_match("E1", 2, "1001")
    appeal = corrections.appeal_file(
        user=player, match=own_match, own_games=0, opponent_games=2, draws=0, explanation="I lost."
    )
    correction = corrections.match_correct(
        match=the_match("E1", 1, "1001"), result=corrections.Result(1, 2), reason="Swapped.", by=admin
    )
    detail_request = corrections.detail_request_file(
        user=player, name="Alice Archer-Smith", country="DE", region="", explanation="Married."
    )
    claim = MembershipClaim.objects.create(user=UserFactory(), player=Player.objects.get(membership_number="1002"))
    [official] = official_lists_publish(categories=Category.objects.filter(slug="constructed"), months=1)
    settings.MEDIA_ROOT = tmp_path / "media"
    history_file_write(category=Category.objects.get(slug="constructed"))
    return {
        "people": {"anonymous": None, "player": player, "organizer": organizer, "admin": admin},
        "ids": {
            "slug": "constructed",
            "number": "1001",
            "other": "1002",
            "membership_number": "1001",
            "participant_id": Team.objects.get(name="Bavarian Dragons").participant_id,
            "event_id": e1.pk,
            "draft_id": draft.pk,
            "match_id": own_match.pk,
            "correction_id": correction.pk,
            "appeal_id": appeal.pk,
            "claim_id": claim.pk,
            "request_id": detail_request.pk,
            "round_number": 1,
            "uidb64": "MQ",
            "token": "not-a-valid-token",
            "as_of": official.as_of.isoformat(),
        },
    }
