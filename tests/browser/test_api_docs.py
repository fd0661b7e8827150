"""/api/docs in Chromium: Swagger UI loads and shows the API with nothing fetched from another
host, and its Authorize button takes the seat token."""

from __future__ import annotations

from urllib.parse import urlsplit

from tests.chromium import NEEDS_CHROMIUM

from .test_play_in_browser import ARTIFACTS, browser, site  # noqa: F401 - fixtures

pytestmark = NEEDS_CHROMIUM


def test_the_api_docs_load_with_no_request_to_another_host(browser, site):  # noqa: F811
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(f"{site}/api/docs")
    page.wait_for_selector(".opblock-summary-path", timeout=15000)  # the operations are listed
    assert page.locator(".opblock").count() >= 10
    page.click("button.authorize")
    page.wait_for_selector("text=X-Seat-Token", timeout=5000)
    page.screenshot(path=str(ARTIFACTS / "api-docs.png"), full_page=False)
    context.close()
    here = urlsplit(site).netloc
    elsewhere = [url for url in requested if urlsplit(url).scheme in ("http", "https") and urlsplit(url).netloc != here]
    assert elsewhere == [], f"the docs asked other hosts: {elsewhere}"
    assert any(url.endswith("/api/openapi.json") for url in requested)
    assert any("/static/ninja/swagger-ui-bundle.js" in url for url in requested)
