#!/usr/bin/env python3
"""Every operation of Public/api/openapi.json shows what it takes and what it answers, and its examples are true.

1. An operation with a request body has an example of it in each of its media types (`example`, or `examples`
   with a `value` each: OpenAPI 3.1 §4.8.14).
2. Each success status (2xx) of an operation that answers with a body has an example in each of its media types.
3. Every JSON example validates against the schema next to it (jsonschema, JSON Schema 2020-12 as OpenAPI 3.1 uses);
   an example of a text media type (text/csv) is a string.

Needs no server. Exit 0 when all hold; otherwise every problem is printed and the exit status is 1.
check_openapi.py runs it too.
"""
import json
import os
import sys

import jsonschema

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEC_PATH = os.path.join(ROOT, "Public", "api", "openapi.json")
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def resolve(spec, node):
    while isinstance(node, dict) and "$ref" in node:
        target = spec
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node


def examples_of(content):
    """The example values of a media type object: its `example`, or the `value` of each of its `examples`."""
    if "example" in content:
        return [("example", content["example"])]
    return [(f"examples.{name}", resolve_value(example)) for name, example in content.get("examples", {}).items()]


def resolve_value(example):
    return example.get("value") if isinstance(example, dict) else None


def check_content(spec, where, content, problems):
    """Problems with the examples of one `content` map (media type → media type object)."""
    for media, item in content.items():
        item = resolve(spec, item)
        found = examples_of(item)
        if not found:
            problems.append(f"{where} {media}: no example")
            continue
        for name, value in found:
            if media.startswith("text/"):
                if not isinstance(value, str) or not value:
                    problems.append(f"{where} {media} {name}: a text example must be a non-empty string")
                continue
            if "schema" not in item:
                continue
            schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "components": spec["components"],
                      "allOf": [item["schema"]]}
            validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
            for error in validator.iter_errors(value):
                location = "/".join(str(part) for part in error.absolute_path) or "(root)"
                problems.append(f"{where} {media} {name}: {location}: {error.message[:300]}")


def problems_in(spec):
    problems = []
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method not in METHODS:
                continue
            name = f"{method.upper()} {path}"
            body = resolve(spec, operation.get("requestBody", {}))
            if body:
                check_content(spec, f"{name} request", body.get("content", {}), problems)
            for status, answer in operation.get("responses", {}).items():
                if status.startswith("2"):
                    check_content(spec, f"{name} -> {status}", resolve(spec, answer).get("content", {}), problems)
    return problems


def main():
    with open(SPEC_PATH, encoding="utf-8") as handle:
        spec = json.load(handle)
    problems = problems_in(spec)
    for problem in problems:
        print(f"check_examples.py: {problem}")
    if problems:
        print(f"check_examples.py: FAILED with {len(problems)} problem(s)")
        return 1
    operations = sum(1 for item in spec["paths"].values() for method in item if method in METHODS)
    print(f"check_examples.py: all {operations} operations have a request example (when they take a body) and an answer "
          "example for each success status, each valid against its schema")
    return 0


if __name__ == "__main__":
    sys.exit(main())
