"""Done when (issue 33, the platform's half): a game played by mail at a mixed table (an English,
a German and a French player) tells each player every notice and answer in their own language,
their replies apply, and the log is the very log of the same game played in English.

The game's own words (narrations, boards, command words) are the games' to translate
(games/<name>/, through games.i18n): the checks here look at the platform's words only, so
they hold whether a game's words are English or already localised.
"""

from __future__ import annotations

import email
import email.policy
import re
from datetime import datetime
from pathlib import Path

import pytest

from pbem.mail import pictures
from pbem.models import Event, Game, Notice, PlayerSettings, Seat
from pbem.play import services
from tests.chromium import artifacts
from tests.test_translations import entries as po_entries

from .conftest import deliver, send_all
from .replies import reply
from .whole_games import code_of, seeded, standin_choice

SEED = "cd" * 32
KIND = "elixirus"
MAX_MOVES = 400

# What marks the platform's words in each language, and what may never show in another's mail.
# Every mail to a player: its subject starts with one of SUBJECTS, its text holds one of WORDS
# and none of the other two languages' FOREIGN sentences.
LANGUAGES = {
    "en": {
        "subjects": ("Your move:", "News:", "Re:", "Game over:", "Table talk:", "Reminder"),
        "words": ("game #", "How to reply", "Done.", "Your reply"),
        "foreign": ("It is your move in", "How to reply:", "Your message changed nothing", "What you may do now"),
        "options": "What you may do now",
        "done": "Done.",
        "folded": "Your reply:\n",
    },
    "de": {
        "subjects": ("Dein Zug:", "Neues:", "Re:", "Spielende:", "Tischgespräch:", "Erinnerung"),
        "words": ("Partie #", "So antwortest du", "Erledigt.", "Deine Antwort"),
        "foreign": ("du bist am Zug in", "So antwortest du:", "Deine Nachricht hat nichts", "Was du jetzt tun kannst"),
        "options": "Was du jetzt tun kannst",
        "done": "Erledigt.",
        "folded": "Deine Antwort:\n",
    },
    "fr": {
        "subjects": ("À vous de jouer", "Nouvelles", "Re:", "Partie terminée", "Discussion de table", "Rappel"),
        "words": ("partie #", "Pour répondre", "C'est fait.", "Votre réponse"),
        "foreign": (
            "c'est à vous de jouer dans",
            "Pour répondre",
            "Votre message n'a rien",
            "Ce que vous pouvez faire",
        ),
        "options": "Ce que vous pouvez faire maintenant",
        "done": "C'est fait.",
        "folded": "Votre réponse\u00a0:\n",  # a no-break space before the colon, as French writes it
    },
}
MIXED = [("Alice", "en"), ("Bruno", "de"), ("Chloé", "fr")]
ENGLISH = [("Alice", "en"), ("Bruno", "en"), ("Chloé", "en")]


@pytest.fixture
def quick(settings, monkeypatch, quiet_limits):
    settings.PBEM_NOTICE_DISPATCH = "none"
    settings.PBEM_RATE_MAIL_COMMANDS = (100_000, 600)
    settings.PBEM_MAIL_ANSWERS_PER_HOUR = 100_000
    settings.PBEM_RATE_SUBMIT = (100_000, 60)
    monkeypatch.setattr(pictures, "board_png", lambda *args: None)  # pictures have tests of their own


def address(name: str) -> str:
    return f"{name.lower().replace('é', 'e')}@example.org"


def parsed(sent) -> email.message.EmailMessage:
    return email.message_from_bytes(sent.message().as_bytes(), policy=email.policy.default)


def newest_with_moves(mailoutbox, to: str, language: str):
    """The newest mail to `to` that offers moves, by the words its language lists them under."""
    for sent in reversed(mailoutbox):
        if sent.to == [to] and LANGUAGES[language]["options"] in sent.body:
            return parsed(sent)
    raise AssertionError(f"no mail offering moves to {to}")


def play(table: list[tuple[str, str]], mailoutbox) -> Game:
    """A game of KIND played by mail to its end: each awaited player replies with the code of the
    stand-in's choice from the newest mail that offers moves, and a word of table talk now and
    then."""
    players = [services.PlayerSpec(name, address(name), language) for name, language in table]
    with seeded(SEED):
        game = services.create_game(KIND, players, {})
    send_all()
    for move in range(MAX_MOVES):
        game.refresh_from_db()
        if game.status != "running":
            break
        seat = game.awaited[0]
        name, language = table[seat]
        mail = newest_with_moves(mailoutbox, address(name), language)
        version = Notice.objects.get(pk=int(mail["X-Pbem-Notice"])).version
        code = code_of(game, seat, standin_choice(game, seat), version)
        lines = str(code) if code is not None else services_line(game, seat)
        if move % 25 == 3:
            lines += f"\nsay {name} hat {move} Züge gesehen"  # table talk: news for the others
        message = deliver(reply("gmail", mail, lines, sender=address(name)))
        assert message.status == "applied", (name, message.outcome)
        send_all()
    assert Game.objects.get(pk=game.pk).status == "finished", f"{KIND} did not end within {MAX_MOVES} moves"
    return game


def services_line(game: Game, seat: int) -> str:
    """The stand-in's choice written out, in English (a code the notice did not offer)."""
    from pbem.registry import get_game

    return get_game(game.kind).describe(standin_choice(game, seat))


TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")


def neutral(value):
    """A payload with its times (when it was played, not what) made alike."""
    if isinstance(value, dict):
        return {key: neutral(item) for key, item in value.items()}
    if isinstance(value, list):
        return [neutral(item) for item in value]
    if isinstance(value, str) and TIME.match(value):
        try:
            datetime.fromisoformat(value)
            return "<time>"
        except ValueError:
            return value
    return value


def log_of(game: Game) -> list[tuple]:
    rows = Event.objects.filter(game=game).order_by("seq")
    return [
        (e.seq, e.type, e.actor_kind, e.actor_seat, neutral(e.payload), neutral(e.public), e.visible_to) for e in rows
    ]


@pytest.mark.slow  # two whole games by mail
def test_a_mixed_table_reads_its_own_languages_and_writes_the_english_log(quick, db, mailoutbox):
    english = play(ENGLISH, mailoutbox)
    english_log = log_of(english)
    english_mails = len(mailoutbox)
    mailoutbox.clear()

    mixed = play(MIXED, mailoutbox)
    assert log_of(mixed) == english_log  # the same game: languages are not in the log
    assert len(mailoutbox) == english_mails  # and the same mails, each in its reader's language

    out = artifacts("languages")
    out.mkdir(parents=True, exist_ok=True)
    counts = {}
    for name, language in MIXED:
        mine = [m for m in mailoutbox if m.to == [address(name)]]
        assert len(mine) > 10, (name, len(mine))
        words = LANGUAGES[language]
        others = [w for code, other in LANGUAGES.items() if code != language for w in other["foreign"]]
        for sent in mine:
            assert sent.subject.startswith(words["subjects"]), (name, sent.subject)
            assert any(w in sent.body for w in words["words"]), (name, sent.subject, sent.body[:400])
            html = sent.alternatives[0][0] if sent.alternatives else ""
            assert f'lang="{language}"' in html, (name, sent.subject)
            for foreign in others:
                assert foreign not in sent.body and foreign not in html, (name, foreign, sent.subject)
        # Every answer to a move: on its own ("Re: …", held answers are sent when no notice
        # follows) or folded into the next notice under "Your reply:" in that language.
        answers = [m.body.splitlines()[0] for m in mine if m.subject.startswith("Re:")]
        folded = [m for m in mine if words["folded"] in m.body]
        assert set(answers) <= {words["done"]}, (name, set(answers))
        assert answers or folded, name
        kinds = sorted({m.subject.split(":")[0] for m in mine})
        counts[name] = (language, len(mine), kinds)
        (out / f"{KIND}-{language}-turn.txt").write_text(
            next(m.body for m in mine if m.subject.startswith(words["subjects"][0]))
        )
    with open(out / "summary.txt", "w") as summary:
        for name, (language, count, kinds) in counts.items():
            summary.write(f"{name} ({language}): {count} mails, subjects {kinds}\n")


def test_language_by_mail_changes_every_game_of_the_player_and_nothing_in_the_log(quick, db, mailoutbox):
    with seeded(SEED):
        game = services.create_game(KIND, [services.PlayerSpec(n, address(n)) for n, _l in ENGLISH], {})
    other = services.create_game(KIND, [services.PlayerSpec(n, address(n)) for n, _l in reversed(ENGLISH)], {})
    send_all()
    seat = Seat.objects.get(game=game, name="Alice")
    version = game.version
    turn = next(m for m in reversed(mailoutbox) if m.to == [address("Alice")])
    message = deliver(reply("gmail", parsed(turn), "language de", sender=address("Alice")))
    assert message.status == "answered", message.outcome
    assert Game.objects.get(pk=game.pk).version == version  # nothing appended
    assert Seat.objects.get(pk=seat.pk).language == "de"
    assert Seat.objects.get(game=other, name="Alice").language == "de"  # all of the player's games
    assert PlayerSettings.objects.get(email=address("Alice")).language == "de"  # and the next ones
    send_all()
    answer = mailoutbox[-1]
    assert answer.to == [address("Alice")] and answer.body.startswith("Hier ist, was du wissen wolltest.")
    assert "language de: alle deine Mails und Seiten sind ab jetzt auf Deutsch" in answer.body

    message = deliver(reply("gmail", parsed(turn), "langue fr", sender=address("Alice")))
    send_all()
    assert Seat.objects.get(pk=seat.pk).language == "fr"
    assert "tous vos messages et toutes vos pages sont désormais en Français" in mailoutbox[-1].body

    message = deliver(reply("gmail", parsed(turn), "language klingon", sender=address("Alice")))
    assert message.status == "refused"
    assert "klingon n'est pas une langue dans laquelle nous écrivons" in message.outcome  # told in French
    assert Seat.objects.get(pk=seat.pk).language == "fr"  # and nothing changed


def test_a_new_seat_starts_in_the_players_own_language(quick, db):
    PlayerSettings.objects.create(email=address("Chloé"), language="fr")
    game = services.create_game(KIND, [services.PlayerSpec(n, address(n)) for n, _l in ENGLISH], {})
    by_name = {s.name: s.language for s in game.seats.all()}
    assert by_name == {"Alice": "", "Bruno": "", "Chloé": "fr"}


# ---------------------------------------------------------------------------------------------
# No English line in a German or French player's mail (issue 33): whole games by mail at a mixed
# table, with the platform's commands, their refusals, a refusal before the seat is known and a
# rate-limit answer along the way.
# ---------------------------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
# Words an English sentence is made of and neither a German nor a French one ('in', 'was', 'on',
# 'will' are German or French words too, so they are not in it).
ENGLISH_WORDS = re.compile(
    r"\b(the|your|yours|you|is|are|and|with|has|have|been|of|to|from|for|not|this|that|there|it|its|their|by|"
    r"at|no|now|here|what|which|who|when|until|after|before|every|each|game|move|turn|seat|reply)\b",
    re.I,
)
# What a line may hold that is no language: links, addresses, codes in brackets, what a player
# types (quoted commands: 'notices turn', „hilfe“, « aide », a quote a line break cut), the first
# column of the commands' table ("  away until YYYY-MM-DD / back   ..."), a notice choice named
# before its meaning ("turn : une fois par tour"), and the cast's names.
COMMAND_WORDS = "help|board|history|say|undo|away|notices|zone|orders|order|if|rest|calendar|language|channel|channels"
NEUTRAL = re.compile(
    r"https?://\S+|\b\w+://\S*|\S+@\S+|\[[^\]]*\]"
    r"|(?<!\w)'[^'\n]*'(?!\w)|„[^“\n]*(?:“|$)|^[^„“\n]*“|«[^»\n]*(?:»|$)|^[^«»\n]*»|\"[^\"\n]*\"|<[^>\n]*>"
    rf"|^\s{{2,}}(?:{COMMAND_WORDS})\b.*?(?:\s{{3,}}|$)"
    r"|\b(?:turn|round|every|digest|none)\s?:"
    r"|\b(?:Alice|Bruno|Chloé|UTC|Europe/Berlin|Europe/Paris|Asia/Tokyo)\b",
    re.M,
)


def catalogue_entries(language: str) -> list[tuple[str, list[str]]]:
    """(English msgid, its translations into `language`) of the platform's catalogue and every
    game's and games/'s own."""
    from babel.messages.pofile import read_po

    found = [(e["msgid"], e["strs"]) for e in po_entries(ROOT / "pbem/locale" / language / "LC_MESSAGES/django.po")]
    for po in sorted(ROOT.glob(f"games/**/locale/{language}/LC_MESSAGES/*.po")):
        with po.open("rb") as f:
            for message in read_po(f):
                if message.id:
                    ids = message.id if isinstance(message.id, tuple) else (message.id,)
                    strs = message.string if isinstance(message.string, tuple) else (message.string,)
                    found += [(i, list(strs)) for i in ids]
    return found


PIECE_CUT = re.compile(r"%\(\w+\)[sd]|%[sd]|\{[^}]*\}|<[^>]+>|\n|[:;,.()'\"«»„“”‘’…!?\[\]/=]")


def english_pieces(language: str) -> set[str]:
    """Pieces of the English sentences the catalogues translate: each msgid cut at its
    placeholders and punctuation, the pieces of three words or more that no translation into
    `language` keeps (a command word the translation keeps is not English there)."""
    entries = catalogue_entries(language)
    translated = "\n".join(s.lower() for _msgid, strs in entries for s in strs)
    pieces = set()
    for msgid, _strs in entries:
        for piece in PIECE_CUT.split(msgid):
            piece = " ".join(piece.split()).lower()
            if len(re.findall(r"[a-z]{2,}", piece)) >= 3 and piece not in translated:
                pieces.add(piece)
    return pieces


def english_in(line: str, pieces: set[str], typed: set[str]) -> str | None:
    """What of `line` reads as English: a piece of a catalogue's English, or English words once
    what is no language (links, codes, names, what the player typed) is taken out."""
    if not line.strip() or line.strip().lower() in typed:
        return None
    lowered = " ".join(line.split()).lower()
    for piece in pieces:
        if piece in lowered:
            return f"the catalogue's English {piece!r}"
    rest = NEUTRAL.sub(" ", line)
    for command in typed:
        rest = re.sub(re.escape(command), " ", rest, flags=re.I)
    words = ENGLISH_WORDS.findall(rest)
    return f"English words {words}" if words else None


COMMANDS = [
    # (player, lines): each a reply of its own to the player's newest mail, mid-game.
    ("Bruno", "language de"),
    ("Chloé", "langue fr"),
    ("Bruno", "notices round"),
    ("Bruno", "notices"),
    ("Chloé", "notices every\nnotices pictures"),
    ("Bruno", "calendar"),
    ("Chloé", "calendar new"),
    ("Bruno", "orders"),
    ("Chloé", "orders forced on"),
    ("Chloé", "orders cancel 99"),
    ("Chloé", "orders cancel all"),
    ("Bruno", "zone Europe/Berlin"),
    ("Chloé", "zone Mars/Olympus"),
    ("Bruno", "rest sat sun"),
    ("Bruno", "rest"),
    ("Chloé", "rest someday"),
    ("Bruno", "rest none"),
    ("Chloé", "channel add json://127.0.0.1:9/hook/secretpath"),
    ("Chloé", "channels"),
    ("Chloé", "channel remove 1"),
    ("Bruno", "channel remove 7"),
    ("Bruno", "history 3"),
    ("Chloé", "undo"),
    ("Bruno", "frobnicate the widget"),
    ("Chloé", "help"),
    ("Bruno", "say Hallo zusammen"),
]


def play_with_commands(kind: str, table, mailoutbox, commands) -> tuple[Game, set[str]]:
    """A game of `kind` by mail to its end, the stand-in's choices by code as in `play`, with
    `commands` sent one a reply along the way (and an absence taken and given back). Returns
    the game and the lines the players typed."""
    players = [services.PlayerSpec(name, address(name), language) for name, language in table]
    with seeded(SEED):
        game = services.create_game(kind, players, {})
    send_all()
    typed: set[str] = set()
    pending = list(commands)
    for move in range(MAX_MOVES):
        game.refresh_from_db()
        if game.status != "running":
            break
        if pending and move % 2 == 1:
            name, lines = pending.pop(0)
            newest = next(m for m in reversed(mailoutbox) if m.to == [address(name)])
            deliver(reply("gmail", parsed(newest), lines, sender=address(name)))
            typed |= {line.strip().lower() for line in lines.splitlines()}
            send_all()
            continue
        seat = game.awaited[0]
        name, language = table[seat]
        mail = newest_with_moves(mailoutbox, address(name), language)
        version = Notice.objects.get(pk=int(mail["X-Pbem-Notice"])).version
        code = code_of(game, seat, standin_choice(game, seat), version)
        lines = str(code) if code is not None else services_line(game, seat)
        message = deliver(reply("gmail", mail, lines, sender=address(name)))
        assert message.status == "applied", (name, message.outcome)
        typed.add(lines.strip().lower())
        send_all()
    assert not pending, f"{kind} ended before every command was sent"
    assert Game.objects.get(pk=game.pk).status == "finished", f"{kind} did not end within {MAX_MOVES} moves"
    return game, typed


def refusals_by_address(game: Game, mailoutbox) -> set[str]:
    """Mail the platform refuses before it knows the seat (no reply address, no code in the
    subject), and mail past the rate limit: each answered in the writer's language."""
    typed = set()
    for name, _language in MIXED:
        newest = next(m for m in reversed(mailoutbox) if m.to == [address(name)])
        raw = reply("gmail", parsed(newest), "history", sender=address(name), to="nobody@example.org", subject="Hallo")
        message = deliver(raw)
        assert message.status == "refused" and message.error_code == "no_token", message.outcome
        typed.add("history")
    send_all()
    return typed


@pytest.mark.slow  # two whole games by mail
def test_a_german_or_french_player_reads_no_english_line_in_two_whole_games_and_the_commands(
    quick, db, mailoutbox, settings
):
    typed: set[str] = set()
    for kind in ("elixirus", "elven_castle"):
        mailoutbox.clear()
        game, said = play_with_commands(kind, MIXED, mailoutbox, COMMANDS)
        typed |= said
        settings.PBEM_RATE_MAIL_COMMANDS = (1, 600)  # past the limit: told once, in their language
        for name, _language in MIXED:
            newest = next(m for m in reversed(mailoutbox) if m.to == [address(name)])
            message = deliver(reply("gmail", parsed(newest), "history 2", sender=address(name)))
            assert message.error_code == "rate_limited", message.outcome
        typed.add("history 2")
        send_all()
        settings.PBEM_RATE_MAIL_COMMANDS = (100_000, 600)
        typed |= refusals_by_address(game, mailoutbox)
        check_no_english(kind, mailoutbox, typed)


def check_no_english(kind: str, mailoutbox, typed: set[str]) -> None:
    out = artifacts("languages")
    out.mkdir(parents=True, exist_ok=True)
    for name, language in MIXED:
        if language == "en":
            continue
        pieces = english_pieces(language)
        mine = [m for m in mailoutbox if m.to == [address(name)]]
        answers = [m for m in mine if m.subject.startswith("Re:")]
        assert len(mine) > 20 and len(answers) >= len(COMMANDS) // 3, (name, len(mine), len(answers))
        found = []
        for sent in mine:
            for line in [sent.subject, *sent.body.splitlines()]:
                why = english_in(line, pieces, typed)
                if why:
                    found.append(f"{sent.subject[:50]!r}: {line.strip()[:120]!r} ({why})")
        (out / f"{kind}-{language}-all-mail.txt").write_text(
            "\n\n".join(f"Subject: {m.subject}\n\n{m.body}" for m in mine)
        )
        assert not found, f"{name} ({language}) reads English:\n" + "\n".join(dict.fromkeys(found))
        # The refusal before the seat was known and the rate limit's answer came, in their language.
        bodies = "\n".join(m.body for m in mine)
        for said in TOLD[language]:
            assert said in bodies, (name, said)


TOLD = {
    "de": ("Wir konnten nicht erkennen, für welche Partie", "Du hast mehr als 1 Mails in 10 Minuten"),
    "fr": ("Nous n'avons pas pu savoir à quelle partie", "Vous avez envoyé plus de 1 messages"),
}
