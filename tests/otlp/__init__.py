"""A real OTLP/HTTP receiver on loopback for the telemetry tests: it decodes every body with opentelemetry-proto."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest, ExportLogsServiceResponse
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

PATHS = {
    "/v1/metrics": (ExportMetricsServiceRequest, ExportMetricsServiceResponse),
    "/v1/logs": (ExportLogsServiceRequest, ExportLogsServiceResponse),
    "/v1/traces": (ExportTraceServiceRequest, ExportTraceServiceResponse),
}


def value(any_value: Any) -> Any:
    """An OTLP AnyValue as a Python value."""
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [value(v) for v in any_value.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: value(kv.value) for kv in any_value.kvlist_value.values}
    return getattr(any_value, kind) if kind else None


def attributes(pairs: Any) -> dict[str, Any]:
    return {kv.key: value(kv.value) for kv in pairs}


@dataclass
class Point:
    """One metric data point: its metric's name and unit, value, attributes and the resource it came from."""

    name: str
    unit: str
    value: float
    attributes: dict[str, Any]
    resource: dict[str, Any]
    scope: str


@dataclass
class Record:
    body: Any
    attributes: dict[str, Any]
    resource: dict[str, Any]
    scope: str
    event_name: str = ""


@dataclass
class Span:
    name: str
    trace_id: str
    span_id: str
    parent_span_id: str
    attributes: dict[str, Any]
    status: int
    start_ns: int
    end_ns: int
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


class Received:
    """What a receiver was sent, by signal path, decoded; and the views the tests read it through."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, Any, dict[str, str]]] = []
        self.lock = threading.Lock()

    def keep(self, path: str, message: Any, headers: dict[str, str]) -> None:
        with self.lock:
            self.requests.append((path, message, headers))

    def _of(self, path: str) -> list[Any]:
        with self.lock:
            return [message for p, message, _ in self.requests if p == path]

    def points(self, name: str | None = None) -> list[Point]:
        found = []
        for request in self._of("/v1/metrics"):
            for rm in request.resource_metrics:
                resource = attributes(rm.resource.attributes)
                for sm in rm.scope_metrics:
                    for metric in sm.metrics:
                        if name is not None and metric.name != name:
                            continue
                        data = metric.sum.data_points if metric.HasField("sum") else metric.gauge.data_points
                        for dp in data:
                            number = dp.as_double if dp.WhichOneof("value") == "as_double" else dp.as_int
                            found.append(
                                Point(
                                    metric.name, metric.unit, number, attributes(dp.attributes), resource, sm.scope.name
                                )
                            )
        return found

    def total(self, name: str, **match: Any) -> float:
        """The sum of a counter's points whose attributes include `match` (the export is delta, so points add)."""
        return sum(p.value for p in self.points(name) if all(p.attributes.get(k) == v for k, v in match.items()))

    def records(self, body: str | None = None) -> list[Record]:
        found = []
        for request in self._of("/v1/logs"):
            for rl in request.resource_logs:
                resource = attributes(rl.resource.attributes)
                for sl in rl.scope_logs:
                    for lr in sl.log_records:
                        record = Record(
                            value(lr.body), attributes(lr.attributes), resource, sl.scope.name, lr.event_name
                        )
                        if body is None or record.body == body:
                            found.append(record)
        return found

    def spans(self, name: str | None = None) -> list[Span]:
        found = []
        for request in self._of("/v1/traces"):
            for rs in request.resource_spans:
                for ss in rs.scope_spans:
                    for s in ss.spans:
                        if name is not None and s.name != name:
                            continue
                        found.append(
                            Span(
                                s.name,
                                s.trace_id.hex(),
                                s.span_id.hex(),
                                s.parent_span_id.hex(),
                                attributes(s.attributes),
                                s.status.code,
                                s.start_time_unix_nano,
                                s.end_time_unix_nano,
                                [(e.name, attributes(e.attributes)) for e in s.events],
                            )
                        )
        return found


class OtlpReceiver(Received):
    """Serves POST /v1/metrics, /v1/logs and /v1/traces on 127.0.0.1; `status` other than 200 refuses them."""

    def __init__(self, status: int = 200) -> None:
        super().__init__()
        self.status = status
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                kinds = PATHS.get(self.path)
                if kinds is None or receiver.status != 200:
                    self.send_response(404 if kinds is None else receiver.status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                message = kinds[0]()
                message.ParseFromString(body)
                receiver.keep(self.path, message, dict(self.headers))
                answer = kinds[1]().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> OtlpReceiver:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


class OtlpGrpcReceiver(Received):
    """The OTLP/gRPC services (metrics, logs, traces) on 127.0.0.1, insecure, kept by the same paths."""

    def __init__(self) -> None:
        super().__init__()
        from concurrent import futures

        import grpc
        from opentelemetry.proto.collector.logs.v1 import logs_service_pb2_grpc as logs
        from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2_grpc as metrics
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc as traces

        receiver = self

        def servicer(base: type, path: str) -> Any:
            class Servicer(base):  # type: ignore[misc, valid-type]
                def Export(self, request: Any, context: Any) -> Any:  # noqa: N802 - the service's name
                    receiver.keep(path, request, {})
                    return PATHS[path][1]()

            return Servicer()

        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        metrics.add_MetricsServiceServicer_to_server(
            servicer(metrics.MetricsServiceServicer, "/v1/metrics"), self.server
        )
        logs.add_LogsServiceServicer_to_server(servicer(logs.LogsServiceServicer, "/v1/logs"), self.server)
        traces.add_TraceServiceServicer_to_server(servicer(traces.TraceServiceServicer, "/v1/traces"), self.server)
        self.port = self.server.add_insecure_port("127.0.0.1:0")

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> OtlpGrpcReceiver:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop(None)
