"""Every URL of the site, for every kind of visitor: anonymous, player, organizer, admin.

The URL resolver is walked, so a new page is in the matrix the day it is
added, and the test fails until it is given its expected answers. Nobody ever
gets a server error; a private page sends an anonymous visitor to sign in and
answers others who may not see it with 403 (or 404, where saying "forbidden"
would tell that the thing exists); the admin site sends anyone who is not
staff to its own sign-in page.
"""

import pytest
from django.contrib import admin
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from tests.clients import client_of

pytestmark = pytest.mark.django_db

PERSONAS = ("anonymous", "player", "organizer", "admin")

OK, SIGN_IN, ADMIN_SIGN_IN, FORBIDDEN, NOT_FOUND, POST_ONLY = 200, "sign in", "admin sign in", 403, 404, 405

PUBLIC = dict.fromkeys(PERSONAS, OK)
SIGNED_IN = {**PUBLIC, "anonymous": SIGN_IN}
ORGANIZERS = {"anonymous": SIGN_IN, "player": FORBIDDEN, "organizer": OK, "admin": OK}
ADMINS = {"anonymous": SIGN_IN, "player": FORBIDDEN, "organizer": FORBIDDEN, "admin": OK}
# The player's own match: only they appeal it.
OWN_MATCH = {"anonymous": SIGN_IN, "player": OK, "organizer": FORBIDDEN, "admin": FORBIDDEN}
EVERYONE_POSTS = dict.fromkeys(PERSONAS, POST_ONLY)
SIGN_IN_PAGE = {**dict.fromkeys(PERSONAS, "redirect"), "anonymous": OK}  # the signed-in are sent on
ADMIN_SITE = {"anonymous": ADMIN_SIGN_IN, "player": ADMIN_SIGN_IN, "organizer": ADMIN_SIGN_IN, "admin": OK}

# URL name: expected answer to a GET per persona.
EXPECTED = {
    "home": PUBLIC,
    "favicon": dict.fromkeys(PERSONAS, 301),  # for good, to the icon the pages link
    "set_language": dict.fromkeys(PERSONAS, "redirect"),  # the switcher's POST; a GET is sent back to a page
    "ratings:index": PUBLIC,
    "ratings:detail": PUBLIC,
    "ratings:feed": PUBLIC,
    "ratings:official": PUBLIC,
    "ratings:history-download": PUBLIC,
    "ratings:official-list": PUBLIC,
    "players:list": PUBLIC,
    "players:suggest": PUBLIC,
    "players:detail": PUBLIC,
    "players:feed": PUBLIC,
    "players:versus-pick": dict.fromkeys(PERSONAS, "redirect"),  # to the head-to-head page asked for
    "players:versus": PUBLIC,
    "players:team": PUBLIC,
    "events:list": PUBLIC,
    "events:detail": PUBLIC,
    "calculator:calculator": PUBLIC,
    "corrections:log": PUBLIC,
    "corrections:feed": PUBLIC,
    "corrections:detail": PUBLIC,
    "corrections:match_correct": ADMINS,
    "corrections:match_remove": ADMINS,
    "corrections:match_add": ADMINS,
    "corrections:my_appeals": SIGNED_IN,
    "corrections:appeal_new": OWN_MATCH,
    "corrections:appeal_queue": ADMINS,
    "corrections:appeal_review": ADMINS,
    "corrections:claim_queue": ADMINS,
    "corrections:player_merge": ADMINS,
    "corrections:detail_decide": {**ADMINS, "admin": POST_ONLY},
    "corrections:my_details": OWN_MATCH,  # a player linked to their number: the others are not
    "corrections:claim_decide": {**ADMINS, "admin": POST_ONLY},
    "organize:index": ORGANIZERS,
    "organize:event_create": ORGANIZERS,
    # The organizer's own draft: another organizer would get 404 (tests/organize/test_organize_permissions.py).
    "organize:event": ORGANIZERS,
    "organize:event_edit": ORGANIZERS,
    "organize:event_delete": ORGANIZERS,  # the page that asks first; the deletion is its POST
    "organize:upload": ORGANIZERS,
    "organize:round": ORGANIZERS,
    "organize:standings": ORGANIZERS,
    "organize:preview": ORGANIZERS,
    "organize:submit": {**EVERYONE_POSTS},
    "accounts:account": SIGNED_IN,
    "accounts:login": SIGN_IN_PAGE,
    "accounts:sign_up": SIGN_IN_PAGE,
    "accounts:sign_up_done": PUBLIC,
    "accounts:sign_up_confirm": dict.fromkeys(PERSONAS, 400),  # an invalid link says so
    "login": SIGN_IN_PAGE,
    "logout": EVERYONE_POSTS,
    "password_change": SIGNED_IN,
    "accounts:password_change": SIGNED_IN,  # the same page: ours, counting wrong old passwords
    "password_change_done": SIGNED_IN,
    "password_reset": PUBLIC,
    "accounts:password_reset": PUBLIC,  # the same page: ours, throttling its e-mails
    "password_reset_done": PUBLIC,
    "password_reset_confirm": PUBLIC,  # an invalid link says so
    "password_reset_complete": PUBLIC,
    "api:index": PUBLIC,
    "api:docs": PUBLIC,
    "api:openapi-json": PUBLIC,
    "api:openapi-view": PUBLIC,
    "api:categories": PUBLIC,
    "api:rankings": PUBLIC,
    "api:players": PUBLIC,
    "api:player": PUBLIC,
    "api:player-history": PUBLIC,
    "api:events": PUBLIC,
    "api:event": PUBLIC,
    "api:api-root": PUBLIC,
    "api:not-found": dict.fromkeys(PERSONAS, NOT_FOUND),
}

# Query strings some pages need to answer 200.
QUERIES = {"api:player-history": "?category=constructed"}

# The admin site: staff only. Its own pages besides the models' (those come from its registry).
ADMIN_PAGES = ("admin:index", "admin:password_change", "admin:password_change_done", "admin:jsi18n")
ADMIN_NOT_PAGES = {
    "admin:login",  # the sign-in page itself
    "admin:logout",  # POST only
    "admin:autocomplete",  # a JSON endpoint that needs a model and field in its query
    "admin:view_on_site",  # a redirect to the object's page on the site
    "admin:app_list",  # one per app, visited through the index
}


def url_names(patterns=None, namespace=None):
    """Every (name, pattern) the resolver knows, names with their namespaces ("admin:" alone: unnamed admin)."""
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(pattern, URLResolver):
            inner = namespace
            if pattern.namespace:
                inner = f"{namespace}:{pattern.namespace}" if namespace else pattern.namespace
            yield from url_names(pattern.url_patterns, inner)
        elif isinstance(pattern, URLPattern):
            name = f"{namespace}:{pattern.name or ''}" if namespace else pattern.name
            yield name, pattern


def site_urls(ids) -> dict[str, str]:
    """A URL for every named page outside the admin site, built from the fixture's ids."""
    urls = {}
    for name, pattern in url_names():
        if name is None or name.startswith("admin:"):
            continue
        if name == "api:not-found":
            urls[name] = "/api/no-such-thing/"
            continue
        kwargs = {key: ids[key] for key in getattr(pattern.pattern, "converters", {})}
        if name.startswith("organize:") and "event_id" in kwargs:
            kwargs["event_id"] = ids["draft_id"]  # the organizer's own draft
        urls[name] = reverse(name, kwargs=kwargs) + QUERIES.get(name, "")
    return urls


def admin_urls() -> dict[str, str]:
    """A URL for every page of every model in the admin site (its first object for object pages)."""
    urls = {name: reverse(name) for name in ADMIN_PAGES}
    for name, pattern in url_names():
        if not (name or "").startswith("admin:") or name == "admin:" or name in ADMIN_PAGES or name in ADMIN_NOT_PAGES:
            continue
        converters = list(getattr(pattern.pattern, "converters", {}))
        if not converters:
            urls[name] = reverse(name)
            continue
        model = next(
            model
            for model in admin.site._registry
            if name.startswith(f"admin:{model._meta.app_label}_{model._meta.model_name}_")
        )
        first = model._default_manager.order_by("pk").first()
        if first is not None:
            urls[name] = reverse(name, kwargs={converters[0]: first.pk})
    return urls


def answer(response) -> object:
    """The status code, or where a redirect goes: the site's sign-in, the admin's, or elsewhere."""
    if response.status_code == 302:
        location = response["Location"]
        if location.startswith(reverse("accounts:login") + "?next="):
            return SIGN_IN
        if location.startswith(reverse("admin:login") + "?next="):
            return ADMIN_SIGN_IN
        return "redirect"
    return response.status_code


def test_every_page_of_the_site_has_its_expected_answers():
    named = {name for name, _ in url_names() if name and not name.startswith("admin:")}
    # The admin site's own unnamed patterns (old object URLs, its catch-all) redirect or answer 404.
    unnamed = [str(pattern.pattern) for name, pattern in url_names() if not name or name.endswith(":")]
    unnamed = [pattern for pattern in unnamed if pattern not in ("<path:object_id>/", "(?P<url>.*)$")]

    assert named - set(EXPECTED) == set(), "new pages: give them their expected answers in EXPECTED"
    assert set(EXPECTED) - named == set(), "pages gone: remove them from EXPECTED"
    assert unnamed == [], "name every URL pattern, so that it can be checked here"


@pytest.mark.parametrize("persona", PERSONAS)
def test_each_kind_of_visitor_gets_the_expected_answer_from_every_page(personas_and_ids, persona):
    client = client_of(personas_and_ids["people"][persona])

    wrong = {}
    for name, url in site_urls(personas_and_ids["ids"]).items():
        got = answer(client.get(url))
        if got != EXPECTED[name][persona]:
            wrong[name] = (url, got, EXPECTED[name][persona])

    assert wrong == {}, f"{persona}: (url, answer, expected) per page"


@pytest.mark.parametrize("persona", ["anonymous", "player", "organizer"])
def test_the_admin_site_sends_everyone_but_staff_to_its_sign_in(personas_and_ids, persona):
    client = client_of(personas_and_ids["people"][persona])
    urls = admin_urls()

    answers = {name: answer(client.get(url)) for name, url in urls.items()}

    assert len(urls) > 60
    assert {name: got for name, got in answers.items() if got != ADMIN_SIGN_IN} == {}


def test_admins_open_the_admin_site_without_a_server_error(personas_and_ids):
    client = client_of(personas_and_ids["people"]["admin"])

    answers = {name: answer(client.get(url)) for name, url in admin_urls().items()}

    # 403: the Admins role has no permission for that change (the history and logs are read-only).
    assert {name: got for name, got in answers.items() if got not in (200, 403, "redirect")} == {}
    assert answers["admin:index"] == 200
    assert answers["admin:events_event_change"] == 200
    assert answers["admin:ratings_recomputerun_changelist"] == 200


MISSING = {"slug": "no-such-list", "number": "NOBODY", "other": "NOBODY-ELSE", "membership_number": "NOBODY"}


@pytest.mark.parametrize("persona", ["anonymous", "admin"])
def test_pages_of_things_that_do_not_exist_answer_not_found_never_a_server_error(personas_and_ids, persona):
    client = client_of(personas_and_ids["people"][persona])
    ids = {**personas_and_ids["ids"], **MISSING}
    ids.update({key: 987654 for key, value in ids.items() if isinstance(value, int)})

    answers = {}
    for name, url in site_urls(ids).items():
        if any(str(value) in url for value in (987654, *MISSING.values())):
            answers[name] = (url, answer(client.get(url)))

    assert len(answers) > 20
    assert {name: got for name, got in answers.items() if got[1] not in (NOT_FOUND, SIGN_IN, 405, FORBIDDEN)} == {}
