"""Atom feeds: a player's rating after each event and the corrections of their matches, each list's monthly
lists, and the correction log. The world is the default bundle with constructed ranked from one match
(tests/conftest.py): Alice Archer (1001) went from 1600 to 1646.56 at Munich Open."""

import xml.etree.ElementTree as ET

import pytest
from django.utils import timezone

from corrections import services
from corrections.services import Result
from ratings.services.official import official_lists_publish
from ratings.snapshots import end_of_previous_month
from tests.factories import AdminFactory
from tests.worlds import the_match

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"


def entries(client, url) -> list[dict]:
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    feed = ET.fromstring(response.content)
    return [
        {
            "title": entry.findtext(f"{ATOM}title"),
            "summary": entry.findtext(f"{ATOM}summary"),
            "link": entry.find(f"{ATOM}link").get("href"),
            "id": entry.findtext(f"{ATOM}id"),
        }
        for entry in feed.iter(f"{ATOM}entry")
    ]


def test_a_players_feed_has_their_rating_after_each_event_and_the_corrections_of_their_matches(
    client, ranked_default_bundle
):
    before = entries(client, "/players/1001/feed/")
    constructed = [entry for entry in before if entry["title"].startswith("Constructed:")]
    assert [entry["title"] for entry in constructed] == ["Constructed: 1646 after Munich Open (+46.56)"]
    assert "went from 1600 to 1646 at Munich Open on 01 May 2003 (3 won, 0 drawn, 0 lost)" in constructed[0]["summary"]
    assert len({entry["id"] for entry in before}) == len(before)  # one id per entry, even for one event in two lists

    services.match_correct(
        match=the_match("E1", 2, "1001"), result=Result(0, 2), reason="Slips swapped.", by=AdminFactory()
    )
    after = entries(client, "/players/1001/feed/")

    assert after[0]["title"] == "Corrected: Munich Open, round 2: Alice Archer vs Chloé Dubois"
    assert "Slips swapped." in after[0]["summary"]
    assert not any(entry["title"].startswith("Corrected") for entry in entries(client, "/players/1005/feed/"))


def test_a_lists_feed_has_its_official_lists_as_they_are_published(client, ranked_default_bundle):
    assert entries(client, "/rankings/constructed/feed/") == []  # none published yet
    official_lists_publish(months=2)
    last = end_of_previous_month(timezone.localdate())
    before = end_of_previous_month(last)

    found = entries(client, "/rankings/constructed/feed/")

    assert [entry["title"] for entry in found] == [
        f"Constructed: the official list of {last:%B %Y}",
        f"Constructed: the official list of {before:%B %Y}",
    ]
    assert found[0]["summary"].startswith("5 ranked. The leaders: 1. Alice Archer 1646; 2. Emi Fujita 1600;")
    assert found[0]["link"].endswith(f"/rankings/constructed/official/{last.isoformat()}/")


def test_the_correction_logs_feed_has_each_correction(client, ranked_default_bundle):
    services.match_correct(
        match=the_match("E1", 2, "1001"), result=Result(0, 2), reason="Slips swapped.", by=AdminFactory()
    )

    [entry] = entries(client, "/corrections/feed/")

    assert entry["title"] == "Munich Open, round 2: Alice Archer vs Chloé Dubois"
    assert entry["summary"].startswith("Result corrected. Was: Alice Archer won 2–0. Now: Chloé Dubois won 2–0.")
    assert entry["summary"].endswith("Slips swapped.")


def test_pages_point_feed_readers_at_their_feeds(client, ranked_default_bundle):
    for page, feed in [
        ("/players/1001/", "/players/1001/feed/"),
        ("/rankings/constructed/", "/rankings/constructed/feed/"),
        ("/corrections/", "/corrections/feed/"),
    ]:
        assert '<link rel="alternate" type="application/atom+xml"' in (html := client.get(page).content.decode())
        assert f'href="{feed}"' in html


def test_feeds_of_nobody_are_not_found(client, ranked_default_bundle):
    assert client.get("/players/9999/feed/").status_code == 404
    assert client.get("/rankings/no-such-list/feed/").status_code == 404


def test_a_lists_feed_reads_every_lists_leaders_at_once(client, ranked_default_bundle, django_assert_max_num_queries):
    official_lists_publish(months=6)

    with django_assert_max_num_queries(3):  # the category, its official lists, their leaders
        found = entries(client, "/rankings/constructed/feed/")

    assert len(found) == 6
