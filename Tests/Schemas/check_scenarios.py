#!/usr/bin/env python3
"""Public/scenarios/schema/scenario.schema.json is a valid JSON Schema (2020-12), every shipped scenario
validates against it, and files `tipjar scenario run` refuses are refused by the schema too.
Exit 0 when all hold, else 1 with every problem printed."""
import glob
import json
import os
import sys

import jsonschema

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FOLDER = os.path.join(ROOT, "Public", "scenarios")

# Files the runner refuses (Tests/TipJarDashboardTests/Scenarios/ScenarioFormatTests.swift has the
# locations it names); the schema must refuse them as well.
REFUSED = [
    {"steps": [{"step": "store"}]},
    {"name": "x", "steps": []},
    {"name": "x", "colour": "red", "steps": [{"step": "store"}]},
    {"name": "x", "steps": [{"step": "fly"}]},
    {"name": "x", "steps": [{"step": "store", "install": "a"}]},
    {"name": "x", "steps": [{"step": "createInstall", "install": "a", "expect": {"hearts": "two"}}]},
    {"name": "x", "steps": [{"step": "createInstall", "install": "a", "expect": {"hearts": 6}}]},
    {"name": "x", "steps": [{"step": "purchase", "install": "a"}]},
    {"name": "x", "steps": [{"step": "purchase", "install": "a", "productID": "p", "tabs": 9}]},
    {"name": "x", "steps": [{"step": "wait", "install": "a", "until": {}}]},
    {"name": "x", "steps": [{"step": "wait", "install": "a", "until": {"status": 200}}]},
    {"name": "x", "format": 2, "steps": [{"step": "store"}]},
]


def main():
    problems = []
    with open(os.path.join(FOLDER, "schema", "scenario.schema.json"), encoding="utf-8") as handle:
        schema = json.load(handle)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    files = sorted(path for path in glob.glob(os.path.join(FOLDER, "*.json")))
    for path in files:
        with open(path, encoding="utf-8") as handle:
            for error in validator.iter_errors(json.load(handle)):
                problems.append(f"{os.path.basename(path)}: {'/'.join(map(str, error.absolute_path)) or '(root)'}: {error.message[:300]}")
    for index, document in enumerate(REFUSED):
        if validator.is_valid(document):
            problems.append(f"refused example {index} is valid under the schema: {json.dumps(document)}")
    if problems:
        print("\n".join(f"check_scenarios.py: {problem}" for problem in problems))
        return 1
    print(f"check_scenarios.py: the schema is valid; {len(files)} shipped scenario(s) match it; {len(REFUSED)} refused files are refused")
    return 0


if __name__ == "__main__":
    sys.exit(main())
