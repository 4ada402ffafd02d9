"""Cost attribution per request at 500 turns, against building the same request, in the same run.

A synthetic session grows to 500 turns (a prompt, a Read call, its result, an answer: four
messages and two requests a turn), exactly as the loop grows one: each request body is built
with `build_request` + `sdk_params` (the baseline) and then recorded in a CostLedger (the
figure). Medians are taken over the requests of turns 451–500; the ledger measures only the
messages it had not seen, so a second row gives the first request after resuming such a
session, when it has to measure the whole history once.
"""

from __future__ import annotations

import time
from typing import Any

from tests.bench.common import Settings, median, row
from tui.agent.api.request import build_request, build_system, build_tools, sdk_params
from tui.agent.cost.cost import CostLedger

TURNS = 500
MEASURED_TURNS = 50
CHARS = 1200  # a prompt, a tool result, an answer: ~300 tokens each


def _turn(n: int) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
    call_id = f"toolu_bench{n:06d}"
    prompt = {"role": "user", "content": [{"type": "text", "text": f"step {n}: " + "p" * CHARS}]}
    call = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": f"reading {n}"},
            {"type": "tool_use", "id": call_id, "name": "Read", "input": {"file_path": f"/project/f{n}.py"}},
        ],
    }
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": "r" * CHARS}]}
    answer = {"role": "assistant", "content": [{"type": "text", "text": f"answer {n} " + "a" * CHARS}]}
    return prompt, call, result, answer


def _usage(total_chars: int) -> dict[str, Any]:
    total = total_chars // 4
    return {
        "input_tokens": 3,
        "cache_creation_input_tokens": 700,
        "cache_read_input_tokens": max(total - 703, 0),
        "output_tokens": 300,
        "cache_creation": {"ephemeral_5m_input_tokens": 700, "ephemeral_1h_input_tokens": 0},
    }


def run(turns: int = TURNS) -> tuple[list[float], list[float], float]:
    """(attribution µs, request-build µs) of each measured request, and the cold first request's µs."""
    system = build_system(__import__("pathlib").Path("/project"), "claude-sonnet-5-5", "# Memory files\n" + "m" * 4000)
    tools = build_tools(
        [
            {
                "name": f"Tool{i}",
                "description": "d" * 600,
                "input_schema": {"type": "object", "properties": {"x": {"type": "string"}}},
            }
            for i in range(14)
        ]
    )
    ledger = CostLedger()
    messages: list[dict[str, Any]] = []
    chars = 0
    attribution: list[float] = []
    build: list[float] = []
    body: dict[str, Any] = {}
    for n in range(1, turns + 1):
        prompt, call, result, answer = _turn(n)
        ledger.begin_turn(n)
        for appended, reply in (((prompt,), call), ((result,), answer)):
            messages.extend(appended)
            chars += sum(len(str(m)) for m in appended)
            t0 = time.perf_counter()
            body = build_request(
                model="claude-sonnet-5-5", max_tokens=16000, system=system, tools=tools, messages=messages
            )
            sdk_params(body)
            t1 = time.perf_counter()
            ledger.record(body, _usage(chars + 60_000), price_model="claude-sonnet-5-5", reply=reply)
            t2 = time.perf_counter()
            if n > turns - MEASURED_TURNS:
                build.append((t1 - t0) * 1e6)
                attribution.append((t2 - t1) * 1e6)
            messages.append(reply)
    cold = CostLedger()  # a resumed session: its first request measures the whole history
    t0 = time.perf_counter()
    cold.record(body, _usage(chars + 60_000), price_model="claude-sonnet-5-5")
    return attribution, build, (time.perf_counter() - t0) * 1e6


def measure(settings: Settings) -> list[dict[str, Any]]:
    attribution: list[float] = []
    build: list[float] = []
    cold: list[float] = []
    for _ in range(settings.reps(3, 1)):
        a, b, c = run()
        attribution += a
        build += b
        cold.append(c)
    value, baseline = median(attribution), median(build)
    return [
        row(
            f"cost attribution per request at {TURNS} turns ({len(attribution)} requests)",
            value,
            baseline,
            "≤ 1 ms (1,000 µs)",
            unit="µs",
            met=value <= 1000.0,
            baseline_label="building the same request",
            note="the ledger measures only new messages",
        ),
        row(
            f"cost attribution, first request after resuming {TURNS} turns",
            median(cold) / 1000,
            None,
            "for comparison",
            unit="ms",
            note="the whole history measured once, then only new messages",
        ),
    ]


if __name__ == "__main__":
    import json

    for r in measure(Settings(quick=True)):
        print(json.dumps(r))
