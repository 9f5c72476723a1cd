"""Plain-text views of game states and events, for the terminal."""

from __future__ import annotations

from typing import Any

from engine.picasso import PIECE_COST, PIECE_NAMES, Piece

GAME_NAMES = {
    "pickpic": "Pick Pic",
    "picflip": "Pic Flip",
    "picasso": "Picasso",
    "picmix": "Picmix",
}


def scoreboard(summary: dict[str, Any]) -> str:
    """A summary (``State.summary()``) as a table, one row per player, best first."""
    if summary.get("game") is None:
        return "no game started"
    players = summary["players"]
    scores = summary["scores"]
    title = GAME_NAMES.get(summary["game"], summary["game"])
    status = "finished" if summary["finished"] else "in progress"
    width = max([len(p) for p in players] + [6])
    lines = [f"{title} — {status}", f"  {'player':<{width}}  score"]
    cards_left = summary.get("cards_left")
    ranked = sorted(players, key=lambda p: (-scores.get(p, 0), players.index(p)))
    for p in ranked:
        row = f"  {p:<{width}}  {scores.get(p, 0):>5}"
        if cards_left is not None:
            row += f"   {cards_left.get(p, 0):>3} cards left"
        if p in summary["winners"]:
            row += "   ★ winner"
        lines.append(row)
    if summary["finished"] and len(summary["winners"]) > 1:
        lines.append("  (a tie: the victory is shared)")
    return "\n".join(lines)


def _pieces_phrase(kind: str, n: Any) -> str:
    one, many = PIECE_NAMES.get(kind, (kind, kind))
    return f"{n} {one if n == 1 else many}"


def event_line(obj: dict[str, Any]) -> str:
    """One event of a log as a short sentence."""
    kind = obj.get("type")
    t = obj.get("t")
    stamp = f"[{t:7.1f}s] " if isinstance(t, int | float) else ""
    text: str
    if kind == "start":
        text = f"start {obj.get('game')} with {', '.join(obj.get('players', []))}"
    elif kind == "reveal" and "items" in obj:
        text = f"objective {obj['card']}: {', '.join(obj['items'])}"
    elif kind == "reveal":
        text = f"{obj['player']} reveals {obj['card']}"
    elif kind == "give":
        text = f"{obj['from']} gives {obj['to']} a card ({obj['card']})"
    elif kind == "random":
        text = f"random card {obj['card']} into {obj['to']}'s stack"
    elif kind == "rank":
        text = f"{obj['player']} ranks {' > '.join(obj['order'])}"
    elif kind == "draw":
        text = f"{obj['player']} draws {obj['card']}"
    elif kind == "build":
        pieces = obj.get("pieces", {})
        cost = sum(
            PIECE_COST[Piece(k)] * n
            for k, n in pieces.items()
            if k in Piece.__members__.values() and isinstance(n, int)
        )
        text = "build: " + (
            ", ".join(_pieces_phrase(k, n) for k, n in pieces.items() if n) or "empty board"
        )
        text += f" (cost {cost}" + (": over 10, the card is lost)" if cost > 10 else ")")
    elif kind == "guess":
        text = f"{obj['player']} guesses the word"
    elif kind == "give_up":
        text = "the builder gives up"
    elif kind == "claim":
        text = f"{obj['player']} claims Picmix! with {', '.join(obj['visible'])}"
    elif kind == "lead":
        text = f"{obj['player']} leads {obj['card']}"
    elif kind == "describe":
        text = f"{obj['player']}: \u201c{obj['phrase']}\u201d — 3... 2... 1... GO!"
    elif kind == "play":
        text = f"{obj['player']} plays {obj['card']}"
    elif kind == "reject":
        text = "the table rejects the last play"
    else:
        text = str(kind)
    return stamp + text
