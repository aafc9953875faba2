"""The site in German: a visitor whose browser asks for German, or who chose it, reads no English.

The English words looked for are those of the German catalog: every word of its English texts that none of
its German texts uses ("Ranking", "Player", "the"...), plus common English words text not yet marked for
translation would carry. The world's names (players, events, cities, teams) are German, so that any of
those words on a page is text of ours left in English.
"""

import gettext
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings

from events.models import Event
from players.models import Participant, Player
from tests.bundles import Bundle
from tests.worlds import bundle_rated, default_bundle_ranked_from_one_match

CATALOG = Path(settings.BASE_DIR, "locale", "de", "LC_MESSAGES", "django.mo")

# Words English text carries whichever strings it is made of: what an unmarked sentence gives away.
COMMON_ENGLISH = {
    "the", "and", "of", "with", "from", "for", "by", "this", "that", "these", "those", "your", "you", "are",
    "has", "have", "not", "none", "more", "yet", "here", "there", "which", "who", "when", "what", "where",
    "players", "player", "events", "event", "rating", "ratings", "ranked", "unranked", "rankings",
    "ranking", "since", "after", "before", "show", "shows", "shown", "see", "page", "next", "previous",
    "search", "list", "lists", "world", "country", "round", "rounds", "win", "wins", "loss", "losses", "draw",
    "draws", "history", "date", "played", "points", "change", "opponent", "opponents", "results", "result",
    "standings", "provisional", "download", "official", "sign", "about", "each", "every", "all", "only",
}  # fmt: skip

# Words both languages write alike (or that are names): never counted as English.
SHARED = {"elo", "dci", "csv", "json", "api", "atom", "v:ekn", "vekn", "v:tes", "vtes", "k", "gw", "vp", "id"}
SHARED |= {"type"}  # Magic's format "Type 1.5", its name in every language


def english_words() -> set[str]:
    catalog = gettext.GNUTranslations(CATALOG.open("rb"))._catalog  # msgid (or context\x04msgid) -> msgstr
    english, german = set(), set()
    for key, translation in catalog.items():
        msgid = key[0] if isinstance(key, tuple) else key
        if not msgid:
            continue  # the header
        english |= _words(msgid.split("\x04")[-1])
        german |= _words(translation)
    return ((english - german) | COMMON_ENGLISH) - SHARED


def _words(text: str) -> set[str]:
    text = re.sub(r"%\(\w+\)[sdf]|<[^>]+>|&\w+;", " ", text)
    return {word.lower() for word in re.findall(r"[A-Za-zÄÖÜäöüß]{2,}", text)}


class VisibleText(HTMLParser):
    """What a German reader of the page sees or hears: text, titles, labels, placeholders, button values.
    Scripts and styles are not read, nor what the page marks as another language (lang="en": "English" in
    the language switcher)."""

    SKIPPED = {"script", "style"}
    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
    SPOKEN = ("title", "aria-label", "placeholder", "alt")

    def __init__(self):
        super().__init__()
        self.parts: list[str] = []
        self.skipping: list[str] = []  # the open elements that hide their content

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        hidden = tag in self.SKIPPED or (attrs.get("lang") or "de")[:2] != "de"
        if not self.skipping and not hidden:
            self.parts.extend(attrs[name] for name in self.SPOKEN if attrs.get(name))
            if tag == "input" and attrs.get("type") in ("submit", "button") and attrs.get("value"):
                self.parts.append(attrs["value"])
        if tag not in self.VOID and (self.skipping or hidden):
            self.skipping.append(tag)

    def handle_endtag(self, tag):
        if self.skipping and self.skipping[-1] == tag:
            self.skipping.pop()

    def handle_data(self, data):
        if not self.skipping and data.strip():
            self.parts.append(data.strip())


def leaks(html: str, english: set[str]) -> list[str]:
    """Each piece of visible text holding an English word, with the words."""
    reader = VisibleText()
    reader.feed(html)
    found = []
    for part in reader.parts:
        words = _words(part) & english
        if words:
            found.append(f"{sorted(words)}: {part[:120]!r}")
    return found


@pytest.fixture
def german_world(tmp_path):
    """The default bundle, its names German, constructed ranked from the first match."""
    bundle: Bundle = default_bundle_ranked_from_one_match(tmp_path)
    names = {
        "1001": "Jürgen Weiß", "1002": "Bärbel Krüger", "1003": "Chloé Dubois", "1004": "Detlef Özdemir",
        "1005": "Emi Fujita", "1006": "Frieda Gößling",
    }  # fmt: skip
    for number, name in names.items():
        bundle.change_player(number, name=name)
    for number, (name, city) in {
        "E1": ("Münchner Frühjahrsturnier", "München"),
        "E2": ("Pariser Abend", "Paris"),
        "E3": ("Mannschaftspokal", ""),
        "E4": ("Vampirnacht", "Boston"),
    }.items():
        bundle.change_event(number, name=name, city=city)
    bundle.change_team("T1", name="Bayerische Drachen")
    bundle.change_team("T2", name="Westküste")
    bundle_rated(bundle)


def german(client, url: str) -> str:
    response = client.get(url, HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9,en;q=0.5")
    assert response.status_code == 200, (url, response.status_code)
    assert response.headers["Content-Language"] == "de"
    return response.content.decode()


def pages(db) -> list[str]:
    player = Player.objects.get(membership_number="1001")
    team = Participant.objects.get(team__name="Bayerische Drachen")
    events = {event.name: event for event in Event.objects.all()}
    return [
        "/",
        "/rankings/",
        "/rankings/constructed/",
        "/rankings/constructed/?country=DE",
        "/rankings/constructed/?list=unranked",
        "/rankings/vtes/",
        "/rankings/constructed/official/",
        "/players/",
        "/players/?q=Jurgen",
        f"/players/{player.membership_number}/",
        f"/teams/{team.pk}/",
        "/events/",
        f"/events/{events['Münchner Frühjahrsturnier'].pk}/",
        f"/events/{events['Vampirnacht'].pk}/",
        "/calculator/",
        "/corrections/",
        "/accounts/login/",
        "/accounts/sign-up/",
        "/no-such-page/",
    ]


@pytest.mark.skipif(not CATALOG.exists(), reason="the German catalog is compiled by `make install`")
def test_no_english_leaks_into_the_german_pages(client, db, german_world):
    english = english_words()
    found = {}
    for url in pages(db):
        response = client.get(url, HTTP_ACCEPT_LANGUAGE="de")
        assert response.status_code in (200, 404), (url, response.status_code)
        html = response.content.decode()
        assert '<html lang="de">' in html, url
        if problems := leaks(html, english):
            found[url] = problems
    assert not found, "\n".join(f"{url}\n  " + "\n  ".join(problems) for url, problems in found.items())


def test_the_german_pages_write_numbers_and_dates_the_german_way(client, db, german_world):
    html = german(client, "/players/1001/?category=constructed")

    assert "+16,00" in html  # Munich Open, round 1: +16.00 in English
    assert "1. Mai 2003" in html
    assert "+16.00" not in html and "1 May 2003" not in html


def test_the_browser_language_chooses_the_page_language_and_english_stays_the_default(client, db):
    assert '<html lang="en">' in client.get("/").content.decode()
    assert '<html lang="de">' in german(client, "/")
    french = client.get("/", HTTP_ACCEPT_LANGUAGE="fr-FR,fr;q=0.9")
    assert '<html lang="en">' in french.content.decode()  # a language we don't have: English


def test_the_switcher_keeps_the_choice_and_returns_to_the_page(client, db):
    response = client.post("/language/", {"language": "de", "next": "/rankings/?level=world"})

    assert response.status_code == 302
    assert response.headers["Location"] == "/rankings/?level=world"
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "de"
    # The choice wins over the browser's language from now on.
    page = client.get("/rankings/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<html lang="de">' in page
    assert 'value="en" lang="en">English</button>' in page
    assert "aria-current" in page.split('value="de"')[1].split(">")[0]  # German marked as the current one


def test_the_switcher_never_sends_a_visitor_to_another_site(client, db):
    response = client.post("/language/", {"language": "de", "next": "https://evil.example/"})

    assert response.status_code == 302
    assert "evil.example" not in response.headers["Location"]


def test_the_switcher_refuses_a_language_the_site_does_not_have(client, db):
    client.post("/language/", {"language": "xx", "next": "/"})

    assert '<html lang="en">' in client.get("/").content.decode()


def test_a_page_kept_or_validated_in_one_language_is_never_served_in_the_other(client, db, german_world):
    english = client.get("/rankings/constructed/")
    in_german = client.get("/rankings/constructed/", HTTP_ACCEPT_LANGUAGE="de")

    assert english.headers["ETag"] != in_german.headers["ETag"]
    assert "Accept-Language" in in_german.headers["Vary"] and "Cookie" in in_german.headers["Vary"]
    # The English ETag does not validate the German page: the German visitor gets the page, not a 304.
    again = client.get("/rankings/constructed/", HTTP_ACCEPT_LANGUAGE="de", HTTP_IF_NONE_MATCH=english.headers["ETag"])
    assert again.status_code == 200
    assert '<html lang="de">' in again.content.decode()
    assert '<html lang="en">' in client.get("/rankings/constructed/").content.decode()


def test_the_api_answers_in_english_whatever_the_language_and_its_reference_page_is_translated(client, db):
    refused = client.get("/api/rankings/constructed/?continent=XX", HTTP_ACCEPT_LANGUAGE="de")
    page = client.get("/rankings/constructed/?continent=XX", HTTP_ACCEPT_LANGUAGE="de").content.decode()

    assert refused.status_code == 400
    assert refused.headers["Content-Language"] == "en"
    assert refused.json()["details"] == [{"parameter": "continent", "message": refused.json()["message"]}]
    assert refused.json()["message"].startswith("“XX” is not a continent. Continents: AF (Africa)")
    assert "„XX“" in page or "“XX”" in page
    assert "is not a continent" not in page  # the page says it in German
    assert '<html lang="de">' in german(client, "/api/docs/")
