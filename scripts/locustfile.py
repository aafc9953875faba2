"""Load test of the public pages: rankings at every level, players and events (locust).

    .venv/bin/locust -f scripts/locustfile.py --headless -u 50 -r 10 -t 60s --host http://127.0.0.1:8001

`make loadtest` (scripts/loadtest.py) runs it against a production server on
a 100,000-player world while full recomputes run. Before the users start,
the public JSON API gives a sample of player numbers, countries, regions and
events to visit. Every answer but 200 counts as a failure, and so does a page
that does not look like the page asked for.
"""

import json
import os
import random
from datetime import date
from pathlib import Path

from locust import FastHttpUser, between, events, task
from world_sample import world_sample

CATEGORY = "constructed"
sample = {"players": [], "countries": [], "regions": [], "events": [], "ranked": 0, "names": []}


@events.test_start.add_listener
def sample_the_world(environment, **kwargs):
    """The sample scripts/loadtest.py took before the clock started (LOAD_SAMPLE), or one taken now."""
    path = os.environ.get("LOAD_SAMPLE")
    sample.update(json.loads(Path(path).read_text()) if path else world_sample(environment.host))


def end_of_last_year() -> str:
    return date(date.today().year - 1, 12, 31).isoformat()


def checked_get(user, path: str, name: str, must_contain: str, headers: dict | None = None) -> None:
    """GET `path` as `user`: a failure unless it answers 200 with `must_contain` in it (the page or answer asked
    for, not an error page that happens to answer 200)."""
    with user.client.get(path, name=name, catch_response=True, headers=headers or {}) as response:
        if response.status_code != 200:
            response.failure(f"{response.status_code}")
        elif must_contain not in (response.text or ""):
            response.failure(f"not the page asked for (no {must_contain!r})")


class Visitor(FastHttpUser):
    """Someone browsing: mostly lists and player pages, some events, now and then a search or a past date."""

    wait_time = between(0.5, 2.0)

    def on_start(self):
        # LOAD_CLIENT_ADDRESSES=1: each user is a visitor of its own address, as a load balancer in front of
        # the site's proxy passes it on (X-Forwarded-For; the site reads it with TRUSTED_PROXY_COUNT=2), so
        # what is limited per visitor counts each user, not all of them as one.
        self.headers = {}
        if os.environ.get("LOAD_CLIENT_ADDRESSES"):
            self.headers["X-Forwarded-For"] = "10." + ".".join(str(random.randrange(256)) for _ in range(3))

    def page(self, path: str, name: str, must_contain: str):
        checked_get(self, path, name, must_contain, headers=self.headers)

    @task(4)
    def ranking_world(self):
        self.page(f"/rankings/{CATEGORY}/", "ranking: world, page 1", "<table")

    @task(2)
    def ranking_deep_page(self):
        last = max(1, sample["ranked"] // 100)
        self.page(f"/rankings/{CATEGORY}/?page={random.randint(2, max(2, last))}", "ranking: world, page N", "<table")

    @task(3)
    def ranking_country(self):
        country = random.choice(sample["countries"])
        self.page(f"/rankings/{CATEGORY}/?country={country}", "ranking: country", "<table")

    @task(1)
    def ranking_continent(self):
        self.page(
            f"/rankings/{CATEGORY}/?continent={random.choice(['EU', 'NA', 'AS'])}", "ranking: continent", "<table"
        )

    @task(1)
    def ranking_region(self):
        if sample["regions"]:
            self.page(f"/rankings/{CATEGORY}/?region={random.choice(sample['regions'])}", "ranking: region", "<table")

    @task(1)
    def ranking_unranked(self):
        self.page(f"/rankings/{CATEGORY}/?list=unranked", "ranking: unranked", "<table")

    @task(1)
    def ranking_search(self):
        self.page(f"/rankings/{CATEGORY}/?q={random.choice(sample['names'])}", "ranking: name search", "<main")

    @task(1)
    def ranking_past_date(self):
        self.page(f"/rankings/{CATEGORY}/?as_of={end_of_last_year()}", "ranking: end of last year", "<table")

    @task(6)
    def player(self):
        self.page(f"/players/{random.choice(sample['players'])}/", "player page", "<h1")

    @task(1)
    def player_history_page(self):
        self.page(f"/players/{random.choice(sample['players'])}/?page=2", "player page, history page 2", "<h1")

    @task(1)
    def event_list(self):
        self.page("/events/", "event list", "<table")

    @task(3)
    def event(self):
        self.page(f"/events/{random.choice(sample['events'])}/", "event page", "<h1")

    @task(1)
    def home(self):
        self.page("/", "home", "<main")


class ApiClient(FastHttpUser):
    """A program reading the public JSON API (scripts/loadtest.py --api-users N adds N of them beside the
    visitors): ranking rows anywhere in the list, a country's, events and an event whole, players and their
    histories. Programs wait less between calls than people between pages."""

    fixed_count = int(os.environ.get("LOAD_API_USERS", "0"))
    wait_time = between(0.2, 1.0)

    def call(self, path: str, name: str, must_contain: str):
        checked_get(self, path, name, must_contain)

    @task(3)
    def ranking_rows(self):
        offset = random.randrange(max(1, sample["ranked"] - 100))
        self.call(f"/api/rankings/{CATEGORY}/?limit=100&offset={offset}", "api: ranking rows", '"results"')

    @task(1)
    def ranking_country(self):
        country = random.choice(sample["countries"])
        self.call(f"/api/rankings/{CATEGORY}/?country={country}", "api: ranking, a country", '"results"')

    @task(1)
    def events(self):
        self.call(f"/api/events/?offset={random.randrange(0, 2000, 50)}", "api: events", '"results"')

    @task(2)
    def event(self):
        self.call(f"/api/events/{random.choice(sample['events'])}/", "api: an event whole", '"rounds"')

    @task(2)
    def player(self):
        self.call(f"/api/players/{random.choice(sample['players'])}/", "api: a player", '"ratings"')

    @task(1)
    def history(self):
        player = random.choice(sample["players"])
        self.call(f"/api/players/{player}/history/?category={CATEGORY}", "api: a player's history", '"results"')
