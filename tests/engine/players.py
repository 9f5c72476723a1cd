"""Seeded random legal players for the four games, each with its own model of the rules.

Each player proposes the next event of a game (always legal by CONTRACTS.md section 1),
keeps its own scores, written here independently of ``engine/``, and knows a few events
that are illegal in the current position. ``test_conformance.py`` drives them against the
engine.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections import Counter
from dataclasses import dataclass
from typing import Any

Obj = dict[str, Any]

NAMES = ["Ann", "Ben", "Cy", "Zoë", "Dee", "李", "Ed", "Flo"]
NOT_A_PLAYER = "Nobody"


class RandomPlayer(ABC):
    """One game played at random. ``next_event`` is None once the game is over."""

    game: str

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.finished = False
        self.winners: list[str] = []

    @property
    @abstractmethod
    def start(self) -> Obj: ...

    @abstractmethod
    def next_event(self) -> Obj | None:
        """A legal next event, or None when the game is over."""

    @abstractmethod
    def apply(self, obj: Obj) -> None:
        """Follow an event (one ``next_event`` proposed)."""

    @abstractmethod
    def scores(self) -> dict[str, int]: ...

    @abstractmethod
    def illegal(self) -> list[Obj]:
        """Events the rules forbid right now (never empty)."""

    def after_finish(self) -> list[Obj]:
        """Events that would be legal had the game not ended."""
        return []

    def seats(self, low: int, high: int) -> list[str]:
        return self.rng.sample(NAMES, self.rng.randint(low, high))


def top(totals: dict[str, int]) -> list[str]:
    best = max(totals.values())
    return [p for p, v in totals.items() if v == best]


# --- Pick Pic -------------------------------------------------------------------------------


@dataclass
class Ranking:
    """One ranking as played, for the points invariant."""

    ranker: str
    order: list[str]
    givers: dict[str, str]
    random_card: str
    points: dict[str, int]


class PickPicPlayer(RandomPlayer):
    game = "pickpic"

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.players = self.seats(3, 5)
        self.target = rng.choice([1, 4, 8, 12, 20])
        self.per = 2 if len(self.players) == 3 else 1
        self.points = dict.fromkeys(self.players, 0)
        self.rankings: list[Ranking] = []
        self.round_points: list[dict[str, int]] = []
        self.round = 0
        self._new_round()

    @property
    def start(self) -> Obj:
        out: Obj = {"type": "start", "game": "pickpic", "players": self.players}
        if self.target != 20 or self.rng.random() < 0.5:
            out["target"] = self.target
        return out

    def _new_round(self) -> None:
        self.round += 1
        self.counter = 0
        self.revealed: dict[str, str] = {}
        self.given: Counter[tuple[str, str]] = Counter()
        self.received: dict[str, list[tuple[str, str]]] = {p: [] for p in self.players}
        self.randoms: dict[str, str] = {}
        self.ranked: dict[str, list[str]] = {}
        self.used: list[str] = []

    def _card(self) -> str:
        # Ids start again every round: the same ids in a later round are legal.
        self.counter += 1
        return f"p{self.counter}"

    def _complete(self, p: str) -> bool:
        return len(self.received[p]) == (len(self.players) - 1) * self.per

    def _stack(self, p: str) -> list[str]:
        return [c for c, _ in self.received[p]] + [self.randoms[p]]

    def next_event(self) -> Obj | None:
        if self.finished:
            return None
        options: list[Obj] = []
        if len(self.revealed) < len(self.players):
            for p in self.players:
                if p not in self.revealed:
                    options.append({"type": "reveal", "player": p, "card": ""})
        else:
            for g in self.players:
                for t in self.players:
                    if g != t and self.given[g, t] < self.per:
                        options.append({"type": "give", "from": g, "to": t, "card": ""})
            for p in self.players:
                if self._complete(p) and p not in self.randoms:
                    options.append({"type": "random", "to": p, "card": ""})
                if p in self.randoms and p not in self.ranked:
                    options.append({"type": "rank", "player": p, "order": []})
        obj = self.rng.choice(options)
        if "card" in obj:
            obj["card"] = self._card()
        if obj["type"] == "rank":
            obj["order"] = self._order(obj["player"])
        if self.rng.random() < 0.1:
            obj["t"] = round(self.rng.uniform(0, 3600), 3)
        return obj

    def _order(self, p: str) -> list[str]:
        order = self._stack(p)
        self.rng.shuffle(order)
        if self.rng.random() < 0.4:  # good players push the random card down
            order.remove(self.randoms[p])
            order.append(self.randoms[p])
        return order

    def apply(self, obj: Obj) -> None:
        kind = obj["type"]
        if kind == "reveal":
            self.revealed[obj["player"]] = obj["card"]
        elif kind == "give":
            self.given[obj["from"], obj["to"]] += 1
            self.received[obj["to"]].append((obj["card"], obj["from"]))
        elif kind == "random":
            self.randoms[obj["to"]] = obj["card"]
        elif kind == "rank":
            self.ranked[obj["player"]] = list(obj["order"])
        if "card" in obj:
            self.used.append(obj["card"])
        if len(self.ranked) == len(self.players):
            self._score_round()

    def _score_ranking(self, p: str) -> Ranking:
        givers = dict(self.received[p])
        order = self.ranked[p]
        random_card = self.randoms[p]
        points: dict[str, int] = {}
        for i, card in enumerate(order):
            if card == random_card:
                if i == len(order) - 1:
                    points[p] = points.get(p, 0) + 1
                break
            giver = givers[card]
            points[giver] = points.get(giver, 0) + (2 if i == 0 else 1)
            points[p] = points.get(p, 0) + 1
        return Ranking(p, order, givers, random_card, points)

    def _score_round(self) -> None:
        this_round = dict.fromkeys(self.players, 0)
        for p in self.players:
            ranking = self._score_ranking(p)
            self.rankings.append(ranking)
            for q, n in ranking.points.items():
                this_round[q] += n
        self.round_points.append(this_round)
        for p, n in this_round.items():
            self.points[p] += n
        if max(self.points.values()) >= self.target:
            self.finished = True
            self.winners = top(self.points)
        else:
            self._new_round()

    def scores(self) -> dict[str, int]:
        return dict(self.points)

    def illegal(self) -> list[Obj]:
        ps = self.players
        a, b = self.rng.sample(ps, 2)
        out: list[Obj] = [
            {"type": "reveal", "player": NOT_A_PLAYER, "card": "zz"},
            {"type": "give", "from": a, "to": a, "card": "zz"},
            {"type": "draw", "player": a, "card": "zz"},
            {"type": "rank", "player": a, "order": ["zz"], "oops": 1},
        ]
        if len(self.revealed) < len(ps):
            out.append({"type": "give", "from": a, "to": b, "card": "zz"})
            out.append({"type": "random", "to": a, "card": "zz"})
            done = [p for p in ps if p in self.revealed]
            out += [{"type": "reveal", "player": p, "card": "zz"} for p in done]
        else:
            out.append({"type": "reveal", "player": a, "card": "zz"})
        open_pairs = [(g, t) for g in ps for t in ps if g != t and self.given[g, t] < self.per]
        full_pairs = [(g, t) for g in ps for t in ps if g != t and self.given[g, t] == self.per]
        if self.used and open_pairs and len(self.revealed) == len(ps):
            g, t = self.rng.choice(open_pairs)
            out.append({"type": "give", "from": g, "to": t, "card": self.rng.choice(self.used)})
        if full_pairs:
            g, t = self.rng.choice(full_pairs)
            out.append({"type": "give", "from": g, "to": t, "card": "zz"})
        for p in ps:
            if not self._complete(p):
                out.append({"type": "random", "to": p, "card": "zz"})
            if p in self.randoms:
                out.append({"type": "random", "to": p, "card": "zz"})
            if p not in self.randoms:
                out.append({"type": "rank", "player": p, "order": ["zz"]})
            elif p not in self.ranked:
                stack = self._stack(p)
                out.append({"type": "rank", "player": p, "order": stack[:-1]})
                out.append({"type": "rank", "player": p, "order": [*stack, stack[0]]})
            else:
                out.append({"type": "rank", "player": p, "order": self.ranked[p]})
        return out

    def after_finish(self) -> list[Obj]:
        return [{"type": "reveal", "player": self.players[0], "card": "next"}]


# --- Picasso --------------------------------------------------------------------------------

PIECES = ["long_stick", "short_stick", "shape", "string"]
COST = {"long_stick": 1, "short_stick": 1, "shape": 2, "string": 3}
DEFAULT_KIT: dict[str, int | None] = {
    "long_stick": 5,
    "short_stick": 5,
    "string": 1,
    "shape": None,
}


class PicassoPlayer(RandomPlayer):
    game = "picasso"

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.players = self.seats(2, 6)
        self.cpp = rng.randint(1, 3)
        self.kit_option: dict[str, int | None] | None = None
        self.kit = dict(DEFAULT_KIT)
        if rng.random() < 0.4:
            self.kit_option = {
                p: rng.choice([None, 0, 1, 2, 6]) for p in rng.sample(PIECES, rng.randint(1, 4))
            }
            self.kit.update(self.kit_option)
        self.turn = 0
        self.card: str | None = None
        self.cost = 0
        self.builds = 0
        self.points = dict.fromkeys(self.players, 0)
        self.cards = dict.fromkeys(self.players, 0)

    @property
    def start(self) -> Obj:
        out: Obj = {"type": "start", "game": "picasso", "players": self.players}
        if self.cpp != 3 or self.rng.random() < 0.5:
            out["cards_per_player"] = self.cpp
        if self.kit_option is not None:
            out["kit"] = self.kit_option
        return out

    @property
    def builder(self) -> str:
        return self.players[self.turn % len(self.players)]

    def _pieces(self) -> dict[str, int]:
        out = {}
        for piece in PIECES:
            cap = self.kit[piece]
            high = 6 if cap is None else cap
            n = self.rng.randint(0, min(high, 3 if self.rng.random() < 0.7 else high))
            if n or self.rng.random() < 0.3:  # missing keys are 0
                out[piece] = n
        return out

    def next_event(self) -> Obj | None:
        if self.finished:
            return None
        if self.card is None:
            return {"type": "draw", "player": self.builder, "card": f"w{self.turn}"}
        roll = self.rng.random()
        if roll < 0.5 and self.builds < 4:
            return {"type": "build", "pieces": self._pieces()}
        if roll < 0.85:
            guessers = [p for p in self.players if p != self.builder]
            return {"type": "guess", "player": self.rng.choice(guessers)}
        return {"type": "give_up"}

    def _end_turn(self) -> None:
        self.card = None
        self.cost = 0
        self.builds = 0
        self.turn += 1
        if self.turn == len(self.players) * self.cpp:
            self.finished = True
            self.winners = top(self.scores())

    def apply(self, obj: Obj) -> None:
        kind = obj["type"]
        if kind == "draw":
            self.card = obj["card"]
        elif kind == "build":
            self.builds += 1
            self.cost = sum(COST[p] * n for p, n in obj["pieces"].items())
            if self.cost > 10:
                self._end_turn()
        elif kind == "guess":
            self.points[self.builder] += 10 - self.cost
            self.cards[obj["player"]] += 1
            self._end_turn()
        elif kind == "give_up":
            self._end_turn()

    def scores(self) -> dict[str, int]:
        return {p: self.points[p] + 5 * self.cards[p] for p in self.players}

    def illegal(self) -> list[Obj]:
        others = [p for p in self.players if p != self.builder]
        out: list[Obj] = [
            {"type": "draw", "player": self.rng.choice(others), "card": "zz"},
            {"type": "guess", "player": NOT_A_PLAYER},
            {"type": "build", "pieces": {"stick": 1}},
            {"type": "give_up", "player": self.builder},
        ]
        if self.card is None:
            out += [{"type": "build", "pieces": {}}, {"type": "give_up"}]
            out.append({"type": "guess", "player": self.rng.choice(others)})
        else:
            out.append({"type": "draw", "player": self.builder, "card": "zz"})
            out.append({"type": "guess", "player": self.builder})
            for piece, cap in self.kit.items():
                if cap is not None:
                    out.append({"type": "build", "pieces": {piece: cap + 1}})
        return out

    def after_finish(self) -> list[Obj]:
        return [{"type": "draw", "player": self.builder, "card": "more"}]


# --- Picmix ---------------------------------------------------------------------------------

ITEMS = ["sun", "car", "dog", "hat", "cup", "key", "fish", "moon", "owl", "tree"]


class PicmixPlayer(RandomPlayer):
    game = "picmix"

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.players = self.seats(2, 6)
        self.target = rng.randint(1, 5)
        self.three = rng.random() < 0.3
        self.won: dict[str, list[str]] = {p: [] for p in self.players}
        self.bottom: list[str] = []
        self.objective: tuple[str, list[str]] | None = None
        self.fresh = 0

    @property
    def start(self) -> Obj:
        out: Obj = {"type": "start", "game": "picmix", "players": self.players}
        if self.target != 5 or self.rng.random() < 0.5:
            out["target"] = self.target
        if self.three or self.rng.random() < 0.3:
            out["three_items_only"] = self.three
        return out

    def next_event(self) -> Obj | None:
        if self.finished:
            return None
        if self.objective is None:
            if self.bottom and self.rng.random() < 0.3:
                card = self.bottom.pop(0)  # the pile comes round again
            else:
                self.fresh += 1
                card = f"o{self.fresh}"
            n = 3 if self.three else self.rng.choice([3, 4])
            return {"type": "reveal", "card": card, "items": self.rng.sample(ITEMS, n)}
        player = self.rng.choice(self.players)
        items = list(self.objective[1])
        obj: Obj = {"type": "claim", "player": player}
        if self.rng.random() < 0.55:
            self.rng.shuffle(items)
            obj["visible"] = items
        else:
            others = [i for i in ITEMS if i not in items]
            wrong = self.rng.sample(items, self.rng.randint(0, len(items) - 1))
            if self.rng.random() < 0.5:
                wrong += self.rng.sample(others, self.rng.randint(1, 2))
            obj["visible"] = wrong
            if self.won[player] and self.rng.random() < 0.4:
                obj["returned"] = self.rng.choice(self.won[player])
        return obj

    def apply(self, obj: Obj) -> None:
        if obj["type"] == "reveal":
            self.objective = (obj["card"], list(obj["items"]))
            return
        assert self.objective is not None
        card, items = self.objective
        player = obj["player"]
        self.objective = None
        if sorted(set(obj["visible"])) == sorted(items):
            self.won[player].append(card)
            if len(self.won[player]) >= self.target:
                self.finished = True
                self.winners = [player]
            return
        held = self.won[player]
        returned = obj.get("returned") or (held[-1] if held else None)
        if returned is not None:
            held.remove(returned)
            self.bottom.append(returned)
        self.bottom.append(card)

    def scores(self) -> dict[str, int]:
        return {p: len(c) for p, c in self.won.items()}

    def illegal(self) -> list[Obj]:
        p = self.rng.choice(self.players)
        out: list[Obj] = [
            {"type": "claim", "player": NOT_A_PLAYER, "visible": []},
            {"type": "give", "player": p},
            {"type": "claim", "player": p, "visible": "sun"},
        ]
        if self.objective is None:
            out.append({"type": "claim", "player": p, "visible": ["sun", "car", "dog"]})
            out.append({"type": "reveal", "card": "zz", "items": ITEMS[:2]})
            out.append({"type": "reveal", "card": "zz", "items": ITEMS[:5]})
            out.append({"type": "reveal", "card": "zz", "items": ["sun", "sun", "car"]})
            if self.three:
                out.append({"type": "reveal", "card": "zz", "items": ITEMS[:4]})
        else:
            out.append({"type": "reveal", "card": "zz", "items": ITEMS[:3]})
            out.append({"type": "claim", "player": p, "visible": [], "returned": "never-won"})
        return out

    def after_finish(self) -> list[Obj]:
        return [{"type": "reveal", "card": "later", "items": ITEMS[:3]}]


# --- Pic Flip -------------------------------------------------------------------------------


@dataclass
class Laid:
    player: str
    card: str
    played: bool
    described: bool = False


class PicFlipPlayer(RandomPlayer):
    game = "picflip"

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.players = self.seats(2, 6)
        n = len(self.players)
        self.options: Obj = {}
        if rng.random() < 0.5:
            hands = {p: rng.randint(1, 6) for p in self.players}
            self.options["hands"] = hands
            self.left = dict(hands)
        else:
            deck = rng.randint(n + n % 2, 6 * n)
            self.options["deck_size"] = deck
            # Rulebook and CONTRACTS 1: one card aside with an odd number of players, the
            # rest dealt one by one from the first player.
            dealt = dict.fromkeys(self.players, 0)
            for i in range(deck - n % 2):
                dealt[self.players[i % n]] += 1
            self.left = dealt
        self.discarded = dict.fromkeys(self.players, 0)
        self.pile: list[Laid] = []
        self.fresh = 0
        self.stop_after_win: bool | None = None

    @property
    def start(self) -> Obj:
        return {"type": "start", "game": "picflip", "players": self.players, **self.options}

    def next_event(self) -> Obj | None:
        if self.finished:
            if not self.pile[-1].played:  # won by the lead: nothing to reject
                return None
            if self.stop_after_win is None:
                self.stop_after_win = self.rng.random() < 0.7
            if self.stop_after_win:
                return None
            return {"type": "reject"}
        if not self.pile:
            return {"type": "lead", "player": self.rng.choice(self.players), "card": self._card()}
        top_card = self.pile[-1]
        if not top_card.described:
            if top_card.played and self.rng.random() < 0.3:
                return {"type": "reject"}
            return {"type": "describe", "player": top_card.player, "phrase": "it has wheels"}
        if self.rng.random() < 0.05:  # a new description of the same card
            return {"type": "describe", "player": top_card.player, "phrase": "salty"}
        player = self.rng.choice([p for p in self.players if self.left[p] > 0])
        return {"type": "play", "player": player, "card": self._card()}

    def _card(self) -> str:
        self.fresh += 1
        return f"f{self.fresh}"

    def apply(self, obj: Obj) -> None:
        kind = obj["type"]
        if kind in ("lead", "play"):
            p = obj["player"]
            self.pile.append(Laid(p, obj["card"], kind == "play"))
            self.left[p] -= 1
            self.discarded[p] += 1
            if self.left[p] == 0:
                self.finished = True
                self.winners = [p]
        elif kind == "describe":
            self.pile[-1].described = True
        elif kind == "reject":
            laid = self.pile.pop()
            self.left[laid.player] += 1
            self.discarded[laid.player] -= 1
            self.finished = False
            self.winners = []
            self.stop_after_win = None

    def scores(self) -> dict[str, int]:
        return dict(self.discarded)

    def cards_left(self) -> dict[str, int]:
        return dict(self.left)

    def illegal(self) -> list[Obj]:
        p = self.rng.choice(self.players)
        out: list[Obj] = [
            {"type": "play", "player": NOT_A_PLAYER, "card": "zz"},
            {"type": "describe", "player": p, "phrase": ""},
            {"type": "reject", "card": "zz"},
        ]
        if not self.pile:
            out += [
                {"type": "describe", "player": p, "phrase": "red"},
                {"type": "play", "player": p, "card": "zz"},
                {"type": "reject"},
            ]
            return out
        top_card = self.pile[-1]
        out.append({"type": "lead", "player": p, "card": "zz"})
        others = [q for q in self.players if q != top_card.player]
        out.append({"type": "describe", "player": self.rng.choice(others), "phrase": "red"})
        if not top_card.described:
            out.append({"type": "play", "player": p, "card": "zz"})
        if top_card.described or not top_card.played:
            out.append({"type": "reject"})
        return out

    def after_finish(self) -> list[Obj]:
        winner = self.winners[0]
        return [{"type": "describe", "player": winner, "phrase": "done"}]


PLAYERS: dict[str, type[RandomPlayer]] = {
    cls.game: cls for cls in (PickPicPlayer, PicassoPlayer, PicmixPlayer, PicFlipPlayer)
}
