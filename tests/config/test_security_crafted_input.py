"""Crafted input in every URL and parameter gets a 4xx with a message, never a server error.

NUL characters (which PostgreSQL refuses in text), dates far outside any
list, integers past 64 bits, negative and huge pages are sent to every page
the resolver knows, in every query parameter a page reads and in every
segment of its path, as an admin (who reaches the most pages) and as a
visitor.
"""

from urllib.parse import urlencode

import pytest
from django.test import Client

from tests.clients import client_of
from tests.config.test_security_urls import EVERYONE_POSTS, EXPECTED, site_urls

POST_ONLY = {name for name, answers in EXPECTED.items() if answers == EVERYONE_POSTS}

# Each request in a transaction of its own, as a server has it: inside one test-wide transaction, PostgreSQL
# would refuse every query after the first that failed. (Asked for by name, so the categories are seeded.)
pytestmark = pytest.mark.usefixtures("transactional_db")

# Every query parameter a page or the API reads, by what it holds.
DATES = ("as_of", "corrected_from", "corrected_to")
NUMBERS = ("offset", "limit", "page", "per_page", "round", "year", "k", "p")
TEXTS = (
    "q", "term", "name", "player", "event", "country", "continent", "region", "list", "sort", "format", "level",
    "status", "kind", "category", "opponent",
)  # fmt: skip
CRAFTED_DATES = ("0001-01-01", "10000-01-01")
CRAFTED_NUMBERS = (str(2**63), "9" * 40, "-1")
CRAFTED_TEXTS = ("'\"<>&;--%\\", "x" * 5000 + "\u202e\u0645")


def crafted_queries():
    """One query per date and number parameter and crafted value (alone, so no other one is refused first),
    and the text parameters all at once with each crafted text."""
    for names, values in ((DATES, CRAFTED_DATES), (NUMBERS, CRAFTED_NUMBERS)):
        for name in names:
            for value in values:
                yield urlencode({name: value})
    for value in CRAFTED_TEXTS:
        yield urlencode(dict.fromkeys(TEXTS, value))


def server_errors(client: Client, urls) -> list[str]:
    failures = []
    for url in urls:
        response = client.get(url)
        if response.status_code >= 500:
            failures.append(f"{response.status_code} {url}")
    return failures


def get_pages(ids) -> list[str]:
    """The pages a GET reaches (not the POST-only ones), without their own query."""
    return sorted({url.split("?")[0] for name, url in site_urls(ids).items() if name not in POST_ONLY})


@pytest.mark.parametrize("persona", ["anonymous", "admin"])
def test_no_page_answers_crafted_query_parameters_with_a_server_error(personas_and_ids, persona):
    client = client_of(personas_and_ids["people"][persona])
    client.raise_request_exception = False
    urls = [f"{page}?{query}" for page in get_pages(personas_and_ids["ids"]) for query in crafted_queries()]

    assert server_errors(client, urls) == []


def test_no_page_answers_control_characters_in_its_query_with_a_server_error(personas_and_ids):
    client = client_of(personas_and_ids["people"]["admin"])
    client.raise_request_exception = False
    query = urlencode(dict.fromkeys(DATES + NUMBERS + TEXTS, "a\x00b\x1f"))

    assert server_errors(client, [f"{page}?{query}" for page in get_pages(personas_and_ids["ids"])]) == []


def test_no_page_answers_a_nul_in_its_path_with_a_server_error(personas_and_ids):
    client = client_of(personas_and_ids["people"]["admin"])
    client.raise_request_exception = False
    urls = []
    for path in get_pages(personas_and_ids["ids"]):
        segments = path.strip("/").split("/")
        for position in range(len(segments)):
            crafted = [*segments[:position], segments[position] + "%00x", *segments[position + 1 :]]
            urls.append("/" + "/".join(crafted) + "/")

    assert server_errors(client, urls) == []


def test_a_nul_in_a_query_is_refused_with_a_message(client):
    response = client.get("/players/", {"q": "a\x00b"})

    assert response.status_code == 400
    assert "control character" in response.content.decode()
