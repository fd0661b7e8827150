"""Walks a seat page's chooser as a person would, link by link (no JavaScript): the moves its
buttons send, reached from the first step through the group, place and page links."""

from __future__ import annotations

import html
import re

BUTTON = re.compile(r'<button type="submit" name="choice" value="([^"]*)"')
STEP_LINK = re.compile(r'<a class="step"(?: id="[^"]*")? href="([^"]*)"')


def reachable_moves(client, seat_url: str, limit: int = 400) -> set[str]:
    seen_pages, moves, todo = set(), set(), [seat_url]
    while todo and len(seen_pages) < limit:
        url = todo.pop()
        if url in seen_pages:
            continue
        seen_pages.add(url)
        page = client.get(url).content.decode()
        moves.update(html.unescape(v) for v in BUTTON.findall(page))
        for href in STEP_LINK.findall(page):
            target = html.unescape(href).split("#", 1)[0]
            target = seat_url + target if target.startswith("?") else target
            if target not in seen_pages:
                todo.append(target)
    return moves
