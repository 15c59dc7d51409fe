"""Merges benchmark figures into .build/bench/results.json, keeping every other entry."""

import json
import os
import sys


def merge(results_path, rows, tool):
    """Writes `rows` ({name: {"value", "unit", "reference", "ratio"}}) into the results file atomically."""
    results = {}
    if os.path.exists(results_path):
        try:
            with open(results_path) as file:
                results = json.load(file)
        except ValueError:
            sys.exit(f"{tool}: {results_path} exists but is not JSON; move it away or fix it")
        if not isinstance(results, dict):
            sys.exit(f"{tool}: {results_path} is not a JSON object; move it away or fix it")
    results.update(rows)
    os.makedirs(os.path.dirname(results_path) or ".", exist_ok=True)
    with open(results_path + ".tmp", "w") as file:
        json.dump(results, file, indent=2, sort_keys=True)
        file.write("\n")
    os.replace(results_path + ".tmp", results_path)
