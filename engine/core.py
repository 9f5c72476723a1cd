"""What every game shares: ``Game`` (fixed rules and options), ``State`` (frozen), the checks."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from engine import rules
from engine.errors import IllegalEvent, InvalidEvent
from engine.events import Event, GameKind, Reader, Start


@dataclass(frozen=True)
class State:
    """The state of one game after some events. Never mutated: ``apply`` returns a new one."""

    game: Game
    finished: bool = False
    winners: tuple[str, ...] = ()

    def scores(self) -> dict[str, int]:
        return self.game.scores(self)

    def summary(self) -> dict[str, Any]:
        """The JSON object of ``pictable replay --json`` (CONTRACTS 2)."""
        return self.game.summary(self)


@dataclass(frozen=True)
class Game(ABC):
    """The fixed rules and options of one game, and the one way forward, ``apply``."""

    players: tuple[str, ...]

    kind: ClassVar[GameKind]
    min_players: ClassVar[int]
    max_players: ClassVar[int | None]
    players_rule: ClassVar[rules.Rule]

    @classmethod
    @abstractmethod
    def from_start(cls, start: Start) -> Game:
        """The game a ``start`` event sets up; raises ``InvalidEvent`` on bad options."""

    @abstractmethod
    def initial_state(self) -> State: ...

    @abstractmethod
    def parse(self, reader: Reader) -> Event:
        """This game's event from a raw object (``type`` already read)."""

    @abstractmethod
    def step(self, state: Any, event: Any) -> State:
        """The state after ``event``; raises ``IllegalEvent`` and leaves ``state`` as it was."""

    @abstractmethod
    def scores(self, state: Any) -> dict[str, int]: ...

    def extra_summary(self, state: Any) -> dict[str, Any]:
        return {}

    def summary(self, state: State) -> dict[str, Any]:
        out: dict[str, Any] = {
            "game": self.kind.value,
            "players": list(self.players),
            "scores": self.scores(state),
            "finished": state.finished,
            "winners": list(state.winners),
        }
        out.update(self.extra_summary(state))
        return out

    # Helpers for the games.

    @classmethod
    def check_players(cls, start: Start) -> None:
        n = len(start.players)
        too_few = n < cls.min_players
        too_many = cls.max_players is not None and n > cls.max_players
        if too_few or too_many:
            span = (
                f"{cls.min_players} to {cls.max_players}"
                if cls.max_players is not None
                else f"at least {cls.min_players}"
            )
            raise InvalidEvent(
                f"{cls.kind.value} is for {span} players, got {n}",
                event=start.to_json(),
                rule=str(cls.players_rule),
            )

    @staticmethod
    def check_options(start: Start, known: Iterable[str], rule: rules.Rule) -> None:
        unknown = [k for k in start.options if k not in set(known)]
        if unknown:
            names = ", ".join(f'"{k}"' for k in unknown)
            raise InvalidEvent(
                f"unknown key {names} in start of {start.game.value}",
                event=start.to_json(),
                rule=f"{rules.LOG_UNKNOWN_KEY}; {rule}",
            )

    def seated(self, event: Event, player: str) -> None:
        if player not in self.players:
            seats = ", ".join(self.players)
            raise IllegalEvent(
                f"{player!r} is not a player (players: {seats})",
                event=event.to_json(),
                rule=str(rules.LOG_PLAYER),
            )

    @staticmethod
    def illegal(event: Event, reason: str, rule: rules.Rule) -> IllegalEvent:
        return IllegalEvent(reason, event=event.to_json(), rule=str(rule))

    @staticmethod
    def not_finished(state: State, event: Event) -> None:
        if state.finished:
            won = ", ".join(state.winners) or "nobody"
            raise IllegalEvent(
                f"the game is finished (won by {won})",
                event=event.to_json(),
                rule=str(rules.LOG_FINISHED),
            )


def top_scorers(totals: Mapping[str, int]) -> tuple[str, ...]:
    """Everyone with the highest total, in seating order (ties share the victory)."""
    if not totals:
        return ()
    best = max(totals.values())
    return tuple(p for p, v in totals.items() if v == best)
