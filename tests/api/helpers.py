"""What the API's tests share: the world's dates, and reading the API as a client does."""

import datetime

from django.db import connection
from django.test.utils import CaptureQueriesContext

PAST = datetime.date(2023, 6, 30)
WORLD_END = datetime.date(2024, 12, 10)


def get(client, url, status=200):
    response = client.get(url)
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    return response.json()


def all_rows(client, url):
    """Every row of a list, page after page, following the `next` links."""
    rows = []
    while url:
        body = get(client, url)
        rows += body["results"]
        url = body["next"]
    return rows


def queries(client, url) -> int:
    with CaptureQueriesContext(connection) as captured:
        get(client, url)
    return len(captured)


def assert_error(body, status, error, *parameters):
    assert set(body) == {"status", "error", "message", "details"}
    assert (body["status"], body["error"]) == (status, error)
    assert body["message"]
    assert [detail["parameter"] for detail in body["details"]] == list(parameters)
