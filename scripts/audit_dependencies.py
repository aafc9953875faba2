#!/usr/bin/env python3
"""Audit the pinned dependencies for known vulnerabilities with pip-audit, and say plainly what was checked.

    .venv/bin/python scripts/audit_dependencies.py [requirements.txt ...]

pip-audit looks every package up in a vulnerability database (PyPI's, then
OSV's). When neither can be reached it still prints "No known
vulnerabilities found" and exits 0, having audited nothing. This script reads
its JSON report instead and exits:

- 0 when every dependency was audited and none has a known vulnerability;
- 1 when a dependency has a known vulnerability (listed, with the versions that fix it);
- 3 when some dependencies could not be audited (no database reachable, or
  not on PyPI): it lists them and says that they are NOT known to be safe.
  `.ci/run` reports this and goes on unless AUDIT_REQUIRED=1.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVICES = ("pypi", "osv")


def pip_audit() -> str:
    found = shutil.which("pip-audit", path=str(Path(sys.executable).parent)) or shutil.which("pip-audit")
    if not found:
        sys.exit("pip-audit is not installed: .venv/bin/pip install -r scripts/requirements-ops.txt")
    return found


def audit(requirements: list[str], service: str) -> tuple[dict | None, str]:
    """pip-audit's JSON report using one vulnerability database, or None and the last line of its error.

    Each file is audited on its own: pip refuses to resolve a file locked with hashes together with one
    without (requirements.txt is locked, scripts/requirements-ops.txt is not).
    """
    merged: dict = {"dependencies": []}
    for path in requirements:
        command = [pip_audit(), "--format", "json", "--progress-spinner", "off", "--vulnerability-service", service]
        result = subprocess.run([*command, "-r", path], cwd=ROOT, capture_output=True, text=True)
        try:
            merged["dependencies"] += json.loads(result.stdout)["dependencies"]
        except (json.JSONDecodeError, KeyError):
            lines = (result.stderr or result.stdout or "no output").strip().splitlines()
            return None, f"{path}: {lines[-1]}"
    return merged, ""


def skipped_count(report: dict) -> int:
    return sum(1 for dependency in report["dependencies"] if "skip_reason" in dependency)


def main() -> int:
    requirements = sys.argv[1:] or ["requirements.txt"]
    report, problems = None, []
    for service in SERVICES:
        answer, error = audit(requirements, service)
        if answer is None:
            problems.append(f"{service}: {error}")
            continue
        if report is None or skipped_count(answer) < skipped_count(report):
            report = answer
        if skipped_count(report) == 0:
            break  # this database answered for every dependency
        problems.append(f"{service}: {skipped_count(answer)} packages not found in its database")
    if report is None:
        print("DEPENDENCY AUDIT NOT DONE: pip-audit produced no report.", *problems, sep="\n  ")
        return 3
    dependencies = report["dependencies"]
    vulnerable = [dependency for dependency in dependencies if dependency.get("vulns")]
    skipped = [dependency for dependency in dependencies if "skip_reason" in dependency]
    for dependency in vulnerable:
        for vuln in dependency["vulns"]:
            fixed = ", ".join(vuln.get("fix_versions") or []) or "no fixed version yet"
            print(f"VULNERABLE {dependency['name']} {dependency['version']}: {vuln['id']} (fixed in {fixed})")
    audited = len(dependencies) - len(skipped)
    print(f"Dependency audit of {', '.join(requirements)}: {audited} of {len(dependencies)} packages audited, "
          f"{len(vulnerable)} with known vulnerabilities.")  # fmt: skip
    if vulnerable:
        return 1
    if skipped:
        print(
            f"DEPENDENCY AUDIT INCOMPLETE: {len(skipped)} packages could NOT be audited, so they are not known "
            "to be safe. The vulnerability databases (PyPI, OSV) could not be reached from this machine, or "
            "the packages are not on PyPI:"
        )
        for dependency in skipped:
            print(f"  {dependency['name']}: {dependency['skip_reason']}")
        for problem in problems:
            print(f"  ({problem})")
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
