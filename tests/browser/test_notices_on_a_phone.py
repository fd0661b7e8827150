"""Issue 27's "done when" for the notice: each game's turn notice at its start and in its middle,
and its final notice, rendered in Debian's Chromium as a mail client shows the HTML part (its
cid: pictures resolved): no sideways scrolling at 390 px nor at 320 px, the whole mail, its
picture included, at most 60 kB on the wire, and the picture's smallest label at least 11 px as
shown at 390 px. The label is measured in Chromium too: the picture is a PNG, so its SVG source
is laid out at the width the PNG is shown at, and each text's font size is scaled by its
transform to the screen (getScreenCTM: the picture's viewBox and any scale() inside it).

Screenshots at 390 px and 1280 px go to test-artifacts/notices/ for a person to look at, with
summary.txt: the figures of every notice.
"""

from __future__ import annotations

import email
import email.policy

import pytest

from pbem.log import eventlog
from pbem.mail import outbound, pictures
from pbem.models import Notice, Seat
from pbem.play import services
from pbem.registry import get_game
from tests.chromium import CHROMIUM, NEEDS_CHROMIUM, artifacts
from tests.mail.test_many_codes import PEOPLE, grid
from tests.mail.test_pictures_in_browser import as_a_client_shows_it
from tests.mail.whole_games import FIVE_GAMES, people, play_typed, seeded

pytestmark = NEEDS_CHROMIUM

sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")

ARTIFACTS = artifacts("notices")
WEIGHT_LIMIT = 60_000  # bytes of the whole mail as it goes over the wire
SEED = "5eed" * 16

MEASURE = """() => {
  const doc = document.documentElement;
  const img = document.querySelector('img');
  return {scrollWidth: doc.scrollWidth, clientWidth: doc.clientWidth,
          imgWidth: img ? img.getBoundingClientRect().width : null,
          imgNatural: img ? img.naturalWidth : null};
}"""


LABEL_LIMIT = 11  # px: the smallest picture label as a phone shows it

# The SVG shown `shown` px wide (as the PNG made of it is): the smallest text's size on the screen
# and the text itself.
SMALLEST_LABEL = """(shown) => {
  const svg = document.querySelector('svg');
  svg.removeAttribute('height');
  svg.setAttribute('width', shown);
  svg.style.height = 'auto';
  let least = null, text = null;
  for (const t of svg.querySelectorAll('text')) {
    if (!t.textContent.trim()) continue;
    const m = t.getScreenCTM();
    const px = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
    if (least === null || px < least) { least = px; text = t.textContent; }
  }
  return {px: least, text: text};
}"""


def three_notices(kind: str) -> list[tuple[str, Notice]]:
    """A whole game played by the stand-ins; its first turn notice, the one halfway, the end."""
    with seeded(SEED):
        game = services.create_game(kind, people(kind), {})
    play_typed(game)
    turns = list(Notice.objects.filter(game=game, kind="turn").order_by("id"))
    final = Notice.objects.filter(game=game, kind="final").order_by("id").first()
    assert turns and final is not None
    return [("start", turns[0]), ("middle", turns[len(turns) // 2]), ("end", final)]


def as_sent_after_the_previous_one(notice: Notice) -> bytes:
    """The notice's bytes as they would go out had the seat's earlier notices gone out (its
    "since your last notice" then starts at the one before)."""
    earlier = (
        Notice.objects.filter(seat_id=notice.seat_id, id__lt=notice.id, kind__in=outbound.SEAT_KINDS_MOVING_LAST_NOTICE)
        .order_by("-id")
        .values_list("version", flat=True)
        .first()
    )
    Seat.objects.filter(pk=notice.seat_id).update(last_notice_version=earlier or 0)
    notice = Notice.objects.select_related("game", "seat").get(pk=notice.pk)
    return outbound.make_message(notice).message().as_bytes(linesep="\r\n")


def picture_source(kind: str, notice: Notice) -> str | None:
    """The SVG the notice's PNG was made of (the seat's view at the notice's version)."""
    spec = get_game(kind)
    if spec.render_svg is None:
        return None
    state = eventlog.load(notice.game, at=notice.version).state
    return spec.render_svg(spec.view(state["game"], notice.seat.number))


def measured(markups: list[tuple[str, str, str | None]], kind: str) -> list[dict]:
    """Each notice's HTML (with its pictures resolved) as Chromium lays it out at 320, 390 and
    1280 px; screenshots at 390 and 1280 px. (The browser runs after every database read: its
    event loop would make Django refuse them.)"""
    seen = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            for moment, markup, svg in markups:
                widths = {}
                for width in (320, 390, 1280):
                    page = browser.new_page(viewport={"width": width, "height": 800})
                    page.set_content(markup, wait_until="load")
                    widths[width] = page.evaluate(MEASURE)
                    if width != 320:
                        page.screenshot(path=str(ARTIFACTS / f"{kind}-{moment}-{width}.png"), full_page=True)
                    page.close()
                shown = widths[390]["imgWidth"]
                if svg is not None and shown:
                    page = browser.new_page(viewport={"width": 390, "height": 800})
                    page.set_content(svg, wait_until="load")
                    widths["label"] = page.evaluate(SMALLEST_LABEL, shown)
                    page.close()
                seen.append(widths)
        finally:
            browser.close()
    return seen


@pytest.mark.parametrize("kind", FIVE_GAMES)
def test_a_notice_at_the_start_middle_and_end_fits_a_phone_and_weighs_at_most_60_kb(kind, db, settings):
    settings.PBEM_NOTICE_DISPATCH = "none"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    mails = []
    for moment, notice in three_notices(kind):
        raw = as_sent_after_the_previous_one(notice)
        parsed = email.message_from_bytes(raw, policy=email.policy.default)
        png = next((p.get_payload(decode=True) for p in parsed.walk() if p.get_content_type() == "image/png"), b"")
        mails.append((moment, notice, raw, png, as_a_client_shows_it(parsed)[0]))
    sources = [picture_source(kind, notice) if png else None for _moment, notice, _raw, png, _markup in mails]
    layouts = measured(
        [(moment, markup, svg) for (moment, _notice, _raw, _png, markup), svg in zip(mails, sources)], kind
    )
    print(f"screenshots and figures: {ARTIFACTS}")
    with open(ARTIFACTS / "summary.txt", "a") as summary:
        for (moment, notice, raw, png, _markup), seen in zip(mails, layouts):
            label = round(seen["label"]["px"], 1) if "label" in seen else None
            summary.write(
                f"{kind:14} {moment:6} {notice.kind:6} mail {len(raw):6} B  picture {len(png):6} B "
                f"({pictures.png_size(png)[0] if png else 0} px wide)  scrollWidth@320 {seen[320]['scrollWidth']} "
                f"@390 {seen[390]['scrollWidth']}  smallest label at 390 px: {label} px\n"
            )
    for (moment, _notice, raw, _png, _markup), seen in zip(mails, layouts):
        for width in (320, 390):
            assert seen[width]["scrollWidth"] <= width, f"{kind} {moment}: scrolls sideways at {width} px"
        assert len(raw) <= WEIGHT_LIMIT, f"{kind} {moment}: {len(raw)} bytes"
    drawn = [(moment, seen["label"]) for (moment, *_rest), seen in zip(mails, layouts) if "label" in seen]
    assert drawn, f"{kind}: no notice had a picture"  # every game here draws one
    for moment, label in drawn:
        assert label["px"] >= LABEL_LIMIT, f"{kind} {moment}: {label['text']!r} shown at {label['px']:.1f} px"


def test_an_elven_castle_notice_of_236_codes_fits_a_phone_and_weighs_at_most_60_kb(db, settings):
    """Issue 29: every scoring placement is a code; codes after the 20th are plain lines."""
    settings.PBEM_NOTICE_DISPATCH = "none"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    game = services.create_game("elven_castle", PEOPLE, {})
    for line in grid((1, 4, 7)):
        game.refresh_from_db()
        services.submit(game.pk, game.awaited[0], line)
    notice = Notice.objects.filter(game=game, kind="turn").order_by("-id").first()
    raw = as_sent_after_the_previous_one(notice)
    parsed = email.message_from_bytes(raw, policy=email.policy.default)
    text = parsed.get_body(preferencelist=("plain",)).get_content()
    assert " 236  place " in text
    (seen,) = measured([("236-codes", as_a_client_shows_it(parsed)[0], None)], "elven_castle")
    for width in (320, 390):
        assert seen[width]["scrollWidth"] <= width, f"scrolls sideways at {width} px"
    assert len(raw) <= WEIGHT_LIMIT, f"{len(raw)} bytes"
