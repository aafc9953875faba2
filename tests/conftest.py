from importlib import import_module

import pytest
from django.apps import apps
from django.core.cache import cache


def ensure_default_categories():
    """Put back the categories the data migration seeds, for fixtures that outlive one test.

    Transactional tests (the browser tests) end with a flush of every table, and
    pytest-django runs them last, so a module-scoped world built after one must
    not assume the seeded rows are still there.
    """
    import_module("ratings.migrations.0002_default_categories").create_defaults(apps, None)


@pytest.fixture(autouse=True)
def empty_cache():
    """Pages cache what they read under keys (category, history version, participant) that a later test's
    fresh database reuses for other rows."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def no_runs_pending_from_other_tests():
    """The signals remember a transaction's recompute runs until it commits; a test's transaction never does."""
    from ratings import signals

    signals._forget_pending()
    yield
    signals._forget_pending()


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
