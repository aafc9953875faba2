"""The event list and event pages: details, standings, matches by round, everyone's rating change.

The world is the default test bundle (tests/bundles.py), imported and rated (`rated_default_bundle`).
Munich Open (E1, standard, K 32) from 1600 for everyone:
1001 beats 1002, 1003 and 1005 (the final): 1600 -> 1646.56 (+46.56);
1003 draws 1004 then loses to 1001: 1600 -> 1584.74 (-15.26).
"""

import re
import time
from datetime import date, timedelta

import pytest
from django.utils import translation

from corrections.selectors import MatchCorrection
from events import selectors as events_selectors
from events.models import Event, EventStatus
from players.models import Player, Team
from public import event_views
from public.event_filters import EventFilter
from tests.bundles import Bundle
from tests.factories import EventFactory
from tests.pages import page, text
from tests.worlds import bundle_rated

pytestmark = pytest.mark.django_db


def event(code: str) -> Event:
    return Event.objects.get(code=code)


def participant(number: str) -> int:
    return Player.objects.get(membership_number=number).participant_id


def listed(response) -> list[str]:
    return [row.record.name for row in response.context["table"].page.object_list]


# The list ------------------------------------------------------------------------------


def test_the_list_shows_events_newest_first(client, rated_default_bundle):
    response = client.get("/events/")

    assert listed(response) == ["Vampire Night", "Team Cup", "Paris Draft", "Munich Open"]
    words = text(response.content.decode())
    assert "1 May 2003 Munich Open Standard 32 " in words


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({"format": "standard"}, ["Team Cup", "Munich Open"]),
        ({"year": "2003", "country": "FR"}, ["Paris Draft"]),
        ({"level": "national"}, ["Vampire Night"]),
        ({"k": "32"}, ["Munich Open"]),
        ({"name": "draft"}, ["Paris Draft"]),
        ({"format": "standard", "country": "US"}, []),
    ],
)
def test_the_list_filters_by_format_year_country_level_and_k(client, rated_default_bundle, filters, expected):
    assert listed(client.get("/events/", filters)) == expected


def test_the_filters_offer_the_formats_years_and_countries_that_exist(client, rated_default_bundle):
    form = client.get("/events/").context["filter"].form

    assert [value for value, _ in form.fields["format"].choices][1:] == ["booster-draft", "standard", "vtes"]
    assert [value for value, _ in form.fields["year"].choices][1:] == [2003]
    assert [label for _, label in form.fields["country"].choices][1:] == [
        "France",
        "Germany",
        "United States of America",
    ]


def test_the_filters_show_what_was_chosen_as_chosen(client, rated_default_bundle):
    html = client.get("/events/", {"country": "FR", "k": "32"}).content.decode()

    chosen = re.findall(r'<option value="([^"]*)" selected>', html)
    assert chosen == ["", "", "FR", "", "32"]  # format, year, country, level, K
    country = re.search(r'<select name="country" id="id_country">(.*?)</select>', html, re.S).group(1)
    assert re.findall(r"<option [^>]*>([^<]*)</option>", country) == [
        "Anywhere",
        "France",
        "Germany",
        "United States of America",
    ]


def test_the_filters_offer_a_new_events_values_within_a_minute(client, rated_default_bundle, monkeypatch):
    def offered(name: str) -> list:
        return [value for value, _ in client.get("/events/").context["filter"].form.fields[name].choices][1:]

    assert "IT" not in offered("country")
    EventFactory(name="Rome Open", date=date(2024, 3, 2), country="IT", format="modern", status=EventStatus.RATED)
    assert "IT" not in offered("country")  # the values are read once a minute: three scans of every event

    a_minute_later = time.time() + events_selectors.EVENT_FILTER_SECONDS + 1
    monkeypatch.setattr(time, "time", lambda: a_minute_later)
    assert "IT" in offered("country")
    assert "modern" in offered("format")
    assert offered("year") == [2024, 2003]
    assert "Rome Open" in listed(client.get("/events/", {"country": "IT"}))


def test_the_number_of_events_each_filter_finds_is_kept_and_a_new_event_counts_at_once(
    client, rated_default_bundle, monkeypatch
):
    def counted(**filters) -> int:
        return client.get("/events/", filters).context["table"].paginator.count

    assert (counted(), counted(format="standard"), counted(format="standard", k="32")) == (4, 2, 1)
    assert counted(k="7") == 4  # not a K-value: the filter is refused and narrows nothing
    Event.objects.filter(name="Munich Open").update(status=EventStatus.DRAFT)  # withdrawn
    assert counted(format="standard") == 2  # counted once a minute: a scan of every event

    EventFactory(name="Rome Open", date=date(2024, 3, 2), format="standard", status=EventStatus.RATED)
    assert (counted(), counted(format="standard")) == (4, 2)  # a new event at once, the withdrawn one still
    a_minute_later = time.time() + events_selectors.EVENT_COUNT_SECONDS + 1
    monkeypatch.setattr(time, "time", lambda: a_minute_later)
    assert (counted(), counted(format="standard")) == (4, 2)
    assert listed(client.get("/events/", {"format": "standard"})) == ["Rome Open", "Team Cup"]


def test_the_filters_name_the_countries_in_the_language_shown(rated_default_bundle):
    def countries() -> list[str]:
        return [label for _, label in EventFilter(None, queryset=Event.objects.none()).form.fields["country"].choices][
            1:
        ]

    assert countries() == ["France", "Germany", "United States of America"]  # memoised in English first
    with translation.override("de"):
        assert countries() == ["Deutschland", "Frankreich", "Vereinigte Staaten von Amerika"]


def test_the_list_is_paginated(client, tmp_path):
    bundle = Bundle(tmp_path)
    for number in range(60):
        bundle.add_event(f"X{number}", name=f"Weekly {number:02}", date=str(date(2010, 1, 1) + timedelta(days=number)))
        bundle.add_match(f"X{number}", 1, "1001", "1002", 2, 0, 0)
    bundle_rated(bundle)

    first, second = client.get("/events/"), client.get("/events/?page=2")

    assert first.context["table"].paginator.count == 64
    assert listed(first)[0] == "Weekly 59"
    assert listed(second)[-1] == "Munich Open"


def test_the_list_costs_a_fixed_number_of_queries(client, rated_default_bundle, django_assert_max_num_queries):
    # 6, and the winners of the page's events: uploaded standings, the matches' fingerprints, their names (the
    # players, then the teams), and the first time (then kept) the matches the standings are computed from.
    with django_assert_max_num_queries(11):
        client.get("/events/?format=standard")
    with django_assert_max_num_queries(10):
        client.get("/events/?format=standard")


def test_the_list_names_each_events_winner(client, rated_default_bundle):
    """Munich Open's winner comes from its matches (Alice won the final), Paris Draft's too (Alice and Chloé won
    their one match each; Alice's 2-0 beats Chloé's 2-1 on games), Vampire Night's from its uploaded standings;
    the team event names the winning team."""
    words = text(client.get("/events/").content.decode())

    assert "Munich Open Standard 32 5 Alice Archer Munich" in words
    assert "Paris Draft Booster draft 16 8 Alice Archer Paris" in words
    assert "Vampire Night National championship V:TES — 3 Alice Archer Boston" in words
    assert "Team Cup Teams Standard 16 2 Bavarian Dragons" in words
    home = text(client.get("/").content.decode())
    assert "1 May 2003 Munich Open Alice Archer standard" in home


# An event ------------------------------------------------------------------------------


def test_an_unknown_event_is_not_found(client, rated_default_bundle):
    assert client.get("/events/999999/").status_code == 404


def test_it_shows_the_events_details_with_the_meaning_of_its_k(client, rated_default_bundle):
    words = text(page(client, f"/events/{event('E1').pk}/"))

    assert "Munich Open" in words
    assert "Date 1 May 2003" in words
    assert "Format Standard" in words
    assert "K-value 32: qualifier (e.g. Pro Tour Qualifier)" in words
    assert "Players 5" in words  # blank in the bundle: the distinct participants
    assert "Level II judge Present" in words
    assert "Structure Swiss + top 8" in words
    assert "Place Munich, Germany" in words
    assert "Status Rated" in words
    assert "Rated in Constructed" in words


def test_it_shows_the_matches_round_by_round_with_byes_and_the_final(client, rated_default_bundle):
    words = text(page(client, f"/events/{event('E1').pk}/"))

    assert words.index("Round 1") < words.index("Round 2") < words.index("Final Elimination")
    assert "Emi Fujita Bye no opponent" in words
    assert "Chloé Dubois 0.00 drew, games 1–1–1 Dan Evans 0.00" in words
    # Each side's rating change in the match.
    assert "Alice Archer +16.00 won, games 2–1 Bruno Becker −16.00" in words
    assert "Alice Archer +15.30 won, games 2–1 Emi Fujita −15.30" in words


def test_it_shows_each_participants_rating_change_over_the_event(client, rated_default_bundle):
    response = client.get(f"/events/{event('E1').pk}/")
    words = text(response.content.decode())

    ((category, table),) = response.context["change_tables"]
    assert category.slug == "constructed"
    assert [row.record.name for row in table.page.object_list][:1] == ["Alice Archer"]  # biggest gain first
    assert "Alice Archer 3–0–0 1600 1646 +46.56" in words  # truncated after, unrounded change
    assert "Chloé Dubois 0–1–1 1600 1584 −15.26" in words
    assert "Emi Fujita 1–0–1 1600 1600 +0.70" in words


def test_a_team_event_shows_teams(client, rated_default_bundle):
    dragons = Team.objects.get(name="Bavarian Dragons")

    html = page(client, f"/events/{event('E3').pk}/")

    assert f'<a href="/teams/{dragons.participant_id}/">Bavarian Dragons</a>' in html
    assert "Team Constructed rating changes" in text(html)
    assert "Bavarian Dragons 1–0–0 1600 1608 +8.00" in text(html)


def test_a_vekn_event_shows_standings_with_the_points_each_player_earned(client, rated_default_bundle):
    words = text(page(client, f"/events/{event('E4').pk}/"))

    # Winner: 5 + 4 x 3.5 VP + 8 x 2 GW + 90 x (log15(3^2) - 1 + 0.25) = 40.52, shown rounded.
    assert "1 Alice Archer 3.5 2 Winner 41" in words
    assert "2 Dan Evans 2 1 Finalist 23" in words
    assert "3 Finn Gallagher 0.5 0 — 7" in words
    assert "V:EKN level National championship" in words
    assert "K-value" not in words  # K means nothing for V:EKN


def test_a_draft_event_is_shown_to_its_organizer_as_not_rated(client, rated_default_bundle, organizer):
    draft = Event.objects.create(
        name="Pending Open", date=date(2024, 1, 1), format="standard", player_count=8, organizer=organizer
    )
    client.force_login(organizer)

    words = text(page(client, f"/events/{draft.pk}/"))

    assert draft.status == EventStatus.DRAFT
    assert "Status Draft (not rated)" in words
    assert "No results recorded for this event yet." in words


def test_a_corrected_match_is_marked_on_the_event_page(client, rated_default_bundle, monkeypatch):
    def corrections(*, match_ids):
        return {match_ids[0]: [MatchCorrection(date(2003, 6, 1), "an admin", "1–2", "2–1", "scores swapped")]}

    monkeypatch.setattr("public.event_views.match_corrections", corrections)

    words = text(page(client, f"/events/{event('E1').pk}/"))

    assert words.count("Corrected") == 1
    assert "Corrected 2003-06-01: 1–2 → 2–1 by an admin: scores swapped" in words


def test_a_big_event_shows_one_round_at_a_time(client, rated_default_bundle, monkeypatch):
    monkeypatch.setattr(event_views, "ALL_ROUNDS_UP_TO", 2)
    url = f"/events/{event('E1').pk}/"

    first, second = client.get(url), client.get(f"{url}?round=2")

    assert [shown.number for shown, _ in first.context["rounds_with_matches"]] == [1]
    assert [shown.number for shown, _ in second.context["rounds_with_matches"]] == [2]
    assert "Emi Fujita Bye" in text(first.content.decode())
    assert "Emi Fujita Bye" not in text(second.content.decode())
    assert "Dan Evans −16.00 lost, games 0–2 Emi Fujita +16.00" in text(second.content.decode())


def _big_open(tmp_path) -> Event:
    """Big Open (BIG): 40 players, five rounds of 20 matches; in round r, table t seats B(t + r) against B(t + r +
    20) (numbers modulo 40), who wins 2-0 at even tables and 2-1 at odd ones."""
    bundle = Bundle(tmp_path)
    numbers = [f"B{number:03}" for number in range(40)]
    for number in numbers:
        bundle.add_player(number, name=f"Player {number}", country="NL")
    bundle.add_event("BIG", name="Big Open", date="2004-03-01", players="40")
    for rnd in range(1, 6):
        for table in range(20):
            one, two = numbers[(table + rnd) % 40], numbers[(table + rnd + 20) % 40]
            bundle.add_match("BIG", rnd, one, two, 2, table % 2, 0)
    for rank, number in enumerate(numbers, start=1):
        bundle.add_standing("BIG", number, rank, "0", 0, "")
    bundle_rated(bundle)
    return event("BIG")


def _tables_shown(response) -> list[int]:
    """The tables of the round shown, from the first side's name (table t of round 2 seats B(t + 2) first)."""
    firsts = re.findall(r"Player B0(\d\d) [+−][\d.]+ (?:won|lost), games", text(response.content.decode()))
    return [(int(first) - 2) % 40 for first in firsts]


def test_a_big_round_shows_its_matches_a_page_at_a_time(client, tmp_path, monkeypatch):
    monkeypatch.setattr(event_views, "ALL_ROUNDS_UP_TO", 50)
    monkeypatch.setattr(event_views, "MATCHES_PER_PAGE", 8)
    url = f"/events/{_big_open(tmp_path).pk}/?round=2"

    pages = [client.get(f"{url}&matches-page={number}") for number in (1, 2, 3)]

    assert [_tables_shown(each) for each in pages] == [list(range(8)), list(range(8, 16)), list(range(16, 20))]
    assert "Page 2 of 3" in text(pages[1].content.decode())
    assert 'start="9"' in pages[1].content.decode()  # the list numbers its matches as the round does
    # Another table's page and the round are kept by the matches' pager, and it returns to the matches.
    assert re.search(r'rel="next" href="\?round=2&amp;matches-page=3#matches"', pages[1].content.decode())
    # A page that is not one: the first; one past the end: the last. Never an error.
    assert _tables_shown(client.get(f"{url}&matches-page=x")) == list(range(8))
    assert _tables_shown(client.get(f"{url}&matches-page=99")) == list(range(16, 20))


def test_a_round_of_a_page_or_less_has_no_pager(client, tmp_path, monkeypatch):
    monkeypatch.setattr(event_views, "ALL_ROUNDS_UP_TO", 50)
    monkeypatch.setattr(event_views, "MATCHES_PER_PAGE", 20)

    response = client.get(f"/events/{_big_open(tmp_path).pk}/?round=2&matches-page=2")

    assert _tables_shown(response) == list(range(20))
    assert response.context["matches_pager"] is None


def test_its_query_count_does_not_grow_with_the_event(client, tmp_path, django_assert_max_num_queries):
    url = f"/events/{_big_open(tmp_path).pk}/"

    with django_assert_max_num_queries(11):  # 10, and one for the corrections shown on the matches
        response = client.get(url)

    ((_, table),) = response.context["change_tables"]
    assert table.paginator.count == 40
    assert response.context["standings_table"].paginator.count == 40


def test_a_small_event_costs_the_same_queries(client, rated_default_bundle, django_assert_max_num_queries):
    url = f"/events/{event('E1').pk}/"

    # 10, one for the corrections shown on the matches, and the first time (then kept) two for the standings
    # computed from the matches: their fingerprint, and the matches.
    with django_assert_max_num_queries(13):
        client.get(url)
    with django_assert_max_num_queries(12):
        client.get(url)


# Standings from the matches (SPEC 5b) ------------------------------------------------------------------------------


def test_an_event_without_uploaded_standings_gets_them_from_its_matches(client, rated_default_bundle):
    """Munich Open (E1): two Swiss rounds, then a final Alice (1001) wins against Emi (1005).

    Swiss: Alice and Emi 6 points, opponents' match wins 1/3 each, Emi's game wins 12/12 before Alice's
    12/15; Dan (1004) and Chloé (1003) 1 point, opponents' match wins 2/3 each, games 1/3 each (floored),
    opponents' games 2/3 for Dan against 17/30 for Chloé; Bruno (1002) 0. The final puts Alice first.
    """
    response = client.get(f"/events/{event('E1').pk}/")
    html = response.content.decode()
    rows = [row.record for row in response.context["standings_table"].paginated_rows]

    assert [(row.place, row.participant, row.match_points) for row in rows] == [
        (1, participant("1001"), 6), (2, participant("1005"), 6), (3, participant("1004"), 1),
        (4, participant("1003"), 1), (5, participant("1002"), 0),
    ]  # fmt: skip
    assert 'class="event-winner"' in html and "Winner</span> <a" in html
    assert text(html.split('class="event-winner"')[1].split("</p>")[0]).strip().endswith("Alice Archer")
    dan = text(html.split("Dan Evans</a>")[1].split("</tr>")[0])
    assert "0–1–1" in dan and "66.67%" in dan and "33.33%" in dan


def test_uploaded_standings_take_precedence(client, rated_default_bundle):
    response = client.get(f"/events/{event('E4').pk}/")

    assert not response.context["standings_computed"]
    assert [winner.player.membership_number for winner in response.context["winners"]] == ["1001"]


# Drafts ------------------------------------------------------------------------------------------------


@pytest.fixture
def draft(organizer):
    """A draft event of `organizer`'s."""
    return EventFactory(name="Secret Draft Open", organizer=organizer, status=EventStatus.DRAFT)


def test_a_draft_event_is_not_listed_counted_or_shown_to_the_public(client, rated_default_bundle, draft):
    events_before = Event.objects.exclude(pk=draft.pk).count()

    assert "Secret Draft Open" not in page(client, "/events/")
    home = page(client, "/")
    assert "Secret Draft Open" not in home
    assert client.get(f"/events/{draft.pk}/").status_code == 404
    assert f"Events {events_before} " in text(home).replace(",", "")


def test_a_draft_event_page_is_shown_to_its_organizer_and_admins_only(client, draft, second_organizer, admin):
    url = f"/events/{draft.pk}/"
    client.force_login(second_organizer)
    assert client.get(url).status_code == 404
    client.force_login(draft.organizer)
    assert "Secret Draft Open" in page(client, url)
    client.force_login(admin)
    assert "Secret Draft Open" in page(client, url)
