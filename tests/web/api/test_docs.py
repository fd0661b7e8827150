"""The API's docs and schema: Swagger UI from our own static files, the seat token as a
security scheme, every error in the API's JSON shape (405 included)."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db


def test_the_docs_page_loads_swagger_ui_from_our_own_static_files(client):
    page = client.get("/api/docs").content.decode()
    sources = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert "/static/ninja/swagger-ui-bundle.js" in sources and "/static/ninja/swagger-ui.css" in sources
    assert all(s.startswith("/") and not s.startswith("//") for s in sources), sources
    assert '"validatorUrl": null' in page  # Swagger UI's badge would ask validator.swagger.io


def test_the_static_files_of_the_docs_are_served(client):
    from django.contrib.staticfiles import finders

    assert finders.find("ninja/swagger-ui-bundle.js") and finders.find("ninja/swagger-ui-init.js")


def test_the_seat_token_is_a_security_scheme(client):
    schema = client.get("/api/openapi.json").json()
    assert schema["components"]["securitySchemes"]["SeatToken"] == {
        "type": "apiKey",
        "in": "header",
        "name": "X-Seat-Token",
        "description": "The seat's token, from the links in its mails (the part after /play/).",
    }
    paths = schema["paths"]
    assert paths["/api/games/{game_id}/seat"]["get"]["security"] == [{"SeatToken": []}]
    assert paths["/api/games/{game_id}/commands"]["post"]["security"] == [{"SeatToken": []}]
    # A spectator may ask without one and gets the public answer.
    assert paths["/api/games/{game_id}/events"]["get"]["security"] == [{}, {"SeatToken": []}]
    assert "security" not in paths["/api/kinds"]["get"]


def test_every_operation_taking_the_token_declares_the_scheme(client):
    schema = client.get("/api/openapi.json").json()
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            takes_token = any(p["name"] == "X-Seat-Token" for p in operation.get("parameters", []))
            assert takes_token == ("security" in operation), f"{method.upper()} {path}"


def test_a_method_an_endpoint_does_not_take_is_refused_in_json(client):
    response = client.delete("/api/games")
    assert response.status_code == 405 and response["Content-Type"] == "application/json"
    assert set(response["Allow"].replace(" ", "").split(",")) == {"GET", "POST"}
    body = response.json()
    assert body["code"] == "method_not_allowed" and body["message"].startswith("DELETE is not allowed here")


def test_the_seat_views_not_modified_answer_is_documented(client):
    schema = client.get("/api/openapi.json").json()
    responses = schema["paths"]["/api/games/{game_id}/seat"]["get"]["responses"]
    assert {"200", "304", "403", "404", "422", "429"} <= set(responses)
    names = {p["name"] for p in schema["paths"]["/api/games/{game_id}/seat"]["get"]["parameters"]}
    assert {"wait_version", "timeout", "If-None-Match", "X-Seat-Token"} <= names
