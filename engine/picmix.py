"""Picmix: rulebook picmix.en.txt as CONTRACTS.md section 1 reads it (a round ends after any
claim)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from engine import rules
from engine.core import Game, State
from engine.errors import InvalidEvent
from engine.events import Event, EventKind, GameKind, Reader, Start, int_option


@dataclass(frozen=True, kw_only=True)
class Reveal(Event):
    card: str
    items: tuple[str, ...]
    kind: ClassVar[EventKind] = EventKind.REVEAL

    def _fields(self) -> dict[str, Any]:
        return {"card": self.card, "items": list(self.items)}


@dataclass(frozen=True, kw_only=True)
class Claim(Event):
    player: str
    visible: tuple[str, ...]
    returned: str | None = None
    kind: ClassVar[EventKind] = EventKind.CLAIM

    def _fields(self) -> dict[str, Any]:
        out: dict[str, Any] = {"player": self.player, "visible": list(self.visible)}
        if self.returned is not None:
            out["returned"] = self.returned
        return out


@dataclass(frozen=True)
class Objective:
    card: str
    items: frozenset[str]


@dataclass(frozen=True)
class ClaimResult:
    player: str
    card: str
    correct: bool
    missing: tuple[str, ...]
    extra: tuple[str, ...]
    returned: str | None = None


@dataclass(frozen=True)
class PicmixState(State):
    game: Picmix
    objective: Objective | None = None
    won: dict[str, tuple[str, ...]] = field(default_factory=dict)  # in the order won
    pile_bottom: tuple[str, ...] = ()  # cards put under the pile, in order
    last_claim: ClaimResult | None = None
    rounds: int = 0


MAX_TARGET = 25  # rulebook "Contents": "25 Objective cards": nobody can win more


@dataclass(frozen=True)
class Picmix(Game):
    target: int = 5
    three_items_only: bool = False

    kind: ClassVar[GameKind] = GameKind.PICMIX
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int | None] = 6
    players_rule: ClassVar[rules.Rule] = rules.PM_PLAYERS

    @classmethod
    def from_start(cls, start: Start) -> Picmix:
        cls.check_players(start)
        cls.check_options(start, ["target", "three_items_only"], rules.PM_OPTIONS)
        obj = start.to_json()
        target = 5
        if "target" in start.options:
            target = int_option(
                start.options["target"],
                "target",
                minimum=1,
                maximum=MAX_TARGET,
                obj=obj,
                rule=rules.PM_OPTIONS,
                max_rule=rules.PM_TARGET_MAX,
            )
        three = start.options.get("three_items_only", False)
        if not isinstance(three, bool):
            raise InvalidEvent(
                'option "three_items_only" must be true or false',
                event=obj,
                rule=str(rules.PM_THREE),
            )
        return cls(players=start.players, target=target, three_items_only=three)

    def initial_state(self) -> PicmixState:
        return PicmixState(game=self, won={p: () for p in self.players})

    def parse(self, reader: Reader) -> Event:
        common = reader.common()
        event: Event
        if reader.type == "reveal":
            event = Reveal(
                card=reader.card("card"), items=reader.names("items", "item names"), **common
            )
        elif reader.type == "claim":
            event = Claim(
                player=reader.player("player"),
                visible=reader.names("visible", "item names"),
                returned=reader.optional_card("returned"),
                **common,
            )
        else:
            raise reader.fail(
                f'"{reader.type}" is not a Picmix event (reveal, claim)', rules.LOG_UNKNOWN_TYPE
            )
        reader.done()
        return event

    def scores(self, state: PicmixState) -> dict[str, int]:
        return {p: len(state.won[p]) for p in self.players}

    def extra_summary(self, state: PicmixState) -> dict[str, Any]:
        objective = state.objective
        last = state.last_claim
        return {
            "target": self.target,
            "objective": (
                {"card": objective.card, "items": sorted(objective.items)} if objective else None
            ),
            "won": {p: list(c) for p, c in state.won.items()},
            "pile_bottom": list(state.pile_bottom),
            "last_claim": (
                {
                    "player": last.player,
                    "card": last.card,
                    "correct": last.correct,
                    "missing": list(last.missing),
                    "extra": list(last.extra),
                    "returned": last.returned,
                }
                if last
                else None
            ),
        }

    def step(self, state: PicmixState, event: Event) -> PicmixState:
        self.not_finished(state, event)
        if isinstance(event, Reveal):
            return self._reveal(state, event)
        if isinstance(event, Claim):
            return self._claim(state, event)
        raise self.illegal(event, "not a Picmix event", rules.LOG_UNKNOWN_TYPE)

    def _reveal(self, state: PicmixState, event: Reveal) -> PicmixState:
        if state.objective is not None:
            raise self.illegal(
                event,
                f"objective {state.objective.card!r} is still open: a claim ends the round first",
                rules.PM_REVEAL_WHEN,
            )
        items = frozenset(event.items)
        if len(items) != len(event.items):
            raise self.illegal(event, "an objective's items must be distinct", rules.PM_ITEMS)
        if self.three_items_only and len(items) != 3:
            raise self.illegal(
                event,
                f"the beginners' variant uses only 3-item objectives, got {len(items)}",
                rules.PM_THREE,
            )
        if len(items) not in (3, 4):
            raise self.illegal(
                event, f"an objective shows 3 or 4 items, got {len(items)}", rules.PM_ITEMS
            )
        return replace(state, objective=Objective(event.card, items))

    def _claim(self, state: PicmixState, event: Claim) -> PicmixState:
        self.seated(event, event.player)
        objective = state.objective
        if objective is None:
            raise self.illegal(event, "no objective is open: reveal one first", rules.PM_CLAIM_WHEN)
        player = event.player
        visible = frozenset(event.visible)
        won = state.won[player]
        if visible == objective.items:
            # A correct claim returns nothing: a "returned" key on it has no effect.
            now = (*won, objective.card)
            finished = len(now) >= self.target
            return replace(
                state,
                objective=None,
                won={**state.won, player: now},
                last_claim=ClaimResult(player, objective.card, True, (), ()),
                rounds=state.rounds + 1,
                finished=finished,
                winners=(player,) if finished else (),
            )
        returned: str | None = None
        if event.returned is not None:
            if event.returned not in won:
                held = ", ".join(won) or "none"
                raise self.illegal(
                    event,
                    f"{player} has not won {event.returned!r} (won: {held})",
                    rules.PM_RETURNED,
                )
            returned = event.returned
        elif won:
            returned = won[-1]  # the most recently won
        kept = tuple(c for c in won if c != returned) if returned is not None else won
        bottom = (
            *state.pile_bottom,
            *((returned,) if returned is not None else ()),
            objective.card,
        )
        return replace(
            state,
            objective=None,
            won={**state.won, player: kept},
            pile_bottom=bottom,
            last_claim=ClaimResult(
                player,
                objective.card,
                False,
                tuple(sorted(objective.items - visible)),
                tuple(sorted(visible - objective.items)),
                returned,
            ),
            rounds=state.rounds + 1,
        )
