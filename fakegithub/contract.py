"""GitHub's own API descriptions as the fake's contract.

GitHub publishes its GraphQL schema and the OpenAPI description of its REST API. When a contract
is in force, the fake checks every request against them before its own rules run:

- every GraphQL document is validated against GitHub's full schema (graphql-core, loaded with
  `assume_valid_sdl`), with deprecated fields and enum values counted as errors — GitHub removes
  them on a published date, and a query that uses one fails for everyone on that day;
- every REST request body is validated against the request schema of its operation in the OpenAPI
  description (unknown enum values, missing required fields, wrong types, lengths), as GitHub's own
  request validation does, answering 422 "Invalid request." like GitHub.

The descriptions are large (1.2 MB of SDL, 13 MB of JSON), so a contract is loaded once per
process and only on first use. Tests switch it on for the whole suite (`use_dir`) when the
descriptions are present; `recipe-review fake-github --contract DIR` does the same for a server.
"""
from __future__ import annotations

import json
import lzma
import re
import threading
from dataclasses import dataclass
from pathlib import Path

GRAPHQL_FILE = "graphql-schema.graphql.xz"
OPENAPI_FILE = "rest-openapi.json.xz"
_BASE = "urn:github-rest-openapi"  # the URI the OpenAPI document is registered under for `$ref`s
# Where GitHub's OpenAPI request schema is narrower than GitHub itself, in the operation's own words:
# the labels endpoints say "You can also pass an `array` of labels directly", the form PyGithub's
# `Issue.add_to_labels` / `set_labels` send, while their schema lists only `{"labels": [...]}`.
# Such a body is validated in its documented equivalent form.
_EQUIVALENT_FORMS = {
    ("POST", "/repos/{owner}/{repo}/issues/{issue_number}/labels"): lambda b: (
        {"labels": b} if isinstance(b, list) else b
    ),
    ("PUT", "/repos/{owner}/{repo}/issues/{issue_number}/labels"): lambda b: (
        {"labels": b} if isinstance(b, list) else b
    ),
}


def _read(path: Path) -> str:
    raw = path.read_bytes()
    return (lzma.decompress(raw) if path.suffix == ".xz" else raw).decode("utf-8")


@dataclass(frozen=True)
class Operation:
    method: str
    template: str  # `/repos/{owner}/{repo}/check-runs`
    pattern: re.Pattern
    literals: int  # literal path segments: the most specific template wins
    pointer: str | None  # JSON pointer of the JSON request-body schema, None when the operation takes none
    body_required: bool
    doc: str


class Contract:
    """GitHub's GraphQL schema and REST OpenAPI description, checked against requests."""

    def __init__(self, graphql_sdl: str | None = None, openapi: dict | None = None):
        self._schema = None
        self._sdl = graphql_sdl
        self._openapi = openapi
        self._ops: dict[str, list[Operation]] | None = None
        self._validators: dict[str, object] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_dir(cls, directory: Path) -> Contract:
        directory = Path(directory)
        sdl = next((p for p in (directory / GRAPHQL_FILE, directory / GRAPHQL_FILE[:-3]) if p.exists()), None)
        api = next((p for p in (directory / OPENAPI_FILE, directory / OPENAPI_FILE[:-3]) if p.exists()), None)
        return cls(_read(sdl) if sdl else None, json.loads(_read(api)) if api else None)

    # -- GraphQL -------------------------------------------------------------------------------
    @property
    def graphql_schema(self):
        with self._lock:
            if self._schema is None and self._sdl is not None:
                from graphql import build_schema

                # GitHub's schema breaks a graphql-js rule (deprecated fields that implement non-deprecated
                # interface fields): take it as published, as GitHub serves it.
                self._schema = build_schema(self._sdl, assume_valid_sdl=True, assume_valid=True)
                self._sdl = None
            return self._schema

    def graphql_errors(self, query: str, variables: dict | None = None) -> list[str]:
        """Why GitHub's schema rejects `query` (parse and validation errors, deprecated fields, variables
        that do not coerce to their declared types); [] when it is valid or no schema is loaded."""
        return [e.message for e in self.check_graphql(query, variables)]

    def check_graphql(self, query: str, variables: dict | None = None) -> list:
        """`graphql_errors`, as graphql-core's GraphQLError objects (with their locations)."""
        from graphql import GraphQLError, parse, specified_rules, validate
        from graphql.execution.values import get_variable_values
        from graphql.language import OperationDefinitionNode
        from graphql.validation import NoDeprecatedCustomRule

        schema = self.graphql_schema
        if schema is None:
            return []
        try:
            doc = parse(query)
        except GraphQLError as err:
            return [err]
        errors = list(validate(schema, doc, [*specified_rules, NoDeprecatedCustomRule]))
        if errors:
            return errors
        for op in doc.definitions:
            if isinstance(op, OperationDefinitionNode):
                coerced = get_variable_values(schema, op.variable_definitions or [], variables or {})
                if isinstance(coerced, list):
                    errors += coerced
        return errors

    # -- REST ----------------------------------------------------------------------------------
    def _operations(self) -> dict[str, list[Operation]]:
        with self._lock:
            if self._ops is None:
                self._ops = {}
                for template, item in (self._openapi or {}).get("paths", {}).items():
                    parts = template.strip("/").split("/")
                    regex = "^/" + "/".join("[^/]+" if p.startswith("{") else re.escape(p) for p in parts) + "/?$"
                    literals = sum(1 for p in parts if not p.startswith("{"))
                    for method, op in item.items():
                        if not isinstance(op, dict) or method not in ("get", "post", "put", "patch", "delete"):
                            continue
                        body = op.get("requestBody") or {}
                        content = (body.get("content") or {}).get("application/json")
                        pointer = None
                        if content and "schema" in content:
                            esc = template.replace("~", "~0").replace("/", "~1")
                            pointer = f"/paths/{esc}/{method}/requestBody/content/application~1json/schema"
                        self._ops.setdefault(method.upper(), []).append(Operation(
                            method.upper(), template, re.compile(regex), literals, pointer,
                            bool(body.get("required")), (op.get("externalDocs") or {}).get("url", "")))
                for ops in self._ops.values():
                    ops.sort(key=lambda o: -o.literals)
            return self._ops

    def operation(self, method: str, path: str) -> Operation | None:
        """The OpenAPI operation a request path matches (the most specific template), or None."""
        for op in self._operations().get(method.upper(), ()):
            if op.pattern.match(path):
                return op
        return None

    def _validator(self, pointer: str):
        with self._lock:
            v = self._validators.get(pointer)
            if v is None:
                from openapi_schema_validator import OAS30Validator, oas30_format_checker
                from referencing import Registry, Resource
                from referencing.jsonschema import DRAFT4

                registry = Registry().with_resource(_BASE, Resource.from_contents(
                    self._openapi, default_specification=DRAFT4))
                v = OAS30Validator({"$ref": f"{_BASE}#{pointer}"}, registry=registry,
                                   format_checker=oas30_format_checker)
                self._validators[pointer] = v
            return v

    def rest_errors(self, method: str, path: str, raw_body: bytes) -> tuple[list[str], str]:
        """(Why GitHub's request schema rejects this body, the operation's documentation URL)."""
        if self._openapi is None:
            return [], ""
        op = self.operation(method, path)
        if op is None or op.pointer is None:
            return [], op.doc if op else ""
        if not raw_body.strip():
            return ([f"a request body is required by {op.method} {op.template}"] if op.body_required else []), op.doc
        try:
            body = json.loads(raw_body)
        except (ValueError, UnicodeDecodeError):
            return [], op.doc  # the endpoint answers 400 "Problems parsing JSON" itself
        body = _EQUIVALENT_FORMS.get((op.method, op.template), lambda b: b)(body)
        errors = []
        for e in sorted(self._validator(op.pointer).iter_errors(body), key=lambda e: list(e.absolute_path)):
            where = "/".join(str(p) for p in e.absolute_path)
            errors.append(f"For '{where or 'body'}', {e.message}." if where else f"{e.message}.")
        return errors, op.doc

    @property
    def has_graphql(self) -> bool:
        return self._schema is not None or self._sdl is not None

    @property
    def has_rest(self) -> bool:
        return self._openapi is not None


_DEFAULT: dict = {"dir": None, "contract": None}
_DEFAULT_LOCK = threading.Lock()


def use_dir(directory: Path | None) -> None:
    """Make GitHub's descriptions in `directory` the default contract of every fake in this process
    (loaded on first use); None switches the default off."""
    with _DEFAULT_LOCK:
        _DEFAULT["dir"] = Path(directory) if directory is not None else None
        _DEFAULT["contract"] = None


def default() -> Contract | None:
    """The process-wide contract (see `use_dir`), loading it the first time it is asked for."""
    with _DEFAULT_LOCK:
        if _DEFAULT["contract"] is None and _DEFAULT["dir"] is not None:
            _DEFAULT["contract"] = _cached(_DEFAULT["dir"])
        return _DEFAULT["contract"]


_LOADED: dict[Path, Contract] = {}


def _cached(directory: Path) -> Contract:
    key = directory.resolve()
    if key not in _LOADED:
        _LOADED[key] = Contract.from_dir(key)
    return _LOADED[key]


def load(directory: Path) -> Contract:
    """The contract in `directory`, loaded once per process."""
    with _DEFAULT_LOCK:
        return _cached(Path(directory))
