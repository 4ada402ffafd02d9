"""/cost: where the session's money went (by part, turn, model and agent, with the cache breaks); /pin and /unpin.

The figures are the engine's ledger summed by `tui.agent.cost.report.cost_breakdown`; this
module only lays them out as a block of aligned lines in the conversation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tui.agent.cost.report import short_tokens
from tui.text.wording import plural

from .commands import slash_command
from .widgets.blocks import REPORT_LABEL_WIDTH

if TYPE_CHECKING:
    from .app import AgentApp

PART_LABELS = (
    ("system", "system"),
    ("tools", "tools"),
    ("memory", "memory"),
    ("history", "history"),
    ("tool_results", "tool results"),
    ("output", "output"),
    ("web_search", "web searches"),
)
KIND_LABELS = (("input", "input"), ("cache_write", "cache writes"), ("cache_read", "cache reads"), ("output", "output"))
#: turns listed one per line (the newest ones)
TURNS_SHOWN = 8
LABEL_WIDTH = REPORT_LABEL_WIDTH


def _share(share: float | None) -> str:
    return "–" if share is None else f"{share:.0%} cached"


def _rows(label: str, lines: list[str]) -> list[str]:
    """`label` before the first line, the others indented under it."""
    pad = " " * LABEL_WIDTH
    return [(label.ljust(LABEL_WIDTH) if n == 0 else pad) + line for n, line in enumerate(lines)]


def _group(name: str, total: dict[str, Any], width: int) -> str:
    return f"{name:<{width}}  ${total['cost_usd']:.4f}  {total['requests']:>3} req  {_share(total['cache_read_share'])}"


def cost_report(breakdown: dict[str, Any], *, offline: bool = False) -> str:
    """The lines of /cost (the first starts `session:`)."""
    if not breakdown["requests"]:
        return "session: no request yet, nothing spent."
    share = breakdown["cache_read_share"]
    lines = [
        f"session: ${breakdown['total_cost_usd']:.4f} · {plural(breakdown['requests'], 'request')} · "
        f"{'–' if share is None else f'{share:.0%}'} read from the cache"
        + (" · offline demo model: nothing is billed" if offline else "")
    ]
    tokens, usd = breakdown["tokens"], breakdown.get("usd", {})
    lines += _rows(
        "by kind",
        [f"{label:<14}{short_tokens(tokens[key]):>7}  ${usd.get(key, 0.0):.4f}" for key, label in KIND_LABELS],
    )
    parts, part_tokens = breakdown["by_part"], breakdown["by_part_tokens"]
    lines += _rows(
        "by part",
        [
            f"{label:<14}{short_tokens(part_tokens.get(key, 0)):>7}  ${parts[key]:.4f}"
            for key, label in PART_LABELS
            if key in parts
        ],
    )
    turns = breakdown["by_turn"]
    shown = [_group(f"turn {t['turn']}", t, 9) for t in turns[-TURNS_SHOWN:]]
    summed = breakdown.get("earlier_turns") or {"turns": 0, "cost_usd": 0.0}  # a long session's oldest, as one
    if len(turns) > TURNS_SHOWN or summed["turns"]:
        earlier = summed["cost_usd"] + sum(t["cost_usd"] for t in turns[:-TURNS_SHOWN])
        count = summed["turns"] + max(0, len(turns) - TURNS_SHOWN)
        shown.insert(0, f"{plural(count, 'earlier turn')}  ${earlier:.4f}")
    lines += _rows("by turn", shown)
    models = breakdown["by_model"]
    width = max(len(m) for m in models)
    lines += _rows("by model", [_group(m, t, width) + _price_note(t) for m, t in models.items()])
    agents = {_agent_name(a, t): t for a, t in breakdown["by_agent"].items()}
    width = max(len(a) for a in agents)
    lines += _rows("by agent", [_group(a, t, width) for a, t in agents.items()])
    if breakdown.get("unpriced_note"):
        lines += _rows("note", [breakdown["unpriced_note"]])
    misses = breakdown["cache_misses"]
    lines += _rows(
        "cache misses",
        [
            line
            for m in misses[-TURNS_SHOWN:]
            for line in (
                f"request {m['request']}, turn {m['turn']}{'' if m['loop_path'] == 'main' else ', ' + m['loop_path']}: "
                f"{m['text']}, {short_tokens(m['lost_tokens'])} tokens written again (+${m['extra_cost_usd']:.4f})",
            )
        ]
        or ["none"],
    )
    return "\n".join(lines)


def _agent_name(agent: str, total: dict[str, Any]) -> str:
    """The agent's loop path; the sum of a long session's oldest subagents says how many ("12 earlier subagents")."""
    return f"{total['subagents']} {agent}" if total.get("subagents") else agent


def _legacy_line(app: AgentApp) -> str:
    """A session without a ledger (a scripted stand-in): totals only."""
    u = app.session.usage_totals or {}
    total_in = sum(
        int(u.get(k) or 0) for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    )
    share = f"{int(u.get('cache_read_input_tokens') or 0) / total_in:.0%}" if total_in else "–"
    return (
        f"session: {plural(total_in, 'token')} in ({share} from cache), {int(u.get('output_tokens') or 0):,} out, "
        f"${app.session.cost_usd:.4f}"
    )


@slash_command("cost", "Show where this session's tokens and money went")
async def _cost(app: AgentApp, args: str) -> None:
    ledger = getattr(app.session, "costs", None)
    if ledger is None:
        await app.controller.add_marker(_legacy_line(app), "info")
        return
    from tui.agent.cost.report import cost_breakdown

    report = cost_report(cost_breakdown(ledger.snapshot()), offline=bool(getattr(app.session, "offline", False)))
    await app.controller.add_marker(report, "cost")


@slash_command("pin", "Keep your last prompt word for word through every compaction")
async def _pin(app: AgentApp, args: str) -> None:
    pin = getattr(app.session, "pin_last_prompt", None)
    if pin is None:
        app.notify("This session cannot pin prompts.", severity="warning")
        return
    app.notify(pin(), title="Pin")


@slash_command("unpin", "Let the newest pinned prompt be summarised again")
async def _unpin(app: AgentApp, args: str) -> None:
    unpin = getattr(app.session, "unpin", None)
    if unpin is None:
        app.notify("This session cannot pin prompts.", severity="warning")
        return
    app.notify(unpin(), title="Pin")


def _price_note(total: dict[str, Any]) -> str:
    """ "  no price listed", or a provider profile's prices ("  local: in $0 · out $0 per Mtok")."""
    price = total.get("price_per_mtok")
    if price is None:
        return "  no price listed"
    if not total.get("provider"):
        return ""
    return f"  {total['provider']}: in ${price['input']:g} · out ${price['output']:g} per Mtok"
