"""Conditional requests for the public pages: a validator from the lists' versions, and who may keep a page.

A page an anonymous visitor reads is the same for every anonymous visitor until
a recompute publishes a list (every recompute bumps its category's
`history_version`), the day changes (last month's columns, "today", the V:EKN
windows) or the site is deployed again. `public_page_cached(page_state)` makes
an ETag of exactly that, so that

- a repeat visit with `If-None-Match` gets 304 without the page being read or
  rendered (the state costs one small query, on the categories: never the list);
- an anonymous 200 says `Cache-Control: public, max-age=PUBLIC_PAGE_MAX_AGE,
  s-maxage=PUBLIC_PAGE_SHARED_MAX_AGE`: a browser keeps it briefly, a CDN or
  reverse proxy longer, and either revalidates it for the price of that query;
- a signed-in visitor's page (their name in the header, the sign-out form's
  CSRF token, appeal links) says `private, no-cache` and has no ETag, and so
  does any page that turned out to be per visitor while it was rendered (a form
  with a CSRF token, a cookie set, a message shown: `_shared`), and any answer
  but a 200 (a 404, a form's 400, a 429 asking to wait);
- every answer says `Vary: Cookie`: a shared cache never gives the page of a
  request without the session cookie to one with it, or the reverse;
- the site keeps the rendered page itself, under its ETag, as long as a shared
  cache may (`PUBLIC_PAGE_SHARED_MAX_AGE`; in Django's cache, shared by every
  process when that is Redis): the next anonymous visitor without the ETag gets
  it for the price of the state's query, as a CDN in front would give it. The
  ETag holds everything the page depends on, so a kept page is never another
  state's (the same promise the 304s make); pages larger than
  `PUBLIC_PAGE_KEPT_MAX_BYTES` (a whole list's CSV) are rendered each time.

Not Django's `condition` decorator: it puts its ETag on every answer to a GET,
404s and 429s included, and cannot leave it off a page found per visitor only
once rendered. Its core, `get_conditional_response`, answers the 304 (or 412).

The deployed code is part of the ETag, so that a deploy that changes a template
does not answer 304 for the old page: `settings.SITE_VERSION` (the environment's
SITE_VERSION, e.g. the release's commit) when set, else a digest of the
project's code, templates and static files, computed once per process.
"""

import hashlib
from collections.abc import Callable, Iterable
from functools import wraps

from django.conf import settings
from django.contrib.messages import get_messages
from django.core.cache import cache
from django.db.models import Subquery
from django.http import HttpResponse
from django.utils import timezone, translation
from django.utils.cache import get_conditional_response, patch_cache_control, patch_vary_headers

from lib.site_version import site_version
from players.models import Player, Team
from ratings.models import Category

# A page's state: what, besides the URL, the day, the language and the code, the page shows is at.
PageState = Callable[..., Iterable | None]


def public_page_cached(page_state: PageState):
    """Answer conditional GETs of an anonymous page from `page_state(request, *args, **kwargs)`.

    `page_state` returns what the page's data is at (versions of lists, fields
    of a player), in at most one small query, or None when there is nothing to
    cache (an unknown slug or number: the view answers its 404).
    """

    def decorator(view):
        @wraps(view)
        def inner(request, *args, **kwargs):
            if request.method not in ("GET", "HEAD"):
                return view(request, *args, **kwargs)
            if not _anonymous(request):
                response = view(request, *args, **kwargs)
                _not_shared(response)
                return response
            state = page_state(request, *args, **kwargs)
            etag = None if state is None else page_etag(request, state)
            if etag is not None:
                response = get_conditional_response(request, etag=etag)
                if response is not None:  # 304 (or 412 to an If-Match): the page is neither read nor rendered
                    if response.status_code == 304:
                        _shared(response, etag)
                    else:
                        _not_shared(response)
                    return response
                response = _kept_page(etag)
                if response is not None:  # rendered for an earlier visitor, in the same state
                    _shared(response, etag)
                    return response
            response = view(request, *args, **kwargs)
            if etag is not None and response.status_code == 200 and _same_for_everyone(request, response):
                _page_keep(etag, response)
                _shared(response, etag)
            else:
                _not_shared(response)
            return response

        return inner

    return decorator


def _kept_key(etag: str) -> str:
    return f"public-page:{etag}"


def _kept_page(etag: str) -> HttpResponse | None:
    kept = cache.get(_kept_key(etag))
    if kept is None:
        return None
    content, headers = kept
    return HttpResponse(content, headers=headers)


def _page_keep(etag: str, response) -> None:
    if response.streaming or len(response.content) > settings.PUBLIC_PAGE_KEPT_MAX_BYTES:
        return
    cache.set(_kept_key(etag), (response.content, dict(response.headers)), settings.PUBLIC_PAGE_SHARED_MAX_AGE)


def page_etag(request, state: Iterable) -> str:
    """A weak ETag (the same page, not the same bytes: a proxy may compress it) of everything the page depends on."""
    parts = (
        site_version(),
        translation.get_language() or settings.LANGUAGE_CODE,
        request.build_absolute_uri(),  # the path and the query: filters, page, sort, as_of, category
        timezone.localdate().isoformat(),
        *state,
    )
    digest = hashlib.sha256(repr(parts).encode()).hexdigest()[:32]
    return f'W/"{digest}"'


def _anonymous(request) -> bool:
    """Nobody signed in, and no message waiting to be shown (messages.error before a redirect to the page)."""
    if request.user.is_authenticated:
        return False
    return not len(get_messages(request))


def _same_for_everyone(request, response) -> bool:
    """What the rendered page says about itself: no CSRF token in it, no cookie set, no message shown."""
    if request.META.get("CSRF_COOKIE_NEEDS_UPDATE") or response.cookies:
        return False
    session = getattr(request, "session", None)
    if session is not None and session.modified:
        return False
    return not getattr(get_messages(request), "used", False)


def _shared(response, etag: str) -> None:
    response.headers.setdefault("ETag", etag)
    patch_cache_control(
        response,
        public=True,
        max_age=settings.PUBLIC_PAGE_MAX_AGE,
        s_maxage=settings.PUBLIC_PAGE_SHARED_MAX_AGE,
    )
    patch_vary_headers(response, ("Cookie",))


def _not_shared(response) -> None:
    if "ETag" in response.headers:
        del response.headers["ETag"]
    patch_cache_control(response, private=True, no_cache=True)
    patch_vary_headers(response, ("Cookie",))


# What each page's data is at: one query on the categories (a dozen rows), never the lists themselves -------------

# The category's fields any page shows (names, slugs, order, rules): all but the version, which pages take as they need.
_CATEGORY_FIELDS = [field.attname for field in Category._meta.concrete_fields if field.attname != "history_version"]


def categories_read(request) -> list[Category]:
    """Every category, read once per request: by a page's state, then by the view."""
    categories = getattr(request, "_public_categories", None)
    if categories is None:
        categories = request._public_categories = list(Category.objects.all())
    return categories


def every_list_state(request, *args, **kwargs) -> tuple:
    """Pages that show every list (home, the rankings index): every category, version included."""
    return tuple(_category_state(category) + (category.history_version,) for category in categories_read(request))


def ranking_state(request, slug: str) -> tuple | None:
    """A ranking: every category (the tabs) and this list's version (a derived list's is bumped with its components)."""
    categories = categories_read(request)
    category = next((each for each in categories if each.slug == slug), None)
    if category is None:
        return None
    return (*(_category_state(each) for each in categories), category.history_version)


def player_state(request, number: str) -> tuple | None:
    """A player's page: every list (their standings in each) and the player's own fields, in one query."""
    player = Player.objects.public().filter(membership_number=number)
    return _with_entity(
        {field: Subquery(player.values(field)[:1]) for field in ("participant_id", "name", "country", "region")}
    )


def team_state(request, participant_id: int) -> tuple | None:
    """A team's page: every list and the team's name and members (its member key), in one query."""
    team = Team.objects.filter(participant_id=participant_id)
    return _with_entity({field: Subquery(team.values(field)[:1]) for field in ("participant_id", "name", "member_key")})


def _with_entity(fields: dict) -> tuple | None:
    names = [f"entity_{name}" for name in fields]
    rows = list(
        Category.objects.annotate(**dict(zip(names, fields.values(), strict=True)))
        .order_by("pk")
        .values_list(*_CATEGORY_FIELDS, "history_version", *names)
    )
    if not rows or rows[0][-len(names)] is None:  # no such player or team (its page is a 404), or no list at all
        return None
    return tuple(rows)


def _category_state(category: Category) -> tuple:
    return tuple(getattr(category, name) for name in _CATEGORY_FIELDS)
