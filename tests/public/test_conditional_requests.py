"""Anonymous public pages answer conditional requests (public/conditional.py): an ETag from the lists' versions,
the URL, the day and the deployed code; `Cache-Control` a CDN may keep; a 304 without rendering; nothing shared of
a signed-in visitor's page, of a page with a form's CSRF token or a message, of anything but a 200.

The world is the default test bundle (tests/bundles.py), constructed ranked from one match (`ranked_default_bundle`).
"""

import datetime

import pytest
from django.http import HttpResponse
from django.middleware.csrf import get_token
from django.test import RequestFactory
from django.utils import timezone

from players.models import Player, Team
from public.conditional import public_page_cached
from ratings.models import Category
from ratings.services.recompute import category_recompute
from tests.factories import PlayerAccountFactory

pytestmark = pytest.mark.django_db

RANKING = "/rankings/constructed/"


def cache_control(response) -> set[str]:
    return {part.strip() for part in response.headers.get("Cache-Control", "").split(",") if part.strip()}


def varies_on_cookie(response) -> bool:
    return "cookie" in {part.strip().lower() for part in response.headers.get("Vary", "").split(",")}


def recomputed(slug: str) -> None:
    category_recompute(category=Category.objects.get(slug=slug))


def test_an_anonymous_ranking_has_an_etag_and_a_shared_cache_may_keep_it(client, settings, ranked_default_bundle):
    settings.PUBLIC_PAGE_MAX_AGE = 30
    settings.PUBLIC_PAGE_SHARED_MAX_AGE = 600

    response = client.get(RANKING)

    assert response.status_code == 200
    assert response.headers["ETag"].startswith('W/"')
    assert cache_control(response) == {"public", "max-age=30", "s-maxage=600"}
    assert varies_on_cookie(response)


@pytest.mark.parametrize("url", [RANKING, "/rankings/", "/", "/players/1001/", "/players/1001/?category=constructed"])
def test_a_repeat_visit_with_the_etag_gets_a_304_without_the_page_being_read(
    client, ranked_default_bundle, url, django_assert_max_num_queries
):
    first = client.get(url)
    etag = first.headers["ETag"]

    with django_assert_max_num_queries(1):  # the categories' versions, nothing of the list
        again = client.get(url, headers={"if-none-match": etag})

    assert again.status_code == 304
    assert again.content == b""
    assert again.headers["ETag"] == etag
    assert "public" in cache_control(again)
    assert varies_on_cookie(again)


def test_a_team_page_answers_304_too(client, ranked_default_bundle):
    url = f"/teams/{Team.objects.get(name='Bavarian Dragons').participant_id}/"
    etag = client.get(url).headers["ETag"]

    assert client.get(url, headers={"if-none-match": etag}).status_code == 304


def test_a_recompute_of_the_list_changes_the_etag_and_the_old_one_gets_the_page(client, ranked_default_bundle):
    before = client.get(RANKING).headers["ETag"]

    recomputed("constructed")

    after = client.get(RANKING, headers={"if-none-match": before})
    assert after.status_code == 200
    assert after.headers["ETag"] != before
    assert b"Constructed" in after.content


def test_a_recompute_of_another_list_leaves_a_ranking_s_etag_alone(client, ranked_default_bundle):
    before = client.get(RANKING).headers["ETag"]

    recomputed("vintage")

    assert client.get(RANKING, headers={"if-none-match": before}).status_code == 304


def test_a_derived_list_s_etag_follows_its_components(client, ranked_default_bundle):
    before = client.get("/rankings/composite/").headers["ETag"]

    recomputed("constructed")

    assert client.get("/rankings/composite/").headers["ETag"] != before


@pytest.mark.parametrize(
    "query",
    ["?country=DE", "?page=2&per_page=1", "?sort=name", "?as_of=2004-12-31", "?q=ali", "?list=unranked"],
)
def test_each_query_string_has_an_etag_of_its_own(client, ranked_default_bundle, query):
    plain = client.get(RANKING)
    other = client.get(RANKING + query)

    assert other.status_code == 200
    assert other.headers["ETag"] != plain.headers["ETag"]
    assert client.get(RANKING + query, headers={"if-none-match": plain.headers["ETag"]}).status_code == 200


def test_the_etag_changes_with_the_day(client, ranked_default_bundle, monkeypatch):
    today = client.get(RANKING).headers["ETag"]
    tomorrow = timezone.localdate() + datetime.timedelta(days=1)
    monkeypatch.setattr(timezone, "localdate", lambda *args, **kwargs: tomorrow)

    assert client.get(RANKING, headers={"if-none-match": today}).headers["ETag"] != today


def test_the_etag_changes_with_the_deployed_code(client, settings, ranked_default_bundle):
    settings.SITE_VERSION = "release-1"
    first = client.get(RANKING).headers["ETag"]
    settings.SITE_VERSION = "release-2"

    response = client.get(RANKING, headers={"if-none-match": first})

    assert response.status_code == 200
    assert response.headers["ETag"] != first


def test_a_category_renamed_changes_every_ranking_s_etag(client, ranked_default_bundle):
    before = client.get(RANKING).headers["ETag"]
    Category.objects.filter(slug="vintage").update(name="Vintage (renamed)")  # a tab of the page

    assert client.get(RANKING).headers["ETag"] != before


def test_a_signed_in_visitor_s_page_is_private_and_has_no_etag(client, ranked_default_bundle):
    anonymous = client.get(RANKING).headers["ETag"]
    client.force_login(PlayerAccountFactory())

    response = client.get(RANKING, headers={"if-none-match": anonymous})

    assert response.status_code == 200
    assert b"Sign out" in response.content
    assert "ETag" not in response.headers
    assert "private" in cache_control(response)
    assert "public" not in cache_control(response)
    assert varies_on_cookie(response)


def test_a_signed_in_player_s_own_page_is_private(client, ranked_default_bundle):
    client.force_login(PlayerAccountFactory(player=Player.objects.get(membership_number="1001")))

    response = client.get("/players/1001/?category=constructed")

    assert response.status_code == 200
    assert "ETag" not in response.headers
    assert "private" in cache_control(response)


def test_a_post_is_never_answered_304_nor_shared(client, ranked_default_bundle):
    etag = client.get(RANKING).headers["ETag"]

    response = client.post(RANKING, headers={"if-none-match": etag})

    assert response.status_code != 304
    assert "ETag" not in response.headers
    assert "public" not in cache_control(response)


def test_a_page_rendered_with_a_csrf_token_is_never_shared():
    @public_page_cached(lambda request: ("a state",))
    def a_page_with_a_form(request):
        return HttpResponse(f'<form method="post"><input name="csrfmiddlewaretoken" value="{get_token(request)}">')

    request = RequestFactory().get("/a-form/")
    request.user = _Anonymous()
    request.session = _Session()

    response = a_page_with_a_form(request)

    assert response.status_code == 200
    assert "ETag" not in response.headers
    assert cache_control(response) == {"private", "no-cache"}


def test_a_page_showing_a_message_is_never_shared(client, ranked_default_bundle):
    # The head-to-head form with an unknown number: back to the player page with an error message.
    response = client.get("/players/1001/vs/?opponent=NOPE", follow=True)

    assert "No other player" in response.content.decode()
    assert "ETag" not in response.headers
    assert "private" in cache_control(response)
    assert "ETag" in client.get("/players/1001/").headers  # the next visit, the message shown, is shared again


def test_answers_other_than_200_are_not_shared(client, ranked_default_bundle):
    assert "ETag" in client.get(RANKING).headers
    for url in (RANKING + "?country=NOWHERE", "/rankings/nope/", "/players/NOPE/", "/teams/999999/"):
        response = client.get(url)
        assert response.status_code in (400, 404), url
        assert "ETag" not in response.headers, url
        assert "public" not in cache_control(response), url


def test_the_player_page_s_etag_changes_when_their_list_is_recomputed(client, ranked_default_bundle):
    url = "/players/1001/?category=constructed"
    before = client.get(url).headers["ETag"]

    recomputed("constructed")

    response = client.get(url, headers={"if-none-match": before})
    assert response.status_code == 200
    assert response.headers["ETag"] != before


def test_the_player_page_s_etag_changes_when_the_player_is_renamed(client, ranked_default_bundle):
    before = client.get("/players/1001/").headers["ETag"]
    Player.objects.filter(membership_number="1001").update(name="Alice Renamed")

    response = client.get("/players/1001/", headers={"if-none-match": before})

    assert response.status_code == 200
    assert "Alice Renamed" in response.content.decode()


def test_the_home_page_s_etag_changes_with_any_recompute(client, ranked_default_bundle):
    before = client.get("/").headers["ETag"]

    recomputed("vintage")

    assert client.get("/", headers={"if-none-match": before}).status_code == 200


class _Anonymous:
    is_authenticated = False


class _Session(dict):
    modified = False


def test_a_list_rebuilt_after_midnight_changes_the_etag_of_pages_served_before(
    client, ranked_default_bundle, monkeypatch
):
    # Just after midnight a page is served from yesterday's list; then the job worker rebuilds that list for
    # the new day (no recompute, so no new history version): the page served before must not stay valid.
    from ratings.services.lists import current_lists_refresh_stale

    tomorrow = timezone.localdate() + datetime.timedelta(days=1)
    monkeypatch.setattr(timezone, "localdate", lambda *args, **kwargs: tomorrow)
    before_the_rebuild = client.get(RANKING).headers["ETag"]

    assert Category.objects.get(slug="constructed") in current_lists_refresh_stale()

    response = client.get(RANKING, headers={"if-none-match": before_the_rebuild})
    assert response.status_code == 200
    assert response.headers["ETag"] != before_the_rebuild


# the site keeps an anonymous page under its ETag ---------------------------------------------------------------------


@pytest.mark.parametrize("url", [RANKING, "/", "/players/1001/"])
def test_the_next_anonymous_visitor_gets_the_kept_page_without_it_being_read(
    ranked_default_bundle, url, django_assert_max_num_queries
):
    from django.test import Client

    first = Client().get(url)

    with django_assert_max_num_queries(1):  # the page's state; the page itself is the one kept
        again = Client().get(url)

    assert again.status_code == 200
    assert again.content == first.content
    assert again.headers["ETag"] == first.headers["ETag"]
    assert again.headers["Content-Type"] == first.headers["Content-Type"]
    assert "public" in cache_control(again) and varies_on_cookie(again)


def test_a_kept_page_is_rendered_again_once_its_list_is_recomputed(client, ranked_default_bundle):
    first = client.get(RANKING)
    Player.objects.filter(membership_number="1001").update(name="Renamed Player")

    recomputed("constructed")

    again = client.get(RANKING)
    assert again.headers["ETag"] != first.headers["ETag"]
    assert "Renamed Player" in again.content.decode()


def test_a_page_is_kept_no_longer_than_a_shared_cache_may_keep_it_and_none_too_large(
    client, settings, ranked_default_bundle, monkeypatch
):
    kept = []
    monkeypatch.setattr("public.conditional.cache.set", lambda key, value, timeout: kept.append((key, timeout)))
    settings.PUBLIC_PAGE_SHARED_MAX_AGE = 123

    client.get(RANKING)
    settings.PUBLIC_PAGE_KEPT_MAX_BYTES = 100
    client.get("/rankings/vintage/")

    assert [timeout for key, timeout in kept if key.startswith("public-page:")] == [123]


def test_a_signed_in_visitor_never_gets_a_kept_page_nor_leaves_one(client, ranked_default_bundle):
    from django.test import Client

    account = PlayerAccountFactory()
    client.force_login(account)
    signed_in = client.get(RANKING)
    anonymous = Client().get(RANKING)

    assert account.username.encode() in signed_in.content
    assert account.username.encode() not in anonymous.content
    assert "ETag" in anonymous.headers
    assert account.username.encode() in client.get(RANKING).content  # not the anonymous page kept meanwhile
