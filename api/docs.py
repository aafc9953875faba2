"""The OpenAPI document turned into what the human docs page lists: operations, parameters, bodies.

Rendering the page from the document (instead of writing it by hand) keeps
the page as exact as the machine-readable /api/openapi.json.
"""

from dataclasses import dataclass, field

SCHEMA_REF = "#/components/schemas/"
METHODS = ("get", "post", "put", "patch", "delete")


@dataclass(frozen=True, slots=True)
class TypeText:
    """A JSON schema type as words, and the component schema it names (for a link), if any."""

    text: str
    ref: str = ""


@dataclass(frozen=True, slots=True)
class Property:
    name: str
    type: TypeText
    required: bool
    description: str
    default: str = ""
    location: str = ""  # parameters: path or query


@dataclass(frozen=True, slots=True)
class Response:
    status: str
    description: str
    body: TypeText | None

    @property
    def family(self) -> str:
        return f"{self.status[:1]}xx"  # 2xx, 4xx: how the page colours it


@dataclass(slots=True)
class Operation:
    method: str
    path: str
    anchor: str
    summary: str
    description: str
    parameters: list[Property]
    responses: list[Response]


@dataclass(slots=True)
class Reference:
    title: str
    version: str
    description: str
    groups: list[tuple[str, list[Operation]]] = field(default_factory=list)
    schemas: list[tuple[str, str, list[Property]]] = field(default_factory=list)


def type_text(schema: dict) -> TypeText:
    if "$ref" in schema:
        name = schema["$ref"].removeprefix(SCHEMA_REF)
        return TypeText(name, name)
    if "anyOf" in schema:
        options = [type_text(option) for option in schema["anyOf"]]
        refs = [option.ref for option in options if option.ref]
        return TypeText(" or ".join(option.text for option in options), refs[0] if refs else "")
    if "enum" in schema:
        return TypeText("one of " + ", ".join(f'"{value}"' for value in schema["enum"]))
    kind = schema.get("type", "any")
    if kind == "array":
        items = type_text(schema.get("items", {}))
        return TypeText(f"array of {items.text}", items.ref)
    if "format" in schema:
        return TypeText(f"{kind} ({schema['format']})")
    return TypeText(kind)


def _properties(schema: dict) -> list[Property]:
    required = set(schema.get("required", ()))
    return [
        Property(name, type_text(spec), name in required, spec.get("description", ""), _default(spec))
        for name, spec in schema.get("properties", {}).items()
    ]


def _default(spec: dict) -> str:
    if "default" not in spec or spec["default"] in ("", None, []):
        return ""
    return str(spec["default"]).lower() if isinstance(spec["default"], bool) else str(spec["default"])


def _operation(path: str, method: str, spec: dict) -> Operation:
    parameters = [
        Property(
            parameter["name"],
            type_text(parameter.get("schema", {})),
            parameter.get("required", False),
            parameter.get("description", ""),
            _default(parameter.get("schema", {})),
            parameter["in"],
        )
        for parameter in spec.get("parameters", ())
    ]
    responses = []
    for status, response in spec.get("responses", {}).items():
        body = response.get("content", {}).get("application/json", {}).get("schema")
        responses.append(Response(str(status), response.get("description", ""), type_text(body) if body else None))
    summary, description = spec.get("summary", ""), spec.get("description", "")
    # GET /api/events/{event_id}/ -> get-api-events-event_id
    anchor = f"{method}-{path.strip('/')}".replace("/", "-").replace("{", "").replace("}", "")
    return Operation(method.upper(), path, anchor, summary, description, parameters, responses)


def openapi_reference(document: dict) -> Reference:
    info = document.get("info", {})
    reference = Reference(info.get("title", ""), info.get("version", ""), info.get("description", ""))
    groups: dict[str, list[Operation]] = {}
    for path, methods in document.get("paths", {}).items():
        for method in METHODS:
            if method in methods:
                spec = methods[method]
                tag = (spec.get("tags") or ["other"])[0]
                groups.setdefault(tag, []).append(_operation(path, method, spec))
    reference.groups = list(groups.items())
    # Query parameter models are listed with their operations; the page lists response bodies only.
    reference.schemas = [
        (name, schema.get("description", ""), _properties(schema))
        for name, schema in document.get("components", {}).get("schemas", {}).items()
        if not name.endswith("Params")
    ]
    return reference
