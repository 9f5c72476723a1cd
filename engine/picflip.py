"""Pic Flip: rulebook pic-flip.en.txt as CONTRACTS.md section 1 reads it (the uneven deal)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from engine import rules
from engine.core import Game, State
from engine.errors import InvalidEvent
from engine.events import Event, EventKind, GameKind, Reader, Start, int_option


@dataclass(frozen=True, kw_only=True)
class Lead(Event):
    player: str
    card: str
    kind: ClassVar[EventKind] = EventKind.LEAD

    def _fields(self) -> dict[str, Any]:
        return {"player": self.player, "card": self.card}


@dataclass(frozen=True, kw_only=True)
class Describe(Event):
    player: str
    phrase: str
    kind: ClassVar[EventKind] = EventKind.DESCRIBE

    def _fields(self) -> dict[str, Any]:
        return {"player": self.player, "phrase": self.phrase}


@dataclass(frozen=True, kw_only=True)
class Play(Event):
    player: str
    card: str
    kind: ClassVar[EventKind] = EventKind.PLAY

    def _fields(self) -> dict[str, Any]:
        return {"player": self.player, "card": self.card}


@dataclass(frozen=True, kw_only=True)
class Reject(Event):
    kind: ClassVar[EventKind] = EventKind.REJECT


@dataclass(frozen=True)
class PileCard:
    player: str
    card: str
    played: bool  # laid by a play (rejectable until described), not the lead
    phrase: str | None = None  # the description called for it, once called


MAX_DECK = 104  # rulebook "Contents": "104 Playing Cards"


def deal(deck_size: int, n_players: int) -> list[int]:
    """Starting counts: with an odd number of players one card is set aside, the rest is
    dealt as evenly as possible, earlier players first (CONTRACTS 1 Pic Flip)."""
    cards = deck_size - (1 if n_players % 2 == 1 else 0)
    base, extra = divmod(max(cards, 0), n_players)
    return [base + (1 if i < extra else 0) for i in range(n_players)]


@dataclass(frozen=True)
class PicFlipState(State):
    game: PicFlip
    cards_left: dict[str, int] = field(default_factory=dict)
    discarded: dict[str, int] = field(default_factory=dict)
    pile: tuple[PileCard, ...] = ()

    @property
    def top(self) -> PileCard | None:
        return self.pile[-1] if self.pile else None


@dataclass(frozen=True)
class PicFlip(Game):
    deck_size: int = 104
    hands: dict[str, int] = field(default_factory=dict)

    kind: ClassVar[GameKind] = GameKind.PICFLIP
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int | None] = 6
    players_rule: ClassVar[rules.Rule] = rules.PF_PLAYERS

    @classmethod
    def from_start(cls, start: Start) -> PicFlip:
        cls.check_players(start)
        cls.check_options(start, ["deck_size", "hands"], rules.PF_DEAL)
        obj = start.to_json()
        deck_size = 104
        if "deck_size" in start.options:
            deck_size = int_option(
                start.options["deck_size"],
                "deck_size",
                minimum=1,
                maximum=MAX_DECK,
                obj=obj,
                rule=rules.PF_DEAL,
                max_rule=rules.PF_DECK_MAX,
            )
        if "hands" in start.options:
            raw = start.options["hands"]
            if not isinstance(raw, dict):
                raise InvalidEvent(
                    'option "hands" must be an object', event=obj, rule=str(rules.PF_DEAL)
                )
            if set(raw) != set(start.players):
                raise InvalidEvent(
                    '"hands" must give a count for every player and no one else',
                    event=obj,
                    rule=str(rules.PF_DEAL),
                )
            hands = {
                p: int_option(
                    raw[p],
                    f"hands.{p}",
                    minimum=1,
                    maximum=MAX_DECK,
                    obj=obj,
                    rule=rules.PF_DEAL,
                    max_rule=rules.PF_DECK_MAX,
                )
                for p in start.players
            }
            if sum(hands.values()) > MAX_DECK:
                raise InvalidEvent(
                    f'the "hands" hold {sum(hands.values())} cards in all, more than a deck '
                    f"of {MAX_DECK}",
                    event=obj,
                    rule=str(rules.PF_DECK_MAX),
                )
        else:
            counts = deal(deck_size, len(start.players))
            if min(counts) < 1:
                raise InvalidEvent(
                    f"a deck of {deck_size} cannot deal every player a card",
                    event=obj,
                    rule=str(rules.PF_DEAL),
                )
            hands = dict(zip(start.players, counts, strict=True))
        return cls(players=start.players, deck_size=deck_size, hands=hands)

    def initial_state(self) -> PicFlipState:
        return PicFlipState(
            game=self, cards_left=dict(self.hands), discarded={p: 0 for p in self.players}
        )

    def parse(self, reader: Reader) -> Event:
        common = reader.common()
        event: Event
        if reader.type == "lead":
            event = Lead(player=reader.player("player"), card=reader.card("card"), **common)
        elif reader.type == "describe":
            event = Describe(player=reader.player("player"), phrase=reader.text("phrase"), **common)
        elif reader.type == "play":
            event = Play(player=reader.player("player"), card=reader.card("card"), **common)
        elif reader.type == "reject":
            event = Reject(**common)
        else:
            raise reader.fail(
                f'"{reader.type}" is not a Pic Flip event (lead, describe, play, reject)',
                rules.LOG_UNKNOWN_TYPE,
            )
        reader.done()
        return event

    def scores(self, state: PicFlipState) -> dict[str, int]:
        return dict(state.discarded)

    def extra_summary(self, state: PicFlipState) -> dict[str, Any]:
        top = state.top
        return {
            "cards_left": dict(state.cards_left),
            "pile": len(state.pile),
            "top": (
                {"player": top.player, "card": top.card, "phrase": top.phrase} if top else None
            ),
        }

    def step(self, state: PicFlipState, event: Event) -> PicFlipState:
        if isinstance(event, Reject):
            return self._reject(state, event)
        self.not_finished(state, event)
        if isinstance(event, Lead):
            return self._lead(state, event)
        if state.top is None:
            raise self.illegal(event, "the game starts with a lead", rules.PF_LEAD)
        if isinstance(event, Describe):
            return self._describe(state, state.top, event)
        if isinstance(event, Play):
            return self._play(state, state.top, event)
        raise self.illegal(event, "not a Pic Flip event", rules.LOG_UNKNOWN_TYPE)

    def _lay(self, state: PicFlipState, event: Lead | Play, played: bool) -> PicFlipState:
        self.seated(event, event.player)
        player = event.player
        if state.cards_left[player] < 1:
            raise self.illegal(event, f"{player} has no cards left", rules.PF_NO_CARDS)
        left = state.cards_left[player] - 1
        after = replace(
            state,
            cards_left={**state.cards_left, player: left},
            discarded={**state.discarded, player: state.discarded[player] + 1},
            pile=(*state.pile, PileCard(player, event.card, played)),
        )
        if left == 0:
            # A play that empties a deck wins, unless a reject of that very play follows.
            after = replace(after, finished=True, winners=(player,))
        return after

    def _lead(self, state: PicFlipState, event: Lead) -> PicFlipState:
        if state.pile:
            raise self.illegal(event, "the game has already been led", rules.PF_LEAD)
        return self._lay(state, event, played=False)

    def _describe(self, state: PicFlipState, top: PileCard, event: Describe) -> PicFlipState:
        self.seated(event, event.player)
        if event.player != top.player:
            raise self.illegal(
                event,
                f"only {top.player}, whose card {top.card!r} is on top of the pile, describes",
                rules.PF_DESCRIBE,
            )
        return replace(state, pile=(*state.pile[:-1], replace(top, phrase=event.phrase)))

    def _play(self, state: PicFlipState, top: PileCard, event: Play) -> PicFlipState:
        if top.phrase is None:
            raise self.illegal(
                event,
                f"{top.player} has not described the top card {top.card!r} yet",
                rules.PF_PLAY_WHEN,
            )
        return self._lay(state, event, played=True)

    def _reject(self, state: PicFlipState, event: Reject) -> PicFlipState:
        top = state.top
        if top is None or not top.played:
            raise self.illegal(event, "there is no play to reject", rules.PF_REJECT)
        if top.phrase is not None:
            raise self.illegal(
                event,
                f"the play of {top.card!r} was accepted: {top.player} already described it",
                rules.PF_REJECT,
            )
        return replace(
            state,
            cards_left={**state.cards_left, top.player: state.cards_left[top.player] + 1},
            discarded={**state.discarded, top.player: state.discarded[top.player] - 1},
            pile=state.pile[:-1],
            finished=False,
            winners=(),
        )
