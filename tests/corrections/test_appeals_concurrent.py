"""Appeals posted at the same moment still keep the per-day limit (PostgreSQL: real concurrent transactions).

Each appeal runs in a thread of its own, with its own connection. Every
thread waits, after its checks and just before counting the account's recent
appeals, until all have got there or a second has passed: so without a lock
they all count at once, and each sees none of the others.
"""

import contextlib
import threading

import pytest
from django.db import connection, connections

from corrections import services
from corrections.models import Appeal
from events.models import Match
from tests.corrections.test_appeals import appeal
from tests.ratings.test_reliability_jobs import postgresql_only
from tests.worlds import account_of, player

# Committed data, for the threads' own connections; asked for by name, so the categories are seeded again
# after another transactional test's flush (tests/conftest.py).
pytestmark = [postgresql_only, pytest.mark.usefixtures("transactional_db")]


def test_appeals_filed_at_once_never_exceed_the_daily_limit(rated_default_bundle, settings, monkeypatch):
    settings.APPEALS_PER_DAY = 2
    alice = account_of("1001")
    matches = list(Match.objects.filter(participant1=player("1001").participant, participant2__isnull=False))
    assert len(matches) >= 4
    arrived = threading.Barrier(len(matches), timeout=1)

    def limit_after_everyone_arrived():
        with contextlib.suppress(threading.BrokenBarrierError):  # the others are held by the lock: go on alone
            arrived.wait()
        return settings.APPEALS_PER_DAY

    monkeypatch.setattr(services, "appeals_per_day", limit_after_everyone_arrived)
    outcomes = []

    def file(match):
        try:
            appeal(alice, match)
            outcomes.append("filed")
        except Exception as refused:  # noqa: BLE001 (the refusal is the outcome)
            outcomes.append(type(refused).__name__)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=file, args=(match,)) for match in matches]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert connection.vendor == "postgresql"
    assert Appeal.objects.filter(filed_by=alice).count() == 2
    assert sorted(outcomes) == ["ValidationError"] * (len(matches) - 2) + ["filed"] * 2
