"""DiceBot: the system with no commands of its own; it answers the common commands."""

from gm_engine.dice.system import GameSystem


class DiceBot(GameSystem):
    """The generic dice bot."""

    id = "DiceBot"
    name = "DiceBot"
    sort_key = "*たいすほつと"
    help_text = (
        "Common commands: xDy add dice (+ - * / ( ), KH KL DH DL, MAX MIN, U C R F rounding, "
        "comparisons, ?), xBy, xRy, xUy, xTY/xTZ, C(), CHOICE, D66 (A/D/N), repeat x3/rep3/repeat3, "
        "S prefix for secret rolls. Text after the first space is a comment."
    )
