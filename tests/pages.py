"""Reading a page as a visitor does: its HTML, and its words in order."""

import json
import re


def page(client, url) -> str:
    """The page's HTML; it must answer 200."""
    response = client.get(url)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def text(html: str) -> str:
    """The page's words with tags and runs of white space removed: what a reader sees, in order."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace(" ,", ",")


def chart_data(html: str) -> dict:
    """The data a player page hands its rating chart (a JSON script element)."""
    found = re.search(r'<script id="rating-chart-data" type="application/json">(.*?)</script>', html, re.S)
    return json.loads(found.group(1))
