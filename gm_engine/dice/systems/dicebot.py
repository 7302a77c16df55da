"""DiceBot: the system with no commands of its own; it answers the common commands."""

from gm_engine.dice.system import GameSystem


class DiceBot(GameSystem):
    """The generic dice bot."""

    id = "DiceBot"
    name = "DiceBot"
    sort_key = "*たいすほつと"
    help_text = (
        "共通コマンド: xDy の加算ダイス（+ - * / と括弧、KH KL DH DL、MAX MIN、端数 U C R F、比較、?）、"
        "xBy（バラバラロール）、xRy（個数振り足し）、xUy（上方無限）、xTY / xTZ、C()（計算）、"
        "CHOICE（選択）、"
        "D66（A / D / N）、繰り返し x3 / rep3 / repeat3、先頭の S でシークレットダイス。"
        "最初の空白より後はコメントです。"
    )
    help_text_en = (
        "Common commands: xDy add dice (+ - * / ( ), KH KL DH DL, MAX MIN, U C R F rounding, "
        "comparisons, ?), xBy, xRy, xUy, xTY/xTZ, C(), CHOICE, D66 (A/D/N), repeat x3/rep3/repeat3, "
        "S prefix for secret rolls. Text after the first space is a comment."
    )
