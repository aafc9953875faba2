"""What every test module shares: a clean cache and seeded categories per test, the cast of accounts, and the
rated default bundle. Worlds of other shapes are built with tests/worlds.py; accounts with tests/factories.py."""

import os

import pytest
from django.conf import settings
from django.core.cache import cache
from django.utils import translation

from tests.bundles import Bundle
from tests.factories import AdminFactory, OrganizerFactory, PlayerAccountFactory, SuperuserFactory
from tests.worlds import (  # noqa: F401 (modules import ensure_default_categories from here too)
    bundle_rated,
    default_bundle_ranked_from_one_match,
    ensure_default_categories,
)


@pytest.fixture(autouse=True)
def empty_cache():
    """Pages cache what they read under keys (category, history version, participant) that a later test's
    fresh database reuses for other rows."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def default_language():
    """A request in another language leaves that language active in the thread (LocaleMiddleware activates
    it, nothing deactivates it): the next test in the same process would start in German, say."""
    yield
    translation.deactivate()


@pytest.fixture(autouse=True, scope="session")
def media_root(tmp_path_factory):
    """Files the site writes (the lists' history files) go to a directory of the run, never the project's
    media/: also for the job workers and servers tests start as processes (they read DJANGO_MEDIA_ROOT)."""
    root = tmp_path_factory.mktemp("media")
    os.environ["DJANGO_MEDIA_ROOT"] = str(root)
    settings.MEDIA_ROOT = root
    return root


@pytest.fixture(autouse=True)
def fast_password_hasher(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def seeded_categories(request):
    """Every database test starts with the categories and roles the data migrations make.

    A transactional test (the browser tests) ends by flushing every table; with
    xdist another module's tests may run after it in the same process.
    """
    names = request.fixturenames
    marker = request.node.get_closest_marker("django_db")
    transactional = marker is not None and (marker.kwargs.get("transaction") or marker.args[:1] == (True,))
    if "transactional_db" in names or "live_server" in names or transactional:
        request.getfixturevalue("transactional_db")
    elif "db" in names or marker is not None:  # asked for by name, or by the django_db mark
        request.getfixturevalue("db")
    else:
        return
    from django.contrib.auth.models import Group

    from accounts.roles import roles_ensure
    from ratings.models import Category

    if not Category.objects.exists():
        ensure_default_categories()
    if not Group.objects.exists():
        roles_ensure()  # the roles as their data migrations make them


# The cast: one account of each role, made fresh for each test that names it -------------------------------------


@pytest.fixture
def organizer():
    """An account with the Organizers role."""
    return OrganizerFactory()


@pytest.fixture
def second_organizer():
    """Another organizer: someone else's events are not theirs to edit."""
    return OrganizerFactory()


@pytest.fixture
def player():
    """A player's account, linked by an admin to a player record of its own (a new one, in no event yet)."""
    return PlayerAccountFactory()


@pytest.fixture
def admin():
    """An account with the Admins role: staff, to open the admin site, but not a superuser."""
    return AdminFactory()


@pytest.fixture
def superuser():
    """The superuser "root" (root@example.org)."""
    return SuperuserFactory(username="root")


# The world most tests read -----------------------------------------------------------------------------------------


@pytest.fixture
def rated_default_bundle(tmp_path):
    """The default test bundle (tests/bundles.py) imported and every category rated, with no recompute run left
    queued: a test sees only the runs its own change queues."""
    bundle_rated(Bundle(tmp_path), queued_runs_dropped=True)


@pytest.fixture
def ranked_default_bundle(tmp_path):
    """The default bundle (tests/bundles.py) with constructed ranked from the first match, imported and rated.

    Hand-checked numbers for Munich Open (E1, standard, K 32, everyone at 1600):

    - R1 1001 beats 1002: expected 0.50, +16.00 -> 1616.
    - R1 1003 draws 1004: 0.00.
    - R2 1001 (1616) beats 1003 (1600): expected 1/(10^(-16/400)+1) = 0.523, +15.26 -> 1631.26.
    - R3 (the final) 1001 beats 1005 (1616): +15.30 -> 1646.56, shown 1646 (truncated, not rounded).
    """
    bundle_rated(default_bundle_ranked_from_one_match(tmp_path))
