"""The GM-only brief of a scenario: everything behind the scenes, for a model GM's system
prompt (the player never sees it; the engine still owns every number and every step)."""

from __future__ import annotations

from gm_engine.adventure.scenario import Check, Condition, Outcome, Scenario


def _condition(c: Condition) -> str:
    parts = []
    if c.requires:
        parts.append("要フラグ " + ",".join(c.requires))
    if c.unless:
        parts.append("除外フラグ " + ",".join(c.unless))
    if c.needs_item:
        parts.append("要アイテム " + ",".join(c.needs_item))
    return f"［{'・'.join(parts)}］" if parts else ""


def _outcome(o: Outcome) -> str:
    parts = []
    if o.set:
        parts.append("フラグ " + ",".join(o.set))
    if o.give:
        parts.append("入手 " + ",".join(o.give))
    if o.goto:
        parts.append(f"→{o.goto}")
    if o.ending:
        parts.append(f"エンディング {o.ending}")
    return "（" + "、".join(parts) + "）" if parts else ""


def _check(c: Check) -> str:
    skill = f" 技能 {c.skill}" + (f"+{c.second_skill}" if c.second_skill else "") if c.skill else ""
    target = f" 目標 {c.target}" if c.target is not None else ""
    return f"判定《{c.label}》{skill}{target}: 成功{_outcome(c.success)} / 失敗{_outcome(c.failure)}"


def gm_brief(scenario: Scenario) -> str:
    """The brief as text (see the module docstring)."""
    lines = [scenario.brief, f"開始場面: {scenario.start}"]
    for sid, scene in scenario.scenes.items():
        lines.append(f"■ {sid}「{scene.title}」" + (f" エンディング {scene.ending}" if scene.ending else ""))
        for e in scene.exits:
            check = f" {_check(e.check)}" if e.check else ""
            lines.append(f"  出口 {e.to}「{e.label}」{_condition(e)}{check}")
        for f in scene.features:
            detail = _check(f.check) if f.check else _outcome(f.outcome) if f.outcome else ""
            lines.append(f"  調べる {f.id}「{f.label}」{_condition(f)} {detail}")
        for n in scene.npcs:
            lines.append(
                f"  人物 {n.id}「{n.name}」: "
                + " / ".join(
                    f"{t.text[:40]}{_condition(t)}{_outcome(t.outcome) if t.outcome else ''}" for t in n.talks
                )
            )
        for c in scene.choices:
            lines.append(f"  決断 {c.id}「{c.label}」{_condition(c)}{_outcome(c.outcome)}")
        for u in scene.uses:
            lines.append(f"  使用 {u.item}{_condition(u)}{_outcome(u.outcome)}")
        if scene.encounter is not None:
            fight = scene.encounter
            lines.append(
                f"  戦闘 {fight.kind.value}「{fight.enemy}」 勝利{_outcome(fight.win)} "
                f"敗北{_outcome(fight.lose)} 逃走{_outcome(fight.flee)}"
            )
    lines.append("エンディング: " + "、".join(f"{k}「{v.title}」" for k, v in scenario.endings.items()))
    return "\n".join(lines)
