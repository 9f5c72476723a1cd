"""The rules the engine enforces, each with the rulebook line or contract paragraph it comes from.

An error names its rule by ``Rule.id``; tests name the same ids, so that every rule has a test.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    id: str
    source: str

    def __str__(self) -> str:
        return f"{self.id}: {self.source}"


def _r(id_: str, source: str) -> Rule:
    rule = Rule(id_, source)
    ALL[id_] = rule
    return rule


ALL: dict[str, Rule] = {}

# Contract paragraph 1, common to every log.
LOG_OBJECT = _r("log.object", 'CONTRACTS 1: "One JSON object per line, each with a type"')
LOG_START_FIRST = _r("log.start_first", 'CONTRACTS 1: "The first line is always start"')
LOG_UNKNOWN_KEY = _r("log.unknown_key", 'CONTRACTS 1: "any other unknown key is an error"')
LOG_UNKNOWN_TYPE = _r("log.unknown_type", "CONTRACTS 1: each game lists the event types it takes")
LOG_FIELD = _r("log.field", "CONTRACTS 1: the event's fields and their types")
LOG_IDS = _r("log.ids", 'CONTRACTS 1: "Card ids and player names are non-empty strings"')
LOG_T = _r("log.t", 'CONTRACTS 1: "t" (seconds, a number)')
LOG_META = _r("log.meta", 'CONTRACTS 1: "meta" (an object, free)')
LOG_GAME = _r("log.game", "CONTRACTS 1 start: G one of pickpic, picflip, picasso, picmix")
LOG_PLAYERS = _r("log.players", "CONTRACTS 1 start: players listed in seating order, distinct")
LOG_FINISHED = _r("log.finished", "CONTRACTS 1: a finished game takes no more events")
LOG_PLAYER = _r("log.player", "CONTRACTS 1: a player named in an event sits at the table")
LOG_TEXT = _r(
    "log.text",
    'CONTRACTS 1: "Card ids and player names are non-empty strings": strings of text, which a '
    "lone surrogate (\\ud800-\\udfff) is not",
)

# Pick Pic: rulebook pick-pic.en.txt and its French FAQ; CONTRACTS 1 Pick Pic.
PP_PLAYERS = _r("pickpic.players", 'CONTRACTS 1 Pick Pic: "3 to 5 players"')
PP_TARGET = _r("pickpic.target", 'rulebook: "The first player to reach 20 points will win"')
PP_TARGET_MAX = _r(
    "pickpic.target.max",
    'rulebook: "The first player to reach 20 points will win"; a game to more than 100 '
    "points (five times that) is taken for a mistake",
)
PP_REVEAL = _r(
    "pickpic.reveal",
    'rulebook 1 "Reveal a card": one card face up in front of each player, once a round',
)
PP_ORDER = _r(
    "pickpic.round_order",
    "CONTRACTS 1: \"A round is: every player's reveal, then the gives, "
    'then one random per player, then one rank per player"',
)
PP_GIVE_SELF = _r("pickpic.give.self", 'CONTRACTS 1 give: "P != Q"')
PP_GIVE_COUNT = _r(
    "pickpic.give.count",
    'rulebook 2 "Give cards": exactly one card to every other player; '
    '"3-player game": 2 cards to each (FAQ: "donne deux photos a chacun")',
)
PP_CARD_ONCE = _r("pickpic.card_once", 'CONTRACTS 1: "A card id may appear only once in a round"')
PP_RANDOM_WHEN = _r(
    "pickpic.random.when",
    'CONTRACTS 1 random: "allowed only once P has received all the cards given to them"; '
    'rulebook 3: "When all players have received ... draw one random card"',
)
PP_RANDOM_ONCE = _r("pickpic.random.once", 'CONTRACTS 1: "one random per player"')
PP_RANK_WHEN = _r(
    "pickpic.rank.when", 'rulebook 3 "Rank cards": a stack is ranked once its random card is in'
)
PP_RANK_ONCE = _r("pickpic.rank.once", 'CONTRACTS 1: "one rank per player"')
PP_RANK_STACK = _r("pickpic.rank.stack", 'CONTRACTS 1 rank: "P\'s whole stack"')
PP_SCORE = _r(
    "pickpic.score",
    'rulebook 4 "Evaluate scores": stop at the random card; 1 point to giver and ranker per card '
    "before it; FAQ: first-card bonus to the giver only; random card last: 1 bonus to the ranker",
)
PP_END = _r(
    "pickpic.end",
    'rulebook "End of the Game": checked at the end of the round (FAQ: "On termine le decompte '
    'de la manche"); highest total wins, ties share the victory',
)

# Picasso: rulebook picasso.en.txt; CONTRACTS 1 Picasso.
PC_PLAYERS = _r("picasso.players", 'CONTRACTS 1 Picasso: "2+ players"')
PC_OPTIONS = _r(
    "picasso.options", 'CONTRACTS 1 Picasso: options "cards_per_player" (default 3), "kit"'
)
PC_TURN = _r(
    "picasso.turn",
    'rulebook "Play": "The oldest player starts, and play continues clockwise"; '
    "CONTRACTS 1: the builder whose turn it is draws",
)
PC_NO_TURN = _r(
    "picasso.no_turn", "CONTRACTS 1 Picasso: build, guess and give_up need a drawn card"
)
PC_CARDS_MAX = _r(
    "picasso.cards_per_player.max",
    'rulebook "Setup": "Decide how many rounds you want to play" ... "start with 3 cards per '
    'player"; more than 100 rounds is taken for a mistake',
)
PC_KIT = _r("picasso.kit", 'CONTRACTS 1 Picasso: "kit caps what may be on the board"')
PC_KIT_MAX = _r(
    "picasso.kit.max",
    'rulebook "Contents": "5 long sticks", "5 short sticks", "String"; a board costing over 10 '
    "loses the card, so a cap above 100 pieces of a kind is taken for a mistake",
)
PC_COST = _r(
    "picasso.cost",
    'rulebook: "a short or long stick - 1 point, a geometric shape - 2 points, string - 3 points"',
)
PC_OVER = _r(
    "picasso.over_ten",
    'rulebook: "If the builder has used building elements whose total value exceeds 10, '
    'the card is lost"',
)
PC_GUESS = _r(
    "picasso.guess",
    'rulebook: the guesser "receives a card worth 5 points"; the builder scores 10 minus the cost',
)
PC_GUESSER = _r("picasso.guesser", 'CONTRACTS 1 guess: "Q (not the builder)"')
PC_END = _r(
    "picasso.end",
    'rulebook "End of the Game": when the cards run out; points plus 5 per card held',
)

# Picmix: rulebook picmix.en.txt; CONTRACTS 1 Picmix.
PM_PLAYERS = _r("picmix.players", 'CONTRACTS 1 Picmix: "2 to 6 players"')
PM_OPTIONS = _r(
    "picmix.options", 'CONTRACTS 1 Picmix: options "target" (default 5), "three_items_only"'
)
PM_ITEMS = _r(
    "picmix.items",
    'rulebook: "line up the 3 or 4 items"; CONTRACTS 1 reveal: "3 or 4 distinct items"',
)
PM_TARGET_MAX = _r(
    "picmix.target.max",
    'rulebook "Contents": "25 Objective cards": nobody can win more than 25',
)
PM_THREE = _r(
    "picmix.three_items_only",
    'rulebook "Variant": "only those showing 3 items are used"',
)
PM_REVEAL_WHEN = _r("picmix.reveal.when", 'CONTRACTS 1 reveal: "only when no objective is open"')
PM_CLAIM_WHEN = _r("picmix.claim.when", "CONTRACTS 1 claim: a claim is on the open objective")
PM_CORRECT = _r(
    "picmix.claim.correct",
    'rulebook: "show only the items shown on the Objective card, no more and no less"',
)
PM_WRONG = _r(
    "picmix.claim.wrong",
    'rulebook: "If they were mistaken, they must return one previously won Objective card"',
)
PM_RETURNED = _r(
    "picmix.claim.returned",
    'CONTRACTS 1 claim: "returned" must be one of P\'s won objectives',
)
PM_END = _r(
    "picmix.end",
    'rulebook: "As soon as a player wins their fifth Objective card, they immediately win"',
)

# Pic Flip: rulebook pic-flip.en.txt; CONTRACTS 1 Pic Flip.
PF_PLAYERS = _r("picflip.players", 'CONTRACTS 1 Pic Flip: "2 to 6 players"')
PF_DEAL = _r(
    "picflip.deal",
    'rulebook "Setup": deal evenly, one card set aside with an odd number of players; '
    'CONTRACTS 1: "as evenly as possible, earlier players first"; "hands" sets the counts',
)
PF_DECK_MAX = _r(
    "picflip.deck.max",
    'rulebook "Contents": "104 Playing Cards": a deck, and the hands dealt from it, hold at most '
    "104 cards",
)
PF_LEAD = _r(
    "picflip.lead",
    'rulebook: the first player places "a random card ... creating a discard pile"; once, first',
)
PF_DESCRIBE = _r(
    "picflip.describe",
    'CONTRACTS 1 describe: "only by the player whose card is on top of the pile"',
)
PF_PLAY_WHEN = _r(
    "picflip.play.when",
    'rulebook: players look "for an image that matches the description": a play answers a '
    "description of the top card",
)
PF_NO_CARDS = _r("picflip.no_cards", "rulebook: a player plays from their own deck")
PF_REJECT = _r(
    "picflip.reject",
    'rulebook: "ruled NOT to be a match ... puts it back in their deck"; '
    "CONTRACTS 1: only the last play, before it is described",
)
PF_END = _r(
    "picflip.end",
    'rulebook "Winning the Game": "one player has discarded all the cards in their deck"',
)
