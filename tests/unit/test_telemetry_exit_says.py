"""An export that fails while the exit waits for telemetry is said before the exit goes on (ci24, ci25 and a suite
run: `-p` ended with an empty stderr, the process gone before the sentence was written)."""

from __future__ import annotations

import logging
import time

from tui.telemetry.config import TelemetryConfig
from tui.telemetry.pipeline import Pipeline


class _FailingProvider:
    """A provider whose last export is refused (the exporter logs it) and that then goes on retrying."""

    def shutdown(self) -> None:
        logging.getLogger("opentelemetry.exporter.otlp.proto.http.metric_exporter").warning(
            "Transient error Connection refused encountered while exporting metrics batch, retrying in 1.00s."
        )
        time.sleep(2)


def test_the_failure_is_said_before_the_exit_stops_waiting() -> None:
    said: list[str] = []

    def on_failure(endpoint: str, why: str) -> None:
        time.sleep(0.3)  # a loaded machine: the thread that says it is slow
        said.append(f"{endpoint} {why}")

    sdk_logger = logging.getLogger("opentelemetry")
    handlers, propagate = list(sdk_logger.handlers), sdk_logger.propagate
    try:
        pipeline = Pipeline(TelemetryConfig(), None, on_failure, said.append)  # routes the SDK's log lines
        pipeline.providers.append(_FailingProvider())
        started = time.monotonic()
        pipeline.shutdown(10)
        assert time.monotonic() - started < 2  # the failure woke the exit: no waiting out the retries
        assert said == ["the OTLP endpoint refused the connection"]  # and it was said before that
    finally:
        sdk_logger.handlers[:], sdk_logger.propagate = handlers, propagate
