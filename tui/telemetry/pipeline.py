"""The OpenTelemetry SDK set up as the switches ask: a meter, an event logger and a tracer with their exporters.

Imported only once telemetry is on and a session attached (the SDK costs about half a second of imports).
The exporters' own log lines never reach the screen: an export that fails becomes one sentence, once,
through `on_failure`, and the last flush at exit is bounded.
"""

from __future__ import annotations

import logging
import os
import platform
import threading
from collections.abc import Callable
from importlib import import_module
from typing import Any, TextIO

from tui import __version__, install_hint

from .config import TelemetryConfig

SERVICE_NAME = "agent-tui"
#: Claude Code's instrumentation scope names, so views that select on them keep working
METER_NAME = "com.anthropic.claude_code"
LOGGER_NAME = "com.anthropic.claude_code.events"
TRACER_NAME = "com.anthropic.claude_code.tracing"
#: where each signal's exporter classes live: (module under opentelemetry.exporter.otlp.proto.<protocol>, class)
OTLP_CLASSES = {
    "metrics": ("metric_exporter", "OTLPMetricExporter"),
    "logs": ("_log_exporter", "OTLPLogExporter"),
    "traces": ("trace_exporter", "OTLPSpanExporter"),
}
CONSOLE_CLASSES = {
    "metrics": ("opentelemetry.sdk.metrics.export", "ConsoleMetricExporter"),
    "logs": ("opentelemetry.sdk._logs.export", "ConsoleLogRecordExporter"),
    "traces": ("opentelemetry.sdk.trace.export", "ConsoleSpanExporter"),
}
EXTRA_HINT = install_hint("otel-grpc")  # OTLP over http comes with agent-tui; gRPC is the extra


class ExportFailures(logging.Handler):
    """Turns the exporters' warnings (refused, unreachable, rejected) into one short reason for `on_failure`."""

    def __init__(self, on_failure: Callable[[str, str], None]) -> None:
        super().__init__(logging.WARNING)
        self.on_failure = on_failure

    def emit(self, record: logging.LogRecord) -> None:
        if not record.name.startswith("opentelemetry.exporter"):
            return  # the SDK's other warnings (a malformed attribute, say) were said already or do not matter
        try:
            message = record.getMessage()
        except Exception:
            message = str(record.msg)
        kind = next((k for k in ("metrics", "logs", "spans") if k in message), "")
        self.on_failure("traces" if kind == "spans" else kind, reason(message))


def reason(message: str) -> str:
    """What an exporter's log line says went wrong, in a few words."""
    lowered = message.lower()
    if "connection refused" in lowered:
        return "refused the connection"
    if any(
        word in lowered for word in ("invalid url", "failed to parse", "no scheme supplied", "no connection adapters")
    ):
        return "is not a URL agent-tui can send to (http://host:port or https://…)"
    if "name or service not known" in lowered or "nodename nor servname" in lowered or "getaddrinfo" in lowered:
        return "could not be found (the host name does not resolve)"
    if "unavailable" in lowered or "failed to establish" in lowered or "max retries" in lowered:
        return "could not be reached"
    if "timed out" in lowered or "timeout" in lowered or "deadline" in lowered:
        return "did not answer in time"
    for word in message.replace(",", " ").split():
        if word.isdigit() and len(word) == 3 and word[0] in "45":
            return f"answered HTTP {word}"
    return "did not accept the data"


def quiet_sdk_logging(handler: logging.Handler) -> None:
    """Route the SDK's log lines to `handler` only: by default Python prints warnings over the app's screen."""
    sdk_logger = logging.getLogger("opentelemetry")
    sdk_logger.propagate = False
    for old in [h for h in sdk_logger.handlers if isinstance(h, ExportFailures)]:
        sdk_logger.removeHandler(old)
    sdk_logger.addHandler(handler)


class Pipeline:
    """The providers of the signals that are on; `meter`, `logger` and `tracer` are None for the others."""

    def __init__(
        self,
        config: TelemetryConfig,
        console: TextIO | None,
        on_failure: Callable[[str, str], None],
        say: Callable[[str], None],
    ) -> None:
        self.config = config
        self.say = say
        self.endpoints: dict[str, str] = {}
        self.providers: list[Any] = []
        self.meter: Any = None
        self.logger: Any = None
        self.tracer: Any = None
        self._wake = threading.Event()

        def failed(signal: str, why: str) -> None:
            on_failure(self.endpoints.get(signal) or next(iter(self.endpoints.values()), "the OTLP endpoint"), why)
            # then a flush at exit stops waiting (retries would only hold the exit up); woken first, the exit could
            # end the process before the sentence was written
            self._wake.set()

        quiet_sdk_logging(ExportFailures(failed))
        from opentelemetry.sdk.resources import OsResourceDetector, OTELResourceDetector, Resource

        self.resource = (
            Resource({"service.name": SERVICE_NAME, "service.version": __version__})
            .merge(OsResourceDetector().detect())
            .merge(Resource({"host.arch": platform.machine()}))
            .merge(OTELResourceDetector().detect())
        )  # OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES win
        self.console = console
        if config.wants("metrics"):
            self._metrics()
        if config.wants("logs"):
            self._logs()
        if config.wants("traces"):
            self._traces()

    def exporters(self, signal: str, **options: Any) -> list[Any]:
        """The exporters named for `signal`; one that cannot be made is one sentence and left out."""
        made = []
        for name in self.config.exporters[signal]:
            if name == "console":
                if self.console is None:
                    self.say(
                        f"the console exporter of {signal} would draw over the app's screen; it is used with -p only."
                    )
                    continue
                module, cls = CONSOLE_CLASSES[signal]
                made.append(getattr(import_module(module), cls)(out=self.console, **options))
                continue
            protocol = self.config.protocols[signal]
            module, cls = OTLP_CLASSES[signal]
            package = "grpc" if protocol == "grpc" else "http"
            try:
                exporter_class = getattr(import_module(f"opentelemetry.exporter.otlp.proto.{package}.{module}"), cls)
            except ImportError:
                self.say(
                    f"OTLP over {protocol} needs OpenTelemetry's {protocol} exporter: {EXTRA_HINT}; {signal} are "
                    "not exported."
                )
                continue
            exporter = exporter_class(**options)
            self.endpoints[signal] = str(getattr(exporter, "_endpoint", "") or "the OTLP endpoint")
            made.append(exporter)
        return made

    def _metrics(self) -> None:
        from opentelemetry.sdk.metrics import Counter, MeterProvider
        from opentelemetry.sdk.metrics.export import AggregationTemporality, PeriodicExportingMetricReader

        options: dict[str, Any] = {}
        if not os.environ.get("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE"):
            options["preferred_temporality"] = {Counter: AggregationTemporality.DELTA}  # Claude Code's default
        readers = [
            PeriodicExportingMetricReader(exporter, export_interval_millis=self.config.intervals_ms["metrics"])
            for exporter in self.exporters("metrics", **options)
        ]
        if readers:
            provider = MeterProvider(resource=self.resource, metric_readers=readers, shutdown_on_exit=False)
            self.providers.append(provider)
            self.meter = provider.get_meter(METER_NAME, __version__)

    def _logs(self) -> None:
        from opentelemetry.sdk._logs import LoggerProvider
        from opentelemetry.sdk._logs.export import BatchLogRecordProcessor

        exporters = self.exporters("logs")
        if exporters:
            provider = LoggerProvider(resource=self.resource, shutdown_on_exit=False)
            for exporter in exporters:
                provider.add_log_record_processor(
                    BatchLogRecordProcessor(exporter, schedule_delay_millis=self.config.intervals_ms["logs"])
                )
            self.providers.append(provider)
            self.logger = provider.get_logger(LOGGER_NAME, __version__)

    def _traces(self) -> None:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        exporters = self.exporters("traces")
        if exporters:
            provider = TracerProvider(resource=self.resource, shutdown_on_exit=False)
            for exporter in exporters:
                provider.add_span_processor(
                    BatchSpanProcessor(exporter, schedule_delay_millis=self.config.intervals_ms["traces"])
                )
            self.providers.append(provider)
            self.tracer = provider.get_tracer(TRACER_NAME, __version__)

    def shutdown(self, timeout_s: float) -> bool:
        """Export what is left and stop, within `timeout_s` or until an export fails; True when it all went."""
        self._wake.clear()
        finished = threading.Event()

        def run() -> None:
            for provider in self.providers:
                try:
                    provider.shutdown()
                except Exception:  # a broken exporter must not break the exit
                    pass
            finished.set()
            self._wake.set()

        threading.Thread(target=run, name="telemetry-shutdown", daemon=True).start()
        self._wake.wait(timeout_s)
        return finished.is_set()
