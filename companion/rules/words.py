"""Numbers in sentences: "an 8", "1 tile", "3 tiles" (never "a 8" or "tile(s)")."""

from __future__ import annotations


def article(n: int) -> str:
    """The article before a number said aloud: "an" for 8, 11, 18, 80-89, 800-899...; else "a"."""
    digits = str(abs(n))
    return "an" if digits.startswith("8") or (len(digits) in (2, 5) and digits[:2] in ("11", "18")) \
        else "a"


def count(n: int, word: str, plural: str | None = None) -> str:
    """``n`` and ``word``, plural unless there is exactly one: "1 tile", "0 tiles", "2 tiles"."""
    return f"{n} {word}" if n == 1 else f"{n} {plural or word + 's'}"


#: How a rule option's written values read to a player, by option (the values as files and the
#: command line write them: ``may-play``, ``false``, ``none``).
_CHOICES: dict[str, dict[str, str]] = {
    "set": {"none": "Chosen from the number of players"},
    "hand_size": {"none": "From the deal table"},
    "start_double": {"none": "The set's highest double"},
    "loss_total": {"none": "No limit: play every round"},
    "start": {"centre": "Placed in the centre before the deal", "holder": "Played by whoever holds it"},
    "missing_double": {"draw-until-found": "Everyone draws in turn until it turns up",
                       "next-highest": "The next-highest double held starts",
                       "skip": "Skip to the next lower double someone holds"},
    "first_player": {"rotate": "Moves one seat each round", "after-holder": "The player after the double"},
    "draw": {"may-play": "Draw one, may play it", "must-play": "Draw one, must play it if it fits",
             "draw-until-playable": "Keep drawing until a tile fits"},
    "match_length": {"full": "Every double down to 0-0", "half": "Half of those rounds",
                     "single": "A single round"},
    "tie_break": {"draw": "A draw", "zero-rounds": "Most rounds scored 0 wins",
                  "none": "Tied players share first place"},
}


def option_choice(key: str, value: str) -> str:
    """A rule option's value in plain words ("may-play" -> "Draw one, may play it", "false" ->
    "No", a set's "9" -> "Double-9"); a number stays a number."""
    plain = _CHOICES.get(key, {}).get(value)
    if plain:
        return plain
    if value in ("true", "false"):
        return "Yes" if value == "true" else "No"
    if value == "none":
        return "None"
    if key == "set":
        return f"Double-{value}"
    return value


def open_end(value: int, name: str, slots: int, kind: str, playable: bool) -> str:
    """An open end as a player says it: "4 on 9-4", "9 on 9-9, 5 spokes to go", "4 on 3-4,
    closed for now" (while play must go elsewhere first)."""
    words = f"{value} on {name}"
    if kind != "line":
        words += f", {count(slots, 'spoke' if kind == 'hub' else 'toe')} to go"
    return words if playable else words + ", closed for now"
