"""What one organizer request may cost: bounded by what it legitimately carries, whatever is posted.

Each attack of the review is posted as an organizer could: thousands of
numbers in the hidden field of new players, a file of junk lines, thousands
of unknown players. Each answer stays small (under 1 MB of HTML) and says
what is wrong; the work is bounded by the page, not by the request.
"""

import pytest
from django_countries import countries

from events.models import Match
from organize.services import NEW_PLAYERS_PER_UPLOAD
from players.models import Player
from tests.factories import EventFactory
from tests.organize.pages import MATCH_HEADER, upload

pytestmark = pytest.mark.django_db

ONE_MB = 1_000_000


@pytest.fixture
def big_event(organizer):
    return EventFactory(organizer=organizer, name="Grand Prix", player_count=2000)


def matches_between_new_players(count: int, first: int = 500_000) -> str:
    """Round 1 of `count` players nobody registered, paired in order."""
    return MATCH_HEADER + "".join(f"1,{first + n},{first + n + 1},2,0,0,0\n" for n in range(0, count, 2))


@pytest.mark.parametrize("page", ["upload/", "rounds/1/", "standings/"])
def test_thousands_of_numbers_in_the_hidden_field_are_refused_without_work(organizer_client, big_event, page):
    numbers = " ".join(str(100_000 + n) for n in range(5000))

    response = organizer_client.post(f"/organize/events/{big_event.pk}/{page}", {"numbers": numbers})

    assert response.status_code == 200
    html = response.content.decode()
    assert "holds more than the 500 a page shows" in html
    assert len(response.content) < ONE_MB
    assert html.count("name_1") == 0  # not one row of new players was built


def test_a_file_of_junk_lines_lists_the_first_200_problems_and_counts_the_rest(organizer_client, big_event):
    response = upload(organizer_client, big_event, matches=MATCH_HEADER + "x\n" * 100_000)

    html = response.content.decode()
    assert response.status_code == 200
    assert len(response.content) < ONE_MB
    # 200 problems: where checking stopped (long before line 100,000), then the first 199 rows.
    assert "checking stopped at line 10001" in html
    assert html.count('class="problem-row"') == 199
    assert "…and 9801 more problems not listed here" in html
    assert not Match.objects.exists()


def test_at_most_500_unknown_players_are_listed_to_register_with_the_country_list_sent_once(
    organizer_client,
    big_event,
):
    response = upload(organizer_client, big_event, matches=matches_between_new_players(600))

    html = response.content.decode()
    assert response.status_code == 200
    assert len(response.content) < ONE_MB
    assert html.count('<th scope="row" class="mono">') == NEW_PLAYERS_PER_UPLOAD
    assert "100 more unregistered numbers are not listed" in html
    assert html.count("<option") == len(countries)  # one list of countries for all 500 rows
    assert html.count('list="country-codes"') == NEW_PLAYERS_PER_UPLOAD


def test_more_than_500_new_players_in_one_upload_are_refused_with_what_to_do(organizer_client, big_event):
    players = "id,name,country\n" + "".join(f"{500_000 + n},Newcomer {n},DE\n" for n in range(502))

    response = upload(organizer_client, big_event, matches=matches_between_new_players(502), players=players)

    assert response.status_code == 200
    assert "one upload registers at most 500" in response.content.decode()
    assert not Player.objects.exists() and not Match.objects.exists()


def test_a_new_players_country_is_given_by_code_or_by_name_and_checked(organizer_client, big_event):
    url = f"/organize/events/{big_event.pk}/upload/"
    first = upload(organizer_client, big_event, matches=MATCH_HEADER + "1,2001,2002,2,0,0,0\n")
    named = {
        "matches_carried": first.context["form"].data["matches_carried"],
        "numbers": "2001 2002",
        "name_2001": "Nora New",
        "name_2002": "Olaf Other",
    }

    refused = organizer_client.post(url, {**named, "country_2001": "Atlantis", "country_2002": "no"})
    saved = organizer_client.post(url, {**named, "country_2001": "Norway", "country_2002": "de"})

    assert "“Atlantis” is not a country" in refused.content.decode()
    assert saved.status_code == 302
    assert dict(Player.objects.values_list("membership_number", "country")) == {"2001": "NO", "2002": "DE"}
