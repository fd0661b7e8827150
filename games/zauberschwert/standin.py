"""A stand-in for a seat whose player is gone: `standin(view, legal) -> command`.

It sees only that seat's view (its own hand, everything public) and values every outcome in
power stones, the score: a magic point is worth a fraction of a stone that shrinks as the game
nears its end, an artifact card what its bonus may still earn on the creatures not yet defeated.
What it can work out from the view it does (the adventure cards still face down are the ones
not shown, won or gone); what the view does not show it does not guess at. It weighs what a
move gives the others too (a stone for an opponent counts against it, divided among the
opponents), so it fights for contested cards and does not hand a rival the half they lack.
Deterministic: equal values keep the order of `legal`.

Version 2 (`standin`; `standin_v1` plays version 1, the bench's baseline, as this code with
`version=1`): magic is saved for the creatures still to come, so Transformus turns only spare magic into a stone (the
first version cast it every round near the end and could leave two creatures nobody could pay
for); it opens an auction when it must (rules version 2); it makes at most one offer to each
player a round (offers are free by default since rules version 2).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .rules import ADV, ART, ARTIFACTS, CAP, DATA_SPELL, RULES, SPELL_ID, artifacts_of

# A magic point buys about 0.8 stones in a fight, but a wizard fights once a round and magic
# comes every round, so magic is the cheaper resource: this is its worth with many rounds to go.
# (Version 1 had 0.4: it spent magic too cheaply, and lost about two games in three against this
# value at 3 players; bench/game_zauberschwert.py.)
MAGIC_WORTH = {1: 0.4, 2: 0.75}
# Magic a seat holds beyond what the creatures to come need is worth this share of a magic point.
SPARE_SHARE = 1 / 3
# Of the creatures still to come, the share a player can expect to defeat (at a table of n).
FIGHT_SHARE = 1.4
# Cards that leave the display in a round of stand-in play (for how many rounds are left).
CARDS_PER_ROUND = 1.6
# The chance of completing a two-part artifact of which one holds one half.
PARTNER_CHANCE = 0.35
# Spells over the rest of the game, in stones per round left (their effects are a proposal;
# see RULINGS.md): Addus is a free magic point; Stonex a stone in the rounds without one.
SPELL_WORTH_PER_ROUND = {
    "Addus": None,
    "Stonex": 0.45,
    "Transformus": 0.25,
    "Fulmentus": 0.3,
    "Retransformus": 0.2,
    "Harpagarus": 0.35,
}


@dataclass
class Seen:
    """What the seat knows, worked out from its view once per decision."""

    view: dict
    me: int = 0
    n: int = 0
    magic: list = field(default_factory=list)
    power: list = field(default_factory=list)
    hand: list = field(default_factory=list)
    out: set = field(default_factory=set)  # artifact cards laid out or discarded: in no hand
    creatures_left: list = field(default_factory=list)  # creatures still to be fought (display + deck)
    rounds_left: float = 1.0
    version: int = 2  # the stand-in's version (1: `standin_v1`, the bench's baseline)

    @classmethod
    def of(cls, view: dict, version: int = 2) -> Seen:
        players = view["players_info"]
        seen = cls(
            view,
            version=version,
            me=view["seat"],
            n=view["players"],
            magic=[p["magic"] for p in players],
            power=[p["power"] for p in players],
            hand=list(view["hand"] or []),
        )
        seen.out = set(view["discards"]).union(*(p["laid"] for p in players))
        shown = {c for c in view["display"] if c is not None}
        known = shown | set(view["gone"]) | {c for p in players for c in p["spells"]}
        face_down = [c for c in ADV if c not in known]
        seen.creatures_left = [c for c in face_down + sorted(shown) if ADV[c]["type"] == "creature"]
        seen.rounds_left = max(1.0, view["adventure_deck"] / CARDS_PER_ROUND + (1 if shown else 0))
        return seen

    # -- worth of the currencies ---------------------------------------------------------------

    def magic_worth(self) -> float:
        """Stones per magic point: less as the end nears (at the very end only the tie-break)."""
        return max(0.02, MAGIC_WORTH[self.version] * min(1.0, (self.rounds_left - 0.5) / 3))

    def magic_to_keep(self, seat: int | None = None) -> int:
        """The magic worth keeping for `seat` (this one by default): the strength of the strongest
        creature still to come whose lone victory pays better than Transformus does (a stone for
        4 magic), and which the seat could pay for before the end (its magic plus its income in the
        rounds left; any strength up to the cap once the deck is empty, as the game goes on until
        the display's creatures are beaten), 2 more where a rival holds Fulmentus."""
        seat = self.me if seat is None else seat
        rate = DATA_SPELL["Transformus"]["effect"]["gain_ps"] / DATA_SPELL["Transformus"]["effect"]["pay_mp"]
        reach = self.magic[seat] + RULES["income"] * max(0, int(self.rounds_left) - 1)
        if not self.view["adventure_deck"]:
            reach = CAP
        fulmentus = SPELL_ID["Fulmentus"]
        raised = max(DATA_SPELL["Fulmentus"]["effect"]["creature_strength_delta"])
        rival = any(fulmentus in p["spells"] for p in self.view["players_info"] if p["seat"] != seat)
        keep = 0
        for card in self.creatures_left:
            strength = ADV[card]["strength"] + (raised if rival else 0)
            reward = ADV[card]["reward_one_wizard"]
            if strength <= min(CAP, reach) and reward["power_stones"] + reward["artifacts"] * 0.5 > rate * strength:
                keep = max(keep, strength)
        return keep

    def magic_gain(self, seat: int, amount: int) -> float:
        """The worth of `amount` magic points for `seat` (what goes above the cap of 30 is lost)."""
        magic = self.magic[seat]
        return (max(0, min(CAP, magic + amount)) - magic) * self.magic_worth()

    def opponent_weight(self) -> float:
        """How much a stone for one opponent counts against this seat (its lead over the average)."""
        return 1.0 / (self.n - 1)

    # -- worth of artifacts --------------------------------------------------------------------

    def artifact_worth(self, key: str) -> float:
        """A complete artifact laid out now: its bonus on the creatures still to come."""
        artifact = ARTIFACTS[key]
        matching = sum(1 for c in self.creatures_left if ADV[c]["symbol"] in artifact["symbols"])
        bonus = artifact["bonus"]
        each = bonus["amount"] * (self.magic_worth() if bonus["type"] == "magic_points" else 1.0)
        tie_break = 0.01 * len(artifact["cards"])  # laid-out cards break a tie
        return each * matching * min(1.0, FIGHT_SHARE / self.n) + tie_break

    def card_worth(self, card: str, hand: list, elsewhere: tuple = ()) -> float:
        """One artifact card held in `hand` (a half counts fully only beside its other half, and
        not at all when the other half is out of reach: laid out, discarded or `elsewhere`)."""
        key = ART[card]["artifact"]
        parts = ARTIFACTS[key]["cards"]
        if len(parts) == 1:
            return self.artifact_worth(key)
        partner = next(c for c in parts if c != card)
        if partner in hand:
            return self.artifact_worth(key)
        if partner in self.out or partner in elsewhere:
            return 0.0
        return self.artifact_worth(key) * PARTNER_CHANCE

    def hand_worth(self, hand: list, elsewhere: tuple = ()) -> float:
        total = 0.0
        for key in dict.fromkeys(ART[c]["artifact"] for c in hand):  # in hand order: sums repeat exactly
            parts = ARTIFACTS[key]["cards"]
            held = [c for c in parts if c in hand]
            total += (
                self.card_worth(held[0], hand)
                if len(held) == len(parts)
                else sum(self.card_worth(c, hand, elsewhere) for c in held)
            )
        return total

    def draw_worth(self) -> float:
        """An artifact card drawn face down: the mean worth of the cards this seat has not seen."""
        unseen = [c for c in ART if c not in self.out and c not in self.hand]
        if not unseen:
            return 0.0
        return sum(self.card_worth(c, self.hand + [c]) for c in unseen) / len(unseen)

    def draws(self, count: int) -> float:
        return min(count, self.view["artifact_deck"]) * self.draw_worth()

    # -- worth of the adventure cards ----------------------------------------------------------

    def bonus(self, seat: int, symbol: str) -> float:
        """The artifact bonus `seat` gets on defeating a creature showing `symbol`."""
        total = 0.0
        for key in artifacts_of(self.view["players_info"][seat]["laid"]):
            artifact = ARTIFACTS[key]
            if symbol in artifact["symbols"]:
                amount = artifact["bonus"]["amount"]
                total += amount * (self.magic_worth() if artifact["bonus"]["type"] == "magic_points" else 1.0)
        return total

    def victory(self, seat: int, card: str, alone: bool, pay: int) -> float:
        """What defeating `card` is worth to `seat` (stones, cards, bonus) less the magic paid."""
        c = ADV[card]
        reward = c["reward_one_wizard"] if alone else c["reward_two_wizards_each"]
        worth = reward["power_stones"] + self.draws(reward["artifacts"]) + self.bonus(seat, c["symbol"])
        return worth - self.paying(seat, pay)

    def paying(self, seat: int, pay: int) -> float:
        """What paying `pay` magic costs `seat`: magic it would still hold beyond what the fights
        to come need is spare, worth a third (a seat at the cap of 30 wastes its income anyway).
        Version 1 paid every magic point at its full worth."""
        if self.version == 1:
            return pay * self.magic_worth()
        left = self.magic[seat] - pay
        spare = max(0, min(pay, left - self.magic_to_keep(seat)))
        return (pay - spare + spare * SPARE_SHARE) * self.magic_worth()

    def spell_worth(self, name: str) -> float:
        per_round = SPELL_WORTH_PER_ROUND[name]
        if per_round is None:  # Addus: one magic point more every round
            per_round = DATA_SPELL["Addus"]["effect"]["gain_mp"] * self.magic_worth()
        return per_round * self.rounds_left

    def card_gain(self, seat: int, card: str, others: list) -> float:
        """What `seat` expects from a wizard on `card` beside the wizards of `others`."""
        c = ADV[card]
        kind = c["type"]
        if kind == "energy_orb":
            return self.magic_gain(seat, c["reward_each_attached_wizard"]["magic_points"])
        if kind == "holy_site":
            reward = c["reward_each_attached_wizard"]
            return reward["power_stones"] + self.draws(reward["artifacts"])
        if kind == "spell":
            worth = self.spell_worth(c["name"])
            return worth if not others else worth / (len(others) + 1)  # an auction eats the rest
        strength = c["strength"]
        if not others:
            return self.victory(seat, card, True, strength) if self.magic[seat] >= strength else 0.0
        share = -(-strength // (len(others) + 1))
        if self.magic[seat] < share:
            return 0.0
        return self.victory(seat, card, False, share)

    def loss_to_others(self, card: str, others: list) -> float:
        """What joining `others` on `card` takes from them: on a creature a lone victory becomes
        a shared one (a smaller reward), a free spell goes to auction."""
        if not others:
            return 0.0
        c = ADV[card]
        if c["type"] == "spell":
            return self.spell_worth(c["name"]) / (len(others) + 1) * len(others)
        if c["type"] != "creature":
            return 0.0
        strength = c["strength"]
        before_share = -(-strength // len(others))
        after_share = -(-strength // (len(others) + 1))
        loss = 0.0
        for x in others:
            if self.magic[x] < before_share:
                continue
            before = self.victory(x, card, len(others) == 1, before_share)
            after = self.victory(x, card, False, after_share)
            loss += max(0.0, before - after)
        return loss


# ---------------------------------------------------------------------------------------------
# one function per kind of decision
# ---------------------------------------------------------------------------------------------


def _place(seen: Seen, legal: list) -> dict:
    """Phase C: the card worth most (beside the wizards already on it), or pass for a magic point."""
    view = seen.view
    best, best_worth = {"type": "pass"}, seen.magic_gain(seen.me, RULES["pass_bonus"])
    for command in legal:
        if command["type"] != "place":
            continue
        slot = command["slot"]
        others = [p["seat"] for p in view["players_info"] if p["wizard"] == slot and p["seat"] != seen.me]
        card = view["display"][slot]
        worth = seen.card_gain(seen.me, card, others) + seen.opponent_weight() * seen.loss_to_others(card, others)
        if worth > best_worth:
            best, best_worth = command, worth
    return best


def _fulmentus(seen: Seen, legal: list) -> dict:
    """Fulmentus: cheaper for a fight of one's own; dearer (or out of reach) for rivals' fights,
    but kept for one's own fight still to come this round."""
    fight = seen.view["fight"]
    strength = fight["strength"]
    if seen.me in fight["seats"]:
        return {"type": "fulmentus", "delta": -2} if strength > 0 else {"type": "skip"}
    mine_to_come = any(
        p["wizard"] not in (None, -1, fight["slot"]) and ADV[seen.view["display"][p["wizard"]]]["type"] == "creature"
        for p in seen.view["players_info"]
        if p["seat"] == seen.me
    )
    raised = strength + 2
    beaten = not _can_defeat([seen.magic[x] for x in fight["seats"]], raised)
    if beaten or not mine_to_come:
        return {"type": "fulmentus", "delta": 2}
    return {"type": "skip"}


def _can_defeat(magic: list, strength: int) -> bool:
    """Whether wizards with these magic points defeat a creature (alone, or sharing as the rules
    split the cost: who cannot pay the share drops out and the rest split again)."""
    if len(magic) == 1:
        return magic[0] >= strength
    group = list(magic)
    while group:
        share = -(-strength // len(group))
        if all(m >= share for m in group):
            return True
        group = [m for m in group if m >= share]
    return False


def _lone(seen: Seen, legal: list) -> dict:
    fight = seen.view["fight"]
    return (
        {"type": "fight"} if seen.victory(seen.me, fight["card"], True, fight["strength"]) > 0 else {"type": "withdraw"}
    )


def _declare(seen: Seen, legal: list) -> dict:
    """Together or alone: alone when this seat can outbid the others (more magic than each can
    or will pay) and the lone reward, with the others left empty-handed, beats the shared one;
    never alone against a richer rival, who would win the auction and leave it nothing."""
    fight = seen.view["fight"]
    card, strength, seats = fight["card"], fight["strength"], fight["seats"]
    share = -(-strength // len(seats))
    others = [x for x in seats if x != seen.me]
    together = seen.victory(seen.me, card, False, share)
    shared_by_others = sum(max(0.0, seen.victory(x, card, False, share)) for x in others if seen.magic[x] >= share)
    if seen.magic[seen.me] > max(seen.magic[x] for x in others):
        price = max(strength, min(max(_willing(seen, x, card) for x in others) + 1, seen.magic[seen.me]))
        alone = seen.victory(seen.me, card, True, price) + seen.opponent_weight() * shared_by_others
    else:
        alone = -seen.opponent_weight() * max(seen.victory(x, card, True, strength) for x in others)
    return {"type": "alone"} if alone > together + 0.5 else {"type": "together"}


def _willing(seen: Seen, seat: int, card: str) -> int:
    """The most magic `seat` would bid for a lone victory over `card` (what it is worth to it)."""
    worth = seen.victory(seat, card, True, 0)
    return min(seen.magic[seat], int(worth / seen.magic_worth()))


def _auction(seen: Seen, legal: list) -> dict:
    """Bid the lowest amount while winning is worth the price, counting what a rival would gain
    at the current high bid if this seat let it have the card."""
    auction = seen.view["auction"]
    bids = [c for c in legal if c["type"] == "bid"]
    if not bids:
        return {"type": "pass"}
    if {"type": "pass"} not in legal and seen.version >= 2:  # the first bid must be made: the lowest
        return bids[0]
    lowest = bids[0]["amount"]
    card = auction["card"]
    rivals = [x for x in auction["seats"] if x != seen.me and x not in auction["passed"]]
    their_price = auction["high"] if auction["high"] is not None else auction["min"]
    if auction["kind"] == "spell":
        mine = seen.spell_worth(ADV[card]["name"])
        theirs = mine - their_price * seen.magic_worth()
    else:
        mine = seen.victory(seen.me, card, True, 0)
        theirs = max((seen.victory(x, card, True, their_price) for x in rivals), default=0.0)
    worth = mine - lowest * seen.magic_worth() + seen.opponent_weight() * max(0.0, theirs)
    return bids[0] if worth > 0 else {"type": "pass"}


def _bonus(seen: Seen, legal: list) -> dict:
    """Potion or Star Sapphire: stones are the score; as many magic points are worth less."""
    return {"type": "bonus", "take": "stones"}


def _spells(seen: Seen, legal: list) -> dict:
    """The spell window: the cast worth most, if any is worth its price; else done."""
    best, best_worth = {"type": "done"}, 0.0
    for command in legal:
        if command["type"] != "cast":
            continue
        worth = _cast_worth(seen, command)
        if worth > best_worth:
            best, best_worth = command, worth
    return best


def _cast_worth(seen: Seen, command: dict) -> float:
    spell = command["spell"]
    effect = DATA_SPELL[spell]["effect"]
    if spell == "Transformus" and seen.version == 1:
        # magic above what the fights ahead can use is wasted at the cap: turn it into a stone
        spare = seen.magic[seen.me] + RULES["income"] > CAP or seen.rounds_left <= 2
        return effect["gain_ps"] - effect["pay_mp"] * seen.magic_worth() * (0.5 if spare else 1.0)
    if spell == "Transformus":
        # only spare magic becomes a stone: what the fights still to come need is kept
        magic = seen.magic[seen.me]
        if magic - effect["pay_mp"] < seen.magic_to_keep() and magic + RULES["income"] <= CAP:
            return -1.0
        return effect["gain_ps"] - 0.1  # spare magic: at most a tie-break
    if spell == "Retransformus":
        return seen.draw_worth() - seen.card_worth(command["card"], seen.hand)
    # Harpagarus: a random card the victim received this round; it weakens the victim too
    target = command["target"]
    taken = seen.draw_worth()
    lead = 1.0 + 0.5 * (seen.power[target] >= max(seen.power))
    return taken * (1 + seen.opponent_weight() * lead) - effect["pay_mp"] * seen.magic_worth()


def _trade(seen: Seen, legal: list) -> dict:
    """Answer offers first (accept a swap that gains more than it gives the offerer), then ask
    for the other half of an artifact, giving the card worth least; else done."""
    view = seen.view
    incoming = [o for o in view["offers"] if o["to"] == seen.me and "give" in o]
    if incoming:
        return _answer(seen, incoming, legal)
    offers = [c for c in legal if c["type"] == "offer"]
    if offers:
        wanted = _offer(seen, offers)
        if wanted is not None:
            return wanted
    return {"type": "done"} if {"type": "done"} in legal else legal[0]


def _answer(seen: Seen, incoming: list, legal: list) -> dict:
    best, best_gain = None, 0.0
    for offer in incoming:
        accept = {"type": "accept", "from": offer["from"]}
        if accept not in legal:
            continue
        gain = _swap_gain(seen, seen.hand, offer["want"], offer["give"])
        if gain > best_gain:
            best, best_gain = accept, gain
    return best or {"type": "decline", "from": incoming[0]["from"]}


def _swap_gain(seen: Seen, hand: list, lose: str, receive: str) -> float:
    """What swapping `lose` (from `hand`) for `receive` gains this seat, less what it gives the
    offerer. Asking for a half tells that the offerer holds the other one: for this seat that
    half is then out of reach, and for the offerer the swap completes an artifact."""
    elsewhere = _other_halves(lose)
    after = [c for c in hand if c != lose] + [receive]
    mine = seen.hand_worth(after) - seen.hand_worth(hand, elsewhere)
    theirs = seen.artifact_worth(ART[lose]["artifact"]) - seen.card_worth(receive, [])
    if ART[lose]["parts"] == 2:
        theirs -= seen.artifact_worth(ART[lose]["artifact"]) * PARTNER_CHANCE  # they held that half already
    return mine - seen.opponent_weight() * max(0.0, theirs)


def _other_halves(card: str) -> tuple:
    return tuple(c for c in ARTIFACTS[ART[card]["artifact"]]["cards"] if c != card)


def _offer(seen: Seen, offers: list) -> dict | None:
    """The other half of a two-part artifact, for the card that makes the best swap that the
    other side should accept too (seen with the same measure from its side); asked of the
    players with the most cards first (a second offer goes to the next player)."""
    hand = seen.hand
    best = None
    for want in dict.fromkeys(p for c in hand for p in ARTIFACTS[ART[c]["artifact"]]["cards"]):
        if want in hand or want in seen.out:
            continue
        for give in hand:
            if ART[give]["artifact"] == ART[want]["artifact"]:
                continue
            mine = seen.hand_worth([c for c in hand if c != give] + [want]) - seen.hand_worth(hand)
            # their side: a card of generic worth for a half they cannot complete (this seat holds
            # the other one, as the offer tells them)
            theirs = seen.card_worth(give, []) - seen.card_worth(want, [], _other_halves(want))
            if theirs - seen.opponent_weight() * mine <= 0:
                continue  # they would refuse it
            gain = mine - seen.opponent_weight() * theirs
            if gain > 0 and (best is None or gain > best[0]):
                best = (gain, give, want)
    if best is None:
        return None
    _, give, want = best
    players = [p for p in seen.view["players_info"] if p["seat"] != seen.me and p["hand_count"]]
    players.sort(key=lambda p: (-p["hand_count"], (p["seat"] - seen.me) % seen.n))
    made = seen.view.get("offers_made") or 0
    if made >= len(players) and seen.version >= 2:  # one offer to each player a round is enough
        return None
    for player in players[made % len(players) :] + players[: made % len(players)]:
        command = {"type": "offer", "give": give, "to": player["seat"], "want": want}
        if command in offers:
            return command
    return None


def _layout(seen: Seen, legal: list) -> dict:
    """Lay out every complete artifact: it earns only when laid out, and cannot then be stolen."""
    return next((c for c in legal if c["type"] == "lay"), {"type": "done"})


DECISIONS = {
    "place": _place,
    "fulmentus": _fulmentus,
    "lone": _lone,
    "declare": _declare,
    "auction": _auction,
    "bonus": _bonus,
    "spells": _spells,
    "trade": _trade,
    "layout": _layout,
}


def standin(view: dict, legal: list, version: int = 2) -> dict:
    """The move a sensible player would make, from this seat's view alone; always one of `legal`."""
    if not legal:
        raise ValueError("the stand-in was asked to move with no legal command")
    decide = DECISIONS.get(view["step"])
    command = decide(Seen.of(view, version), legal) if decide else legal[0]
    return command if command in legal else legal[-1]
