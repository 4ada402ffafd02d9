"""The app's keys that move through the conversation: PgUp/PgDn, Ctrl+Home/Ctrl+End, End."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.actions import SkipAction

if TYPE_CHECKING:
    from .widgets.conversation import Conversation


class ConversationKeys:
    """Actions of AgentApp (a mixin): the paging keys scroll the conversation even while typing in the prompt."""

    def action_jump_bottom(self) -> None:
        self.conversation.jump_to_bottom()  # type: ignore[attr-defined]

    def _paged_conversation(self) -> Conversation:
        """The conversation, when the paging keys are its (on the main screen, with the prompt or the
        conversation focused); otherwise SkipAction, so a dialog or the inspector keeps its own keys."""
        app = self
        if len(app.screen_stack) > 1:  # type: ignore[attr-defined]
            raise SkipAction()
        conversation = app.conversation  # type: ignore[attr-defined]
        focused = app.focused  # type: ignore[attr-defined]
        if (
            focused is not None
            and focused is not app.prompt_area  # type: ignore[attr-defined]
            and focused is not conversation
            and conversation not in focused.ancestors
        ):
            raise SkipAction()
        return conversation

    def action_page_conversation(self, direction: int) -> None:
        """PgUp/PgDn: scroll the conversation a page, even while typing in the prompt."""
        self._paged_conversation().page(direction)

    def action_conversation_top(self) -> None:
        self._paged_conversation().jump_to_top()

    def action_conversation_bottom(self) -> None:
        self._paged_conversation().jump_to_bottom()
