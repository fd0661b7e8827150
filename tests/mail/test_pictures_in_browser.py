"""The turn notice of every game as a mail client shows it: its HTML part rendered in Debian's
Chromium (Playwright) with its inline images resolved from their cid: parts, the board picture
loaded and drawn. Screenshots go to test-artifacts/mail/ for a person to look at.

Needs /usr/bin/chromium (apt-get install -y chromium); never `playwright install`.
"""

from __future__ import annotations

import base64

import pytest

from pbem.registry import all_games
from tests.chromium import CHROMIUM, NEEDS_CHROMIUM, artifacts

from .test_pictures import turn_notice

ARTIFACTS = artifacts("mail")

pytestmark = NEEDS_CHROMIUM

sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")


def as_a_client_shows_it(notice) -> tuple[str, int]:
    """The HTML part with each cid: reference replaced by its image (what a mail client does),
    and how many images it resolved."""
    markup = notice.get_body(preferencelist=("html",)).get_content()
    resolved = 0
    for part in notice.walk():
        if part.get_content_maintype() == "image" and part["Content-ID"]:
            cid = str(part["Content-ID"]).strip("<>")
            data = base64.b64encode(part.get_payload(decode=True)).decode()
            resolved += markup.count(f"cid:{cid}")
            markup = markup.replace(f"cid:{cid}", f"data:{part.get_content_type()};base64,{data}")
    return markup, resolved


@pytest.mark.parametrize("kind", sorted(all_games()))
def test_the_notice_shows_its_board_in_a_browser(kind, db, settings, mailoutbox):
    settings.PBEM_NOTICE_DISPATCH = "none"
    spec = all_games()[kind]
    _game, _seat, notice = turn_notice(kind, mailoutbox)
    markup, resolved = as_a_client_shows_it(notice)
    assert "cid:" not in markup, "an image the HTML names is missing from the mail"
    assert resolved == (1 if spec.render_svg is not None else 0)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            page = chromium.new_page(viewport={"width": 800, "height": 900})
            page.set_content(markup, wait_until="load")
            drawn = page.evaluate("Array.from(document.images).map(i => [i.complete, i.naturalWidth, i.alt])")
            page.screenshot(path=str(ARTIFACTS / f"turn-notice-{kind}.png"), full_page=True)
        finally:
            chromium.close()
    assert len(drawn) == resolved
    for complete, width, alt in drawn:
        assert complete and width > 0, f"the board picture of {kind} did not load"
        assert alt.startswith("The board of ")
