"""AskUserQuestion and ExitPlanMode: the model asks the person at the terminal, through `SessionState.ask_user`."""

from __future__ import annotations

from typing import Any

from tui.tools.base import Tool, ToolContext, ToolError, ToolResult

NO_ONE_TO_ASK = (
    "{name} needs a person at the terminal, and this session is non-interactive (-p), so no one can answer. "
    "Go on with the most reasonable choice and say which one you made, or end your turn with the question."
)

_OPTION = {
    "type": "object",
    "properties": {"label": {"type": "string"}, "description": {"type": "string"}},
    "required": ["label"],
}
_QUESTION = {
    "type": "object",
    "properties": {
        "question": {"type": "string"},
        "header": {"type": "string", "description": "Tag, max 12 chars"},
        "options": {"type": "array", "items": _OPTION, "minItems": 2, "maxItems": 4},
        "multiSelect": {"type": "boolean"},
    },
    "required": ["question", "header", "options", "multiSelect"],
}


def check_questions(value: Any) -> list[dict[str, Any]]:
    """The questions as sent, or a ToolError naming the first thing wrong with them."""
    if not isinstance(value, list) or not 1 <= len(value) <= 4:
        raise ToolError("`questions` must be a list of 1 to 4 questions.")
    for i, q in enumerate(value):
        if not isinstance(q, dict) or not isinstance(q.get("question"), str) or not q["question"].strip():
            raise ToolError(f"questions[{i}] needs a non-empty `question` string.")
        options = q.get("options")
        if not isinstance(options, list) or not 2 <= len(options) <= 4:
            raise ToolError(f"questions[{i}].options must hold 2 to 4 options.")
        for j, option in enumerate(options):
            if not isinstance(option, dict) or not isinstance(option.get("label"), str) or not option["label"].strip():
                raise ToolError(f"questions[{i}].options[{j}] needs a non-empty `label`.")
    if len({q["question"] for q in value}) != len(value):
        raise ToolError("Each question must be different from the others.")
    return value


class AskUserQuestionTool(Tool):
    name = "AskUserQuestion"
    description = (
        "Asks the user 1-4 multiple-choice questions (2-4 short options each; the user may type another answer) "
        "and waits. Only for real ambiguity, not what you can find out yourself."
    )
    input_schema = {
        "type": "object",
        "properties": {"questions": {"type": "array", "items": _QUESTION, "minItems": 1, "maxItems": 4}},
        "required": ["questions"],
        "additionalProperties": False,
    }
    read_only = True  # it changes nothing: no approval needed, and it works in plan mode

    def is_concurrency_safe(self, tool_input: dict[str, Any]) -> bool:
        return False  # one dialog at a time

    def label(self, tool_input: dict[str, Any], ctx: ToolContext) -> str:
        questions = tool_input.get("questions")
        count = len(questions) if isinstance(questions, list) else 0
        return f"AskUserQuestion ({count} question{'s' if count != 1 else ''})" if count else "AskUserQuestion"

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        questions = check_questions(tool_input.get("questions"))
        if ctx.state.ask_user is None:
            raise ToolError(NO_ONE_TO_ASK.format(name=self.name))
        reply = ctx.state.ask_user("questions", {"questions": questions}, ctx.tool_use_id, ctx.cancel)
        answers = reply.get("answers")
        if not isinstance(answers, dict):
            return ToolResult(
                "The user closed the questions without answering. Do not assume an answer: "
                "ask in your reply, or go on with what does not depend on it.",
                is_error=True,
            )
        pairs = ", ".join(f'"{q}"="{a}"' for q, a in answers.items())
        return ToolResult(
            f"User has answered your questions: {pairs}. You can now continue with the user's answers in mind.",
            meta={"answers": answers},
        )


class ExitPlanModeTool(Tool):
    name = "ExitPlanMode"
    description = (
        "In plan mode, once your plan of code changes is ready: asks the user to approve `plan` (short "
        "Markdown). If approved, carry it out."
    )
    input_schema = {
        "type": "object",
        "properties": {"plan": {"type": "string"}},
        "required": ["plan"],
        "additionalProperties": False,
    }
    read_only = True  # callable in plan mode, which only lets read-only tools run

    def is_concurrency_safe(self, tool_input: dict[str, Any]) -> bool:
        return False

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        plan = tool_input.get("plan")
        if not isinstance(plan, str) or not plan.strip():
            raise ToolError("`plan` must be the plan, in Markdown.")
        if ctx.state.ask_user is None:
            raise ToolError(NO_ONE_TO_ASK.format(name=self.name))
        reply = ctx.state.ask_user("plan", {"plan": plan}, ctx.tool_use_id, ctx.cancel)
        if "error" in reply:
            raise ToolError(str(reply["error"]))
        choice, feedback = reply.get("choice"), str(reply.get("feedback") or "").strip()
        if choice in ("auto", "ask"):
            how = "edits are accepted automatically" if choice == "auto" else "each edit asks for approval"
            return ToolResult(
                f"User has approved your plan; plan mode is off and {how}. You can now start "
                f"coding.\n\n## Approved Plan:\n{plan}",
                meta={"plan_choice": choice},
            )
        said = f" The user said: {feedback}" if feedback else ""
        return ToolResult(
            f"The user did not approve the plan: stay in plan mode and keep planning.{said}",
            is_error=True,
            meta={"plan_choice": "keep"},
        )
