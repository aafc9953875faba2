"""Two admins changing the same match at once: the second is told, with a 409, that the match is gone.

The second admin's request passes its checks while the match still exists;
the first admin's removal is done just before the second one's change
(here between the form's checks and the change, so the order is certain).
"""

import pytest
from django.urls import reverse

from corrections import services
from corrections.forms import MatchCorrectForm, MatchRemoveForm
from corrections.models import Correction, CorrectionKind
from events.models import Match
from tests.factories import AdminFactory
from tests.worlds import the_match

pytestmark = pytest.mark.django_db


def removed_by_another_admin_meanwhile(monkeypatch, match: Match):
    """The other admin's removal of `match` lands after this admin's form was checked, before the change."""
    other_admin = AdminFactory()
    for form in (MatchRemoveForm, MatchCorrectForm):

        def expected_after_the_other_removal(self, original=form.expected):
            services.match_remove(match=Match.objects.get(pk=match.pk), reason="Never played.", by=other_admin)
            return original(self)

        monkeypatch.setattr(form, "expected", expected_after_the_other_removal)
    return other_admin


@pytest.mark.parametrize("action", ["match_remove", "match_correct"])
def test_a_second_admin_changing_a_match_removed_meanwhile_is_told_so(
    client, rated_default_bundle, admin, monkeypatch, action
):
    match = the_match("E1", 2, "1004")
    client.force_login(admin)
    url = reverse(f"corrections:{action}", args=[match.pk])
    data = {**client.get(url).context["form"].initial, "games1": 0, "games2": 2, "draws": 0, "reason": "Slip."}
    other_admin = removed_by_another_admin_meanwhile(monkeypatch, match)

    response = client.post(url, {**data, "action": "apply"})

    assert response.status_code == 409
    assert "was removed meanwhile" in response.content.decode()
    assert [(c.kind, c.corrected_by) for c in Correction.objects.all()] == [(CorrectionKind.REMOVAL, other_admin)]
