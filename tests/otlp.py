"""OTLP JSON read with the reference protobuf classes (opentelemetry-proto).

OTLP's JSON encoding differs from protobuf's standard JSON mapping in one place: trace and span
ids are hex strings, not base64 (the OTLP specification, "JSON Protobuf Encoding"). They are
turned into base64 here, as a collector does, before protobuf's json_format parses the rest.
"""

from __future__ import annotations

import base64
import json
import re

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

IDS = {"traceId": 32, "spanId": 16, "parentSpanId": 16}


def parse_otlp(text: str) -> ExportTraceServiceRequest:
    """An OTLP JSON trace export as ExportTraceServiceRequest; raises when an id is not hex of the right length."""
    data = json.loads(text)
    for resource in data.get("resourceSpans", []):
        for scope in resource.get("scopeSpans", []):
            for span in scope.get("spans", []):
                for key, size in IDS.items():
                    value = span.get(key, "")
                    if key == "parentSpanId" and value == "":
                        continue
                    if not re.fullmatch(f"[0-9a-f]{{{size}}}", value):
                        raise ValueError(f"{key} {value!r} is not {size} hex digits")
                    span[key] = base64.b64encode(bytes.fromhex(value)).decode()
    return json_format.ParseDict(data, ExportTraceServiceRequest())


def spans(request: ExportTraceServiceRequest) -> list:
    """Every span of an export."""
    return [s for rs in request.resource_spans for ss in rs.scope_spans for s in ss.spans]
