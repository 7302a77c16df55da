"""The adventure GM's scenario tools: look, move, examine, talk, take, use an item, take a
decision, and flee a fight.

Each offer is narrowed to what is in reach now (the exits, things, people and items of
the scene), so a model is only offered what the scenario allows; the engine applies the
move to the :class:`~gm_engine.adventure.story.Story`, rolls any check on the session's
dice, and returns the text it wrote (the player is shown the same text through
``on_text``). A move the story refuses is a :class:`~gm_engine.tools.base.ModelRetry`
and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import Field

from gm_engine.adventure.story import Story, StoryError, StoryStep
from gm_engine.tools.base import Offer, Tool, ToolOutput, retry_on


class LookAround(Tool):
    """Describe the scene again: its text, the exits, things to examine, people, items."""

    tool_name: ClassVar[str] = "look_around"
    read_only: ClassVar[bool] = True
    idempotent: ClassVar[bool] = True


class MoveTo(Tool):
    """Take an exit the player chose (by the scene it leads to); a check may be rolled."""

    tool_name: ClassVar[str] = "move_to"
    destructive: ClassVar[bool] = True  # an outcome may end the adventure
    exit: str = Field(description="the id of the scene the exit leads to")


class ExamineThing(Tool):
    """Examine a thing the player named (the first time, its check is rolled)."""

    tool_name: ClassVar[str] = "examine"
    destructive: ClassVar[bool] = True  # an outcome may end the adventure
    thing: str


class TalkTo(Tool):
    """Talk to someone here; ``about`` is what the player asked about, in their words."""

    tool_name: ClassVar[str] = "talk_to"
    destructive: ClassVar[bool] = True  # an outcome may end the adventure
    npc: str
    about: str = Field(default="", max_length=200)


class TakeItem(Tool):
    """Pick up an item lying here that the player asked for."""

    tool_name: ClassVar[str] = "take_item"
    item: str


class UseItem(Tool):
    """Use a held item the player named; ``on`` is what they use it on, in their words."""

    tool_name: ClassVar[str] = "use_item"
    destructive: ClassVar[bool] = True
    item: str
    on: str = Field(default="", max_length=200)


class MakeChoice(Tool):
    """Take one of the scene's decisions, only the one the player named."""

    tool_name: ClassVar[str] = "make_choice"
    destructive: ClassVar[bool] = True
    choice: str


class Flee(Tool):
    """In a fight, at SETUP, try to flee as the player asked: a 3d6 check; a failure means
    the round is fought (the engine rolls it)."""

    tool_name: ClassVar[str] = "flee"
    destructive: ClassVar[bool] = True


#: Sees each accepted move; returns what the engine did on top (a fight begun), for the model.
OnStep = Callable[[str, StoryStep], str]


class StoryTable:
    """The story tools of the moment; ``on_step(tool, step)`` sees each accepted move (the
    session shows its text, starts a fight it begins, ends the adventure at an ending)."""

    def __init__(self, story: Story, on_step: OnStep) -> None:
        self.story = story
        self.on_step = on_step

    def offers(self) -> list[Offer[Any]]:
        """The story tools legal now (none during a fight or after the end)."""
        story = self.story
        if story.over or story.fight is not None:
            return []
        offers: list[Offer[Any]] = [Offer.of(LookAround, self._look)]
        if story.exits():
            offers.append(Offer.of(MoveTo, self._move, exit=[e.to for e in story.exits()]))
        if story.features():
            offers.append(Offer.of(ExamineThing, self._examine, thing=[f.id for f in story.features()]))
        if story.npcs():
            offers.append(Offer.of(TalkTo, self._talk, npc=[n.id for n in story.npcs()]))
        if story.items_here():
            offers.append(Offer.of(TakeItem, self._take, item=list(story.items_here())))
        if story.usable():
            offers.append(Offer.of(UseItem, self._use, item=list(story.usable())))
        if story.choices():
            offers.append(Offer.of(MakeChoice, self._choose, choice=[c.id for c in story.choices()]))
        return offers

    def _done(self, tool: str, step: StoryStep) -> ToolOutput:
        extra = self.on_step(tool, step)
        verdicts = "".join(f"\n({c.label}: {'success' if c.success else 'failure'})" for c in step.checks)
        ends = step.ended or step.encounter is not None
        return ToolOutput(text=step.text + verdicts + (f"\n{extra}" if extra else ""), ends_turn=ends)

    def _look(self, args: LookAround) -> ToolOutput:
        return self._done("look_around", self.story.look())

    @retry_on(StoryError)
    def _move(self, args: MoveTo) -> ToolOutput:
        return self._done("move_to", self.story.move(args.exit))

    @retry_on(StoryError)
    def _examine(self, args: ExamineThing) -> ToolOutput:
        return self._done("examine", self.story.examine(args.thing))

    @retry_on(StoryError)
    def _talk(self, args: TalkTo) -> ToolOutput:
        return self._done("talk_to", self.story.talk(args.npc, args.about))

    @retry_on(StoryError)
    def _take(self, args: TakeItem) -> ToolOutput:
        return self._done("take_item", self.story.take(args.item))

    @retry_on(StoryError)
    def _use(self, args: UseItem) -> ToolOutput:
        return self._done("use_item", self.story.use(args.item, args.on))

    @retry_on(StoryError)
    def _choose(self, args: MakeChoice) -> ToolOutput:
        return self._done("make_choice", self.story.choose(args.choice))
