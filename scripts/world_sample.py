"""A sample of the world to visit in a load test, read from the public JSON API (no Django, no locust)."""

import json
import random
import urllib.parse
import urllib.request

SAMPLE_PAGES = 8  # pages of 500 rows read from the list to pick visits from
CATEGORY = "constructed"


def _get(url: str, **params) -> dict:
    with urllib.request.urlopen(f"{url}?{urllib.parse.urlencode(params)}", timeout=60) as response:
        return json.load(response)


def world_sample(host: str) -> dict:
    """Player numbers, first names, countries, regions and event ids to visit, and how many are ranked."""
    api = host.rstrip("/") + "/api"
    found = {"players": [], "countries": [], "regions": [], "events": [], "ranked": 0, "names": []}
    found["ranked"] = _get(f"{api}/rankings/{CATEGORY}/", limit=1)["count"]
    rng = random.Random(1)
    for offset in rng.sample(range(max(1, found["ranked"] - 500)), k=min(SAMPLE_PAGES, found["ranked"])):
        for row in _get(f"{api}/rankings/{CATEGORY}/", limit=500, offset=offset)["results"]:
            found["players"].append(row["id"])
            found["names"].append(row["name"].split()[0])
            if row["country"]:
                found["countries"].append(row["country"])
            if row["region"]:
                found["regions"].append(row["region"])
    listed = _get(f"{api}/events/", limit=1)["count"]
    for offset in rng.sample(range(max(1, listed - 500)), k=min(2, listed)):
        found["events"] += [event["id"] for event in _get(f"{api}/events/", limit=500, offset=offset)["results"]]
    if not found["players"] or not found["events"]:
        raise RuntimeError(f"no players or events to visit at {host}: is the world loaded?")
    return found
