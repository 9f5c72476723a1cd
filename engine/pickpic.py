"""Pick Pic: rulebook pick-pic.en.txt with its French FAQ, as CONTRACTS.md section 1 reads it."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from engine import rules
from engine.core import Game, State, top_scorers
from engine.events import Event, EventKind, GameKind, Reader, Start, int_option

# Rulebook: "The first player to reach 20 points will win"; a target above five times that is
# a mistake (a stray digit), not a game.
MAX_TARGET = 100


@dataclass(frozen=True, kw_only=True)
class Reveal(Event):
    player: str
    card: str
    kind: ClassVar[EventKind] = EventKind.REVEAL

    def _fields(self) -> dict[str, Any]:
        return {"player": self.player, "card": self.card}


@dataclass(frozen=True, kw_only=True)
class Give(Event):
    giver: str
    to: str
    card: str
    kind: ClassVar[EventKind] = EventKind.GIVE

    def _fields(self) -> dict[str, Any]:
        return {"from": self.giver, "to": self.to, "card": self.card}


@dataclass(frozen=True, kw_only=True)
class Random(Event):
    to: str
    card: str
    kind: ClassVar[EventKind] = EventKind.RANDOM

    def _fields(self) -> dict[str, Any]:
        return {"to": self.to, "card": self.card}


@dataclass(frozen=True, kw_only=True)
class Rank(Event):
    player: str
    order: tuple[str, ...]
    kind: ClassVar[EventKind] = EventKind.RANK

    def _fields(self) -> dict[str, Any]:
        return {"player": self.player, "order": list(self.order)}


PickPicEvent = Reveal | Give | Random | Rank


def score_ranking(
    ranker: str, order: tuple[str, ...], givers: dict[str, str], random_card: str
) -> dict[str, int]:
    """Points one ranking awards (rulebook 4 "Evaluate scores" and the FAQ).

    ``givers`` maps each given card of the stack to its giver. Walk from the first card and
    stop at the random card: each card before it scores 1 for its giver and 1 for the ranker;
    the giver of the first card scores 1 more; the random card last gives the ranker 1 more.
    """
    points: dict[str, int] = {}

    def add(player: str, n: int) -> None:
        points[player] = points.get(player, 0) + n

    for position, card in enumerate(order):
        if card == random_card:
            break
        add(givers[card], 2 if position == 0 else 1)
        add(ranker, 1)
    if order and order[-1] == random_card:
        add(ranker, 1)
    return points


def cards_per_opponent(n_players: int) -> int:
    """Cards each player gives each opponent in a round: two with 3 players, else one."""
    if not 3 <= n_players <= 5:
        raise ValueError(f"Pick Pic is for 3 to 5 players, got {n_players}")
    return 2 if n_players == 3 else 1


def give_calls(players: list[str]) -> list[tuple[str, str]]:
    """The (giver, receiver) calls of one round, in the order the assistant calls the players
    to give: everybody gives to the next player on their left, then to the one after, ...;
    with 3 players the whole turn twice, the second time starting with the second player.

    Shared by the Pick Pic follower (which calls the players in this order and expects the
    cards in it) and the synthetic camera (whose players follow the calls). Consecutive calls
    have different givers and different receivers, so a card laid by the wrong player (or at
    the wrong place) shows at once.
    """
    n = len(players)
    per = cards_per_opponent(n)
    calls: list[tuple[str, str]] = []
    for rep in range(per):
        order = players[rep:] + players[:rep]
        calls += [(order[i], order[(i + k) % n]) for k in range(1, n) for i in range(n)]
    return calls


@dataclass(frozen=True)
class PickPicState(State):
    game: PickPic
    round: int = 1
    points: dict[str, int] = field(default_factory=dict)
    revealed: dict[str, str] = field(default_factory=dict)
    gives: tuple[tuple[str, str, str], ...] = ()  # (giver, receiver, card)
    randoms: dict[str, str] = field(default_factory=dict)
    ranks: dict[str, tuple[str, ...]] = field(default_factory=dict)
    last_round: dict[str, int] = field(default_factory=dict)

    def cards_this_round(self) -> set[str]:
        cards = set(self.revealed.values()) | {c for _, _, c in self.gives}
        return cards | set(self.randoms.values())

    def received(self, player: str) -> list[str]:
        return [c for _, to, c in self.gives if to == player]

    def phase(self) -> str:
        if len(self.revealed) < len(self.game.players):
            return "reveal"
        if len(self.gives) < self.game.gives_per_round:
            return "give"
        if len(self.randoms) < len(self.game.players):
            return "random"
        return "rank"


@dataclass(frozen=True)
class PickPic(Game):
    target: int = 20

    kind: ClassVar[GameKind] = GameKind.PICKPIC
    min_players: ClassVar[int] = 3
    max_players: ClassVar[int | None] = 5
    players_rule: ClassVar[rules.Rule] = rules.PP_PLAYERS

    @property
    def cards_per_opponent(self) -> int:
        """Rulebook "3-player game": 2 cards to each opponent; otherwise exactly one."""
        return 2 if len(self.players) == 3 else 1

    @property
    def gives_per_round(self) -> int:
        n = len(self.players)
        return n * (n - 1) * self.cards_per_opponent

    @property
    def stack_size(self) -> int:
        return (len(self.players) - 1) * self.cards_per_opponent + 1

    @classmethod
    def from_start(cls, start: Start) -> PickPic:
        cls.check_players(start)
        cls.check_options(start, ["target"], rules.PP_TARGET)
        target = 20
        if "target" in start.options:
            target = int_option(
                start.options["target"],
                "target",
                minimum=1,
                maximum=MAX_TARGET,
                obj=start.to_json(),
                rule=rules.PP_TARGET,
                max_rule=rules.PP_TARGET_MAX,
            )
        return cls(players=start.players, target=target)

    def initial_state(self) -> PickPicState:
        return PickPicState(game=self, points={p: 0 for p in self.players})

    def parse(self, reader: Reader) -> Event:
        common = reader.common()
        event: Event
        if reader.type == "reveal":
            event = Reveal(player=reader.player("player"), card=reader.card("card"), **common)
        elif reader.type == "give":
            event = Give(
                giver=reader.player("from"),
                to=reader.player("to"),
                card=reader.card("card"),
                **common,
            )
        elif reader.type == "random":
            event = Random(to=reader.player("to"), card=reader.card("card"), **common)
        elif reader.type == "rank":
            event = Rank(player=reader.player("player"), order=reader.names("order"), **common)
        else:
            raise reader.fail(
                f'"{reader.type}" is not a Pick Pic event (reveal, give, random, rank)',
                rules.LOG_UNKNOWN_TYPE,
            )
        reader.done()
        return event

    def scores(self, state: PickPicState) -> dict[str, int]:
        return dict(state.points)

    def extra_summary(self, state: PickPicState) -> dict[str, Any]:
        return {
            "round": state.round,
            "phase": state.phase() if not state.finished else "finished",
            "target": self.target,
            "last_round_points": dict(state.last_round),
        }

    def step(self, state: PickPicState, event: Event) -> PickPicState:
        self.not_finished(state, event)
        if isinstance(event, Reveal):
            return self._reveal(state, event)
        if isinstance(event, Give):
            return self._give(state, event)
        if isinstance(event, Random):
            return self._random(state, event)
        if isinstance(event, Rank):
            return self._rank(state, event)
        raise self.illegal(event, "not a Pick Pic event", rules.LOG_UNKNOWN_TYPE)

    def _card_unused(self, state: PickPicState, event: Event, card: str) -> None:
        if card in state.cards_this_round():
            raise self.illegal(
                event, f"card {card!r} already appeared in round {state.round}", rules.PP_CARD_ONCE
            )

    def _reveal(self, state: PickPicState, event: Reveal) -> PickPicState:
        self.seated(event, event.player)
        if state.phase() != "reveal":
            raise self.illegal(
                event, f"every reference is already revealed in round {state.round}", rules.PP_ORDER
            )
        if event.player in state.revealed:
            raise self.illegal(
                event,
                f"{event.player} already revealed {state.revealed[event.player]!r} this round",
                rules.PP_REVEAL,
            )
        self._card_unused(state, event, event.card)
        return replace(state, revealed={**state.revealed, event.player: event.card})

    def _give(self, state: PickPicState, event: Give) -> PickPicState:
        self.seated(event, event.giver)
        self.seated(event, event.to)
        if event.giver == event.to:
            raise self.illegal(
                event, f"{event.giver} cannot give a card to themselves", rules.PP_GIVE_SELF
            )
        if state.phase() == "reveal":
            missing = [p for p in self.players if p not in state.revealed]
            raise self.illegal(
                event,
                "cards are given after every reference is revealed "
                f"(waiting for {', '.join(missing)})",
                rules.PP_ORDER,
            )
        already = sum(1 for g, t, _ in state.gives if g == event.giver and t == event.to)
        if already >= self.cards_per_opponent:
            each = "two cards" if self.cards_per_opponent == 2 else "one card"
            raise self.illegal(
                event,
                f"{event.giver} already gave {event.to} {each} this round "
                f"(with {len(self.players)} players each gives {each} to each opponent)",
                rules.PP_GIVE_COUNT,
            )
        self._card_unused(state, event, event.card)
        return replace(state, gives=(*state.gives, (event.giver, event.to, event.card)))

    def _random(self, state: PickPicState, event: Random) -> PickPicState:
        self.seated(event, event.to)
        if event.to in state.randoms:
            raise self.illegal(
                event, f"{event.to} already has a random card this round", rules.PP_RANDOM_ONCE
            )
        expected = (len(self.players) - 1) * self.cards_per_opponent
        got = len(state.received(event.to))
        if state.phase() == "reveal" or got < expected:
            raise self.illegal(
                event,
                f"{event.to} has received {got} of {expected} cards; the random card comes after",
                rules.PP_RANDOM_WHEN,
            )
        self._card_unused(state, event, event.card)
        return replace(state, randoms={**state.randoms, event.to: event.card})

    def _rank(self, state: PickPicState, event: Rank) -> PickPicState:
        self.seated(event, event.player)
        player = event.player
        if player in state.ranks:
            raise self.illegal(event, f"{player} already ranked this round", rules.PP_RANK_ONCE)
        if player not in state.randoms:
            raise self.illegal(
                event, f"{player}'s stack is not complete: no random card yet", rules.PP_RANK_WHEN
            )
        stack = [*state.received(player), state.randoms[player]]
        if len(set(event.order)) != len(event.order):
            raise self.illegal(event, "a card appears twice in the ranking", rules.PP_RANK_STACK)
        if set(event.order) != set(stack):
            missing = sorted(set(stack) - set(event.order))
            extra = sorted(set(event.order) - set(stack))
            parts = []
            if missing:
                parts.append(f"missing {missing}")
            if extra:
                parts.append(f"not in the stack {extra}")
            raise self.illegal(
                event,
                f"the ranking must be {player}'s whole stack of {len(stack)}: {'; '.join(parts)}",
                rules.PP_RANK_STACK,
            )
        ranks = {**state.ranks, player: event.order}
        if len(ranks) < len(self.players):
            return replace(state, ranks=ranks)
        return self._end_round(state, ranks)

    def _end_round(self, state: PickPicState, ranks: dict[str, tuple[str, ...]]) -> PickPicState:
        givers = {card: giver for giver, _, card in state.gives}
        round_points = {p: 0 for p in self.players}
        for ranker in self.players:
            for p, n in score_ranking(ranker, ranks[ranker], givers, state.randoms[ranker]).items():
                round_points[p] += n
        totals = {p: state.points[p] + round_points[p] for p in self.players}
        finished = any(v >= self.target for v in totals.values())
        return PickPicState(
            game=self,
            round=state.round + (0 if finished else 1),
            points=totals,
            last_round=round_points,
            finished=finished,
            winners=top_scorers(totals) if finished else (),
        )
