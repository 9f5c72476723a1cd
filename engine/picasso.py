"""Picasso: rulebook picasso.en.txt as CONTRACTS.md section 1 reads it (cost is what lies on
the board)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, ClassVar

from engine import rules
from engine.core import Game, State, top_scorers
from engine.errors import InvalidEvent
from engine.events import Event, EventKind, GameKind, Reader, Start, int_option


class Piece(StrEnum):
    LONG_STICK = "long_stick"
    SHORT_STICK = "short_stick"
    SHAPE = "shape"
    STRING = "string"


# Rulebook: "a short or long stick - 1 point, a geometric shape - 2 points, string - 3 points".
PIECE_COST: dict[Piece, int] = {
    Piece.LONG_STICK: 1,
    Piece.SHORT_STICK: 1,
    Piece.SHAPE: 2,
    Piece.STRING: 3,
}
#: Each piece's name in a sentence, (one, many): "1 long stick", "2 long sticks"; keyed by
#: the pieces' names in events (``Piece`` is a ``str``).
PIECE_NAMES: dict[str, tuple[str, str]] = {
    Piece.LONG_STICK: ("long stick", "long sticks"),
    Piece.SHORT_STICK: ("short stick", "short sticks"),
    Piece.SHAPE: ("shape", "shapes"),
    Piece.STRING: ("string", "strings"),
}
CARD_VALUE = 10  # rulebook: "Each card has an imaginary value of 10"
CARD_POINTS = 5  # rulebook: "a card worth 5 points"
# Bounds of the options: more is a mistake (a typo, a stray digit), not a game.
MAX_CARDS_PER_PLAYER = 100  # rounds; the rulebook starts with 3
MAX_KIT = 100  # pieces of a kind; the box has 5 of each stick, and 11 pieces already cost over 10
DEFAULT_KIT: dict[Piece, int | None] = {
    Piece.LONG_STICK: 5,
    Piece.SHORT_STICK: 5,
    Piece.STRING: 1,
    Piece.SHAPE: None,
}


def cost(pieces: Mapping[Piece, int]) -> int:
    """Cost of what lies on the board: a + b + 2c + 3d."""
    return sum(PIECE_COST[p] * n for p, n in pieces.items())


@dataclass(frozen=True, kw_only=True)
class Draw(Event):
    player: str
    card: str
    kind: ClassVar[EventKind] = EventKind.DRAW

    def _fields(self) -> dict[str, Any]:
        return {"player": self.player, "card": self.card}


@dataclass(frozen=True, kw_only=True)
class Build(Event):
    pieces: Mapping[Piece, int]
    kind: ClassVar[EventKind] = EventKind.BUILD

    @property
    def cost(self) -> int:
        return cost(self.pieces)

    def _fields(self) -> dict[str, Any]:
        return {"pieces": {p.value: n for p, n in self.pieces.items()}}


@dataclass(frozen=True, kw_only=True)
class Guess(Event):
    player: str
    kind: ClassVar[EventKind] = EventKind.GUESS

    def _fields(self) -> dict[str, Any]:
        return {"player": self.player}


@dataclass(frozen=True, kw_only=True)
class GiveUp(Event):
    kind: ClassVar[EventKind] = EventKind.GIVE_UP


@dataclass(frozen=True)
class Turn:
    """The turn in progress: who builds, the drawn card, what lies on the board now."""

    builder: str
    card: str
    pieces: Mapping[Piece, int] | None = None  # None: nothing built yet

    @property
    def cost(self) -> int:
        return cost(self.pieces) if self.pieces is not None else 0


@dataclass(frozen=True)
class TurnResult:
    builder: str
    card: str
    outcome: str  # "guessed", "lost" (over 10), "given_up"
    guesser: str | None = None
    builder_points: int = 0
    cost: int = 0


@dataclass(frozen=True)
class PicassoState(State):
    game: Picasso
    turn_index: int = 0  # turns completed
    turn: Turn | None = None
    points: dict[str, int] = field(default_factory=dict)
    cards: dict[str, tuple[str, ...]] = field(default_factory=dict)
    history: tuple[TurnResult, ...] = ()

    def builder(self) -> str:
        return self.game.players[self.turn_index % len(self.game.players)]


@dataclass(frozen=True)
class Picasso(Game):
    cards_per_player: int = 3
    kit: Mapping[Piece, int | None] = field(default_factory=lambda: dict(DEFAULT_KIT))

    kind: ClassVar[GameKind] = GameKind.PICASSO
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int | None] = None
    players_rule: ClassVar[rules.Rule] = rules.PC_PLAYERS

    @property
    def total_turns(self) -> int:
        return len(self.players) * self.cards_per_player

    @classmethod
    def from_start(cls, start: Start) -> Picasso:
        cls.check_players(start)
        cls.check_options(start, ["cards_per_player", "kit"], rules.PC_OPTIONS)
        obj = start.to_json()
        cpp = 3
        if "cards_per_player" in start.options:
            cpp = int_option(
                start.options["cards_per_player"],
                "cards_per_player",
                minimum=1,
                maximum=MAX_CARDS_PER_PLAYER,
                obj=obj,
                rule=rules.PC_OPTIONS,
                max_rule=rules.PC_CARDS_MAX,
            )
        kit = dict(DEFAULT_KIT)
        if "kit" in start.options:
            raw = start.options["kit"]
            if not isinstance(raw, dict):
                raise InvalidEvent(
                    'option "kit" must be an object', event=obj, rule=str(rules.PC_KIT)
                )
            for key, value in raw.items():
                try:
                    piece = Piece(key)
                except ValueError:
                    known = ", ".join(p.value for p in Piece)
                    raise InvalidEvent(
                        f'unknown piece "{key}" in "kit" (pieces: {known})',
                        event=obj,
                        rule=f"{rules.LOG_UNKNOWN_KEY}; {rules.PC_KIT}",
                    ) from None
                if value is None:
                    kit[piece] = None
                else:
                    kit[piece] = int_option(
                        value,
                        f"kit.{key}",
                        minimum=0,
                        maximum=MAX_KIT,
                        obj=obj,
                        rule=rules.PC_KIT,
                        max_rule=rules.PC_KIT_MAX,
                    )
        return cls(players=start.players, cards_per_player=cpp, kit=kit)

    def initial_state(self) -> PicassoState:
        return PicassoState(
            game=self,
            points={p: 0 for p in self.players},
            cards={p: () for p in self.players},
        )

    def parse(self, reader: Reader) -> Event:
        common = reader.common()
        event: Event
        if reader.type == "draw":
            event = Draw(player=reader.player("player"), card=reader.card("card"), **common)
        elif reader.type == "build":
            event = Build(pieces=self._parse_pieces(reader), **common)
        elif reader.type == "guess":
            event = Guess(player=reader.player("player"), **common)
        elif reader.type == "give_up":
            event = GiveUp(**common)
        else:
            raise reader.fail(
                f'"{reader.type}" is not a Picasso event (draw, build, guess, give_up)',
                rules.LOG_UNKNOWN_TYPE,
            )
        reader.done()
        return event

    @staticmethod
    def _parse_pieces(reader: Reader) -> dict[Piece, int]:
        raw = reader.raw("pieces", required=True)
        if not isinstance(raw, dict):
            raise reader.fail('"pieces" must be an object of piece counts')
        pieces = {p: 0 for p in Piece}
        for key, value in raw.items():
            try:
                piece = Piece(key)
            except ValueError:
                known = ", ".join(p.value for p in Piece)
                raise reader.fail(
                    f'unknown piece "{key}" in "pieces" (pieces: {known})', rules.LOG_UNKNOWN_KEY
                ) from None
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise reader.fail(f'"pieces.{key}" must be a whole number, 0 or more')
            pieces[piece] = value
        return pieces

    def scores(self, state: PicassoState) -> dict[str, int]:
        return {p: state.points[p] + CARD_POINTS * len(state.cards[p]) for p in self.players}

    def extra_summary(self, state: PicassoState) -> dict[str, Any]:
        turn = state.turn
        return {
            "points": dict(state.points),
            "cards_held": {p: len(c) for p, c in state.cards.items()},
            "turn": state.turn_index + 1 if not state.finished else None,
            "turns": self.total_turns,
            "builder": state.builder() if not state.finished else None,
            "card": turn.card if turn else None,
            "cost": turn.cost if turn else None,
        }

    def step(self, state: PicassoState, event: Event) -> PicassoState:
        self.not_finished(state, event)
        if isinstance(event, Draw):
            return self._draw(state, event)
        turn = state.turn
        if turn is None:
            raise self.illegal(
                event,
                f"no card is drawn: {state.builder()} must draw first",
                rules.PC_NO_TURN,
            )
        if isinstance(event, Build):
            return self._build(state, turn, event)
        if isinstance(event, Guess):
            return self._guess(state, turn, event)
        if isinstance(event, GiveUp):
            return self._end_turn(
                state, TurnResult(turn.builder, turn.card, "given_up", cost=turn.cost)
            )
        raise self.illegal(event, "not a Picasso event", rules.LOG_UNKNOWN_TYPE)

    def _draw(self, state: PicassoState, event: Draw) -> PicassoState:
        self.seated(event, event.player)
        if state.turn is not None:
            raise self.illegal(
                event,
                f"{state.turn.builder} is still building {state.turn.card!r}",
                rules.PC_TURN,
            )
        builder = state.builder()
        if event.player != builder:
            raise self.illegal(
                event,
                f"it is {builder}'s turn to build "
                f"(turn {state.turn_index + 1} of {self.total_turns})",
                rules.PC_TURN,
            )
        return replace(state, turn=Turn(builder=builder, card=event.card))

    def _build(self, state: PicassoState, turn: Turn, event: Build) -> PicassoState:
        for piece, n in event.pieces.items():
            cap = self.kit.get(piece)
            if cap is not None and n > cap:
                raise self.illegal(
                    event, f"the kit has {cap} {piece.value} but the board shows {n}", rules.PC_KIT
                )
        if event.cost > CARD_VALUE:
            # Rulebook: over 10 the card is lost at once; the turn ends, nobody scores.
            return self._end_turn(
                state, TurnResult(turn.builder, turn.card, "lost", cost=event.cost)
            )
        return replace(state, turn=replace(turn, pieces=dict(event.pieces)))

    def _guess(self, state: PicassoState, turn: Turn, event: Guess) -> PicassoState:
        self.seated(event, event.player)
        if event.player == turn.builder:
            raise self.illegal(
                event, f"{turn.builder} is the builder and cannot guess", rules.PC_GUESSER
            )
        gained = CARD_VALUE - turn.cost
        result = TurnResult(
            turn.builder,
            turn.card,
            "guessed",
            guesser=event.player,
            builder_points=gained,
            cost=turn.cost,
        )
        after = replace(
            state,
            points={**state.points, turn.builder: state.points[turn.builder] + gained},
            cards={**state.cards, event.player: (*state.cards[event.player], turn.card)},
        )
        return self._end_turn(after, result)

    def _end_turn(self, state: PicassoState, result: TurnResult) -> PicassoState:
        done = state.turn_index + 1
        finished = done >= self.total_turns
        after = replace(state, turn_index=done, turn=None, history=(*state.history, result))
        if finished:
            after = replace(after, finished=True, winners=top_scorers(self.scores(after)))
        return after
