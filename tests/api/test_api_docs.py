"""The API's documents: the OpenAPI document, the docs page, Swagger UI and the root's links."""

import json
import re

from tests.api.helpers import get

# The documents --------------------------------------------------------------

EXTERNAL_ASSET = re.compile(r"""(src|href)=["']?(https?:)?//""")  # a script, style or font from elsewhere

ENDPOINTS = [
    "/api/categories/",
    "/api/rankings/{slug}/",
    "/api/players/",
    "/api/players/{membership_number}/",
    "/api/players/{membership_number}/history/",
    "/api/events/",
    "/api/events/{event_id}/",
]


def test_the_openapi_document_lists_every_endpoint(client, db):
    response = client.get("/api/openapi.json")

    document = json.loads(response.content)
    assert document["openapi"].startswith("3.")
    assert sorted(document["paths"]) == sorted(ENDPOINTS)
    schemas = document["components"]["schemas"]
    for path, operations in document["paths"].items():
        assert set(operations) == {"get"}, path
        responses = operations["get"]["responses"]
        assert "200" in responses and set(responses) - {"200"} <= {"400", "404", "429"}
    references = response.content.decode().split('"$ref": "')[1:]
    assert references
    assert all(reference.split('"')[0].removeprefix("#/components/schemas/") in schemas for reference in references)


def test_the_docs_page_documents_every_endpoint_without_a_cdn(client, db):
    html = client.get("/api/docs/").content.decode()

    assert all(f"<code>{path}</code>" in html for path in ENDPOINTS)
    assert 'id="schema-RankingRow"' in html
    assert not EXTERNAL_ASSET.search(html)


def test_swagger_ui_comes_from_the_sites_own_static_files(client, db):
    html = client.get("/api/docs/swagger/").content.decode()

    assert 'src="/static/ninja/swagger-ui-bundle.js"' in html
    assert not EXTERNAL_ASSET.search(html)


def test_the_api_root_links_to_the_lists(client, db):
    body = get(client, "/api/")

    assert body["links"]["categories"] == "http://testserver/api/categories/"
    assert body["links"]["openapi-json"] == "http://testserver/api/openapi.json"
