"""Claude Code's telemetry switches read from the environment, each bad value one sentence.

The names and defaults are Claude Code's (its monitoring documentation): CLAUDE_CODE_ENABLE_TELEMETRY turns
telemetry on, OTEL_METRICS_EXPORTER / OTEL_LOGS_EXPORTER / OTEL_TRACES_EXPORTER choose where each signal
goes, the OTEL_EXPORTER_OTLP_* variables are read by the OpenTelemetry exporters themselves. Nothing here
imports OpenTelemetry.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import unquote

TRUE_WORDS = ("1", "true", "yes", "on")
SIGNALS = ("metrics", "logs", "traces")
#: what each signal's exporter list may name (prometheus is Claude Code's, not offered here)
EXPORTERS = {
    "metrics": ("otlp", "console", "none"),
    "logs": ("otlp", "console", "none"),
    "traces": ("otlp", "console", "none"),
}
PROTOCOLS = ("http/protobuf", "grpc")
DEFAULT_INTERVALS_MS = {"metrics": 60_000, "logs": 5_000, "traces": 5_000}
INTERVAL_VARS = {
    "metrics": "OTEL_METRIC_EXPORT_INTERVAL",
    "logs": "OTEL_LOGS_EXPORT_INTERVAL",
    "traces": "OTEL_TRACES_EXPORT_INTERVAL",
}
EXPORTER_VARS = {"metrics": "OTEL_METRICS_EXPORTER", "logs": "OTEL_LOGS_EXPORTER", "traces": "OTEL_TRACES_EXPORTER"}
#: how long the exit waits for the last export (Claude Code's CLAUDE_CODE_OTEL_SHUTDOWN_TIMEOUT_MS default)
DEFAULT_SHUTDOWN_MS = 2_000


def flag(env: Mapping[str, str], name: str, default: bool = False) -> bool:
    """A switch as Claude Code reads it: unset is the default, set is true only for 1/true/yes/on."""
    value = env.get(name)
    if value is None:
        return default
    return value.strip().lower() in TRUE_WORDS


def enabled(env: Mapping[str, str] | None = None) -> bool:
    """CLAUDE_CODE_ENABLE_TELEMETRY is on."""
    return flag(os.environ if env is None else env, "CLAUDE_CODE_ENABLE_TELEMETRY")


@dataclass
class TelemetryConfig:
    """What to export, where to and how much of the user's content."""

    exporters: dict[str, list[str]] = field(default_factory=dict)
    protocols: dict[str, str] = field(default_factory=dict)
    intervals_ms: dict[str, int] = field(default_factory=dict)
    shutdown_ms: int = DEFAULT_SHUTDOWN_MS
    log_user_prompts: bool = False
    log_tool_details: bool = False
    log_tool_content: bool = False
    include_session_id: bool = True
    include_version: bool = False
    include_entrypoint: bool = False
    include_resource_attributes: bool = True
    #: OTEL_RESOURCE_ATTRIBUTES as pairs (they also go on every metric and event, as in Claude Code)
    resource_attributes: dict[str, str] = field(default_factory=dict)

    def wants(self, signal: str) -> bool:
        return bool(self.exporters.get(signal))

    @property
    def any_signal(self) -> bool:
        return any(self.wants(signal) for signal in SIGNALS)


def read_config(env: Mapping[str, str] | None = None) -> tuple[TelemetryConfig, list[str]]:
    """The configuration, and one sentence for each value that could not be used (that part is left off)."""
    env = os.environ if env is None else env
    problems: list[str] = []
    config = TelemetryConfig(
        log_user_prompts=flag(env, "OTEL_LOG_USER_PROMPTS"),
        log_tool_details=flag(env, "OTEL_LOG_TOOL_DETAILS"),
        log_tool_content=flag(env, "OTEL_LOG_TOOL_CONTENT"),
        include_session_id=flag(env, "OTEL_METRICS_INCLUDE_SESSION_ID", True),
        include_version=flag(env, "OTEL_METRICS_INCLUDE_VERSION"),
        include_entrypoint=flag(env, "OTEL_METRICS_INCLUDE_ENTRYPOINT"),
        include_resource_attributes=flag(env, "OTEL_METRICS_INCLUDE_RESOURCE_ATTRIBUTES", True),
    )
    unusable: dict[tuple[str, str], list[str]] = {}  # (variable, value) -> the signals it left without OTLP
    for signal in SIGNALS:
        config.exporters[signal] = _exporters(env, signal, problems)
        config.intervals_ms[signal] = _milliseconds(env, INTERVAL_VARS[signal], DEFAULT_INTERVALS_MS[signal], problems)
        name, value = _protocol(env, signal)
        if value not in PROTOCOLS and "otlp" in config.exporters[signal]:
            unusable.setdefault((name, value), []).append(signal)
        if value == "http/json":
            value = "http/protobuf"
        if value in PROTOCOLS:
            config.protocols[signal] = value
        else:
            config.exporters[signal] = [e for e in config.exporters[signal] if e != "otlp"]
    for (name, value), signals in unusable.items():
        which = " and ".join([", ".join(signals[:-1]), signals[-1]] if len(signals) > 1 else signals)
        if value == "http/json":
            problems.append(
                f"{name}=http/json is not available in Python's OpenTelemetry SDK; {which} go to the same "
                "endpoint as http/protobuf, which OTLP receivers take on the same path."
            )
        else:
            problems.append(
                f"{name}={value} is not an OTLP protocol (grpc, http/protobuf, http/json); {which} are "
                "not exported over OTLP."
            )
    config.shutdown_ms = _milliseconds(env, "CLAUDE_CODE_OTEL_SHUTDOWN_TIMEOUT_MS", DEFAULT_SHUTDOWN_MS, problems)
    config.resource_attributes = resource_pairs(env.get("OTEL_RESOURCE_ATTRIBUTES", ""), problems)
    return config, problems


def _exporters(env: Mapping[str, str], signal: str, problems: list[str]) -> list[str]:
    name = EXPORTER_VARS[signal]
    chosen: list[str] = []
    for word in (w.strip().lower() for w in env.get(name, "").split(",")):
        if not word or word == "none":
            continue
        if word not in EXPORTERS[signal]:
            allowed = ", ".join(EXPORTERS[signal])
            problems.append(
                f"{name}={word} is not an exporter agent-tui has ({allowed}); {signal} are not exported there."
            )
            continue
        if word not in chosen:
            chosen.append(word)
    return chosen


def _protocol(env: Mapping[str, str], signal: str) -> tuple[str, str]:
    """The variable that sets a signal's OTLP protocol, and its value (http/protobuf when unset)."""
    own = f"OTEL_EXPORTER_OTLP_{signal.upper()}_PROTOCOL"
    name = own if env.get(own, "").strip() else "OTEL_EXPORTER_OTLP_PROTOCOL"
    return name, env.get(name, "").strip().lower() or "http/protobuf"


def _milliseconds(env: Mapping[str, str], name: str, default: int, problems: list[str]) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(float(raw))
    except ValueError:
        value = 0
    if value <= 0:
        problems.append(f"{name} must be a positive number of milliseconds, not {raw!r}; using {default}.")
        return default
    return value


def resource_pairs(text: str, problems: list[str]) -> dict[str, str]:
    """OTEL_RESOURCE_ATTRIBUTES (`key=value,key=value`, values percent-encoded); a malformed pair is named and left out."""
    pairs: dict[str, str] = {}
    for item in text.split(","):
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            problems.append(f"OTEL_RESOURCE_ATTRIBUTES has {item.strip()!r}, which is not key=value; it is left out.")
            continue
        pairs[key.strip()] = unquote(value.strip())
    return pairs
