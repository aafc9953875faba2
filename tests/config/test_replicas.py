"""Reads from a hot standby (lib/replicas.py): the public pages read it, everything else the primary, and a
standby that lags, fails or is gone costs no error.

The standby here is a second connection to the test database (as DATABASE_REPLICA_URLS' test mirror is):
the tests commit (transaction=True) so that it sees what they wrote.
"""

import pytest
from django.db import OperationalError, connections
from django.test.utils import CaptureQueriesContext

from lib import replicas
from tests.clients import client_of
from tests.worlds import bundle_rated, default_bundle_ranked_from_one_match

ALIAS = "standby_0"
# Known before the test databases are made (collection comes first), so that it is made the default's mirror,
# as DATABASE_REPLICA_URLS' standbys are; read only where a test says so (READ_REPLICAS).
connections.settings.setdefault(ALIAS, {**connections.settings["default"], "TEST": {"MIRROR": "default"}})

pytestmark = pytest.mark.django_db(transaction=True, databases=["default", ALIAS])


@pytest.fixture
def standby(settings):
    kept = connections[ALIAS].settings_dict  # the test mirror's: the test database
    settings.READ_REPLICAS = [ALIAS]
    replicas._states.clear()
    yield ALIAS
    connections[ALIAS].close()
    connections[ALIAS].settings_dict = kept
    replicas._states.clear()


@pytest.fixture
def world(tmp_path):
    bundle_rated(default_bundle_ranked_from_one_match(tmp_path))


def reads(alias, client, url):
    """The response, and how many queries the database `alias` answered for it."""
    with CaptureQueriesContext(connections[alias]) as queries:
        response = client.get(url)
    return response, len(queries)


def failing(alias, monkeypatch) -> list:
    """From now on the standby's connection fails (a server stopped, a machine removed); the attempts."""
    attempts = []

    def fail(*args, **kwargs):
        attempts.append(1)
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(connections[alias], "ensure_connection", fail)
    return attempts


def test_the_public_pages_and_the_api_read_the_standby(client, standby, world):
    for url in ("/", "/rankings/constructed/", "/players/1001/", "/events/", "/api/rankings/constructed/"):
        response, on_standby = reads(standby, client, url)
        assert response.status_code == 200, url
        assert on_standby > 0, url
        assert response.wsgi_request.META[replicas.READS_ENVIRON_KEY] == standby  # for the access log
    response, on_primary = reads("default", client, "/rankings/constructed/?q=alice")
    assert "Alice Archer" in response.content.decode()
    assert on_primary == 0  # the whole page from the standby


def test_organizers_admins_and_writes_read_the_primary(standby, world, organizer, admin):
    for who, url in ((organizer, "/organize/"), (admin, "/appeals/queue/"), (admin, "/claims/queue/")):
        response, on_standby = reads(standby, client_of(who), url)
        assert response.status_code == 200, url
        assert on_standby == 0, url
        assert response.wsgi_request.META[replicas.READS_ENVIRON_KEY] == "primary"


def test_a_page_that_writes_reads_what_it_wrote_from_the_primary(client, standby, world):
    """A past date's list is written by its first visit: on the primary, where the page then reads it."""
    url = "/rankings/constructed/?as_of=2020-06-30"

    def snapshot_reads(alias, url):
        with CaptureQueriesContext(connections[alias]) as queries:
            response = client.get(url)
        assert response.status_code == 200
        return sum("ratings_snapshotrating" in query["sql"] for query in queries)

    assert snapshot_reads(standby, url) == 0  # looked for on the standby, missing: written and read on the primary
    assert snapshot_reads(standby, url + "&q=alice") > 0  # written: the next visit reads its rows from the standby


def test_a_user_who_just_changed_something_reads_the_primary_for_a_while(settings, standby, world, player):
    client = client_of(player)
    assert reads(standby, client, "/rankings/constructed/")[1] > 0

    client.post("/language/", {"language": "en", "next": "/"})  # any change that succeeds

    assert reads(standby, client, "/rankings/constructed/")[1] == 0
    settings.REPLICA_PIN_SECONDS = 0
    client.post("/language/", {"language": "en", "next": "/"})
    assert reads(standby, client, "/rankings/constructed/")[1] > 0  # the while is over


def test_a_standby_that_is_gone_costs_no_error(client, standby, world, monkeypatch):
    failing(standby, monkeypatch)

    response = client.get("/rankings/constructed/")

    assert response.status_code == 200
    assert "Alice Archer" in response.content.decode()
    health = client.get("/healthz")
    assert health.status_code == 200
    assert f"standby {standby}: not read (unavailable" in health.content.decode()


def test_a_standby_failing_in_the_middle_of_a_request_is_left_and_the_page_read_again(
    client, standby, world, monkeypatch, caplog
):
    assert replicas.standby_states()[0].usable  # checked and well: this request will read it
    attempts = failing(standby, monkeypatch)

    response = client.get("/rankings/constructed/")

    assert response.status_code == 200
    assert "Alice Archer" in response.content.decode()
    assert attempts and not replicas._states[standby].usable
    assert response.wsgi_request.META[replicas.READS_ENVIRON_KEY] == f"primary ({standby} failed)"
    assert f"standby {standby} failed during a request" in caplog.text  # the operators hear of it
    tried = len(attempts)
    assert client.get("/players/1001/").status_code == 200
    assert len(attempts) == tried  # left out until its next check


def test_a_standby_too_far_behind_is_left_out_and_healthz_says_so(client, settings, standby, world):
    settings.REPLICA_MAX_LAG_SECONDS = -1  # any lag is too much

    assert reads("default", client, "/rankings/constructed/")[1] > 0  # the page read the primary
    assert f"standby {standby}: not read (lags 0.0 s" in client.get("/healthz").content.decode()


def test_healthz_says_each_standby_s_lag(client, standby):
    assert client.get("/healthz").content.decode() == f"ok\nstandby {standby}: lag 0.0 s\n"


def test_the_admin_index_shows_the_standbys(standby, superuser):
    html = client_of(superuser).get("/admin/").content.decode()

    assert "Database standbys" in html
    assert f"{standby}</th><td>read, lag 0.0 s" in html


def test_writes_sessions_and_migrations_stay_on_the_primary(standby):
    from django.contrib.sessions.models import Session

    from players.models import Player

    router = replicas.ReplicaRouter()
    token = replicas._reading_from.set(standby)
    try:
        assert router.db_for_read(Player) == standby
        assert router.db_for_read(Session) == "default"
        assert router.db_for_write(Player) == "default"
        assert router.db_for_read(Player) == "default"  # after a write: the primary, which has it
    finally:
        replicas._reading_from.reset(token)
    assert router.db_for_read(Player) == "default"  # outside a request (workers, commands): the primary
    assert router.allow_migrate(standby, "players") is False
    assert router.allow_migrate("default", "players") is True
