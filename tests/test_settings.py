import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PRODUCTION = {
    "DJANGO_DEBUG": "0",
    "DJANGO_SECRET_KEY": "x7#kq2v!m9z@p4r8t1w6y3b5n0c2e7h9j4l6s8u1a3d5f7g9i0o2",
    "DJANGO_ALLOWED_HOSTS": "ratings.example.org",
}


def manage(*args, env, unset=()):
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**{name: value for name, value in os.environ.items() if name not in unset}, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_settings_pass_the_deployment_checklist():
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=PRODUCTION)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_refuses_to_start_without_a_secret_key():
    result = manage("check", env={**PRODUCTION, "DJANGO_SECRET_KEY": ""})

    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in result.stderr


def test_a_malformed_boolean_setting_is_refused_with_its_name():
    result = manage("check", env={"DJANGO_DEBUG": "maybe"})

    assert result.returncode != 0
    assert "DJANGO_DEBUG must be true/false" in result.stderr


def test_a_deployment_that_forgets_django_debug_runs_without_debug_pages():
    settings_printed = "from django.conf import settings; print('DEBUG', settings.DEBUG)"
    forgotten = {name: value for name, value in PRODUCTION.items() if name != "DJANGO_DEBUG"}

    result = manage("shell", "-c", settings_printed, env=forgotten, unset=["DJANGO_DEBUG"])

    assert result.returncode == 0, result.stdout + result.stderr
    assert "DEBUG False" in result.stdout


def test_a_deployment_that_forgets_both_debug_and_the_secret_key_refuses_to_start():
    result = manage("check", env={}, unset=["DJANGO_DEBUG", "DJANGO_SECRET_KEY"])

    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in result.stderr
