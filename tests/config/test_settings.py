import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

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


def served(module: str, *, env, unset=()):
    """Load the application gunicorn (config.wsgi) or an ASGI server (config.asgi) would serve."""
    return subprocess.run(
        [sys.executable, "-c", f"import {module}"],
        cwd=ROOT,
        env={**{name: value for name, value in os.environ.items() if name not in unset}, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("module", ["config.wsgi", "config.asgi"])
def test_production_refuses_to_serve_without_a_secret_key(module):
    result = served(module, env={**PRODUCTION, "DJANGO_SECRET_KEY": ""})

    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in result.stderr


def test_production_serves_with_a_secret_key():
    result = served("config.wsgi", env=PRODUCTION)

    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("module", ["config.wsgi", "config.asgi"])
def test_the_served_application_keeps_what_loading_made_out_of_the_collectors_passes(module):
    shown = "import gc; print(gc.get_freeze_count() > 0, gc.get_threshold())"
    result = subprocess.run(
        [sys.executable, "-c", f"import {module}; {shown}"],
        cwd=ROOT,
        env={**os.environ, **PRODUCTION},
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert result.stdout.split(None, 1) == ["True", "(20000, 20, 20)\n"], result.stderr


def test_the_deployment_checklist_fails_without_a_secret_key():
    result = manage("check", "--deploy", "--fail-level", "WARNING", env={**PRODUCTION, "DJANGO_SECRET_KEY": ""})

    assert result.returncode != 0
    assert "security.W009" in result.stdout + result.stderr


def test_the_migrations_check_needs_no_secret_key_nor_debug():
    # A developer's or CI's `manage.py makemigrations --check` in a bare shell: nothing to sign, nothing to serve.
    result = manage("makemigrations", "--check", "--dry-run", env={}, unset=["DJANGO_DEBUG", "DJANGO_SECRET_KEY"])

    assert result.returncode == 0, result.stdout + result.stderr
    assert "No changes detected" in result.stdout


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
    result = served("config.wsgi", env={}, unset=["DJANGO_DEBUG", "DJANGO_SECRET_KEY"])

    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in result.stderr


def settings_printed(*expressions: str, env: dict) -> list[str]:
    code = "import django.conf, django.core.mail, sentry_sdk; s = django.conf.settings\n" + "\n".join(
        f"print(repr({expression}))" for expression in expressions
    )
    result = manage("shell", "-v", "0", "-c", code, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.strip().splitlines()


def test_mail_goes_through_the_smtp_server_the_environment_names():
    server = {
        "EMAIL_HOST": "smtp.example.org",
        "EMAIL_PORT": "465",
        "EMAIL_USE_TLS": "0",
        "EMAIL_USE_SSL": "1",
        "EMAIL_HOST_USER": "ratings",
        "EMAIL_HOST_PASSWORD": "app password",
    }
    connection = "django.core.mail.get_connection()"

    printed = settings_printed(
        f"type({connection}).__module__",
        f"({connection}.host, {connection}.port, {connection}.username, {connection}.password)",
        f"({connection}.use_ssl, {connection}.use_tls, {connection}.timeout)",
        env={**PRODUCTION, **server},
    )

    assert printed == [
        "'django.core.mail.backends.smtp'",
        "('smtp.example.org', 465, 'ratings', 'app password')",
        "(True, False, 10)",
    ]


def test_without_a_mail_server_mail_is_printed_on_the_console():
    printed = settings_printed("type(django.core.mail.get_connection()).__module__", env={"EMAIL_HOST": ""})

    assert printed == ["'django.core.mail.backends.console'"]


def test_errors_are_mailed_to_the_operators_the_environment_names():
    printed = settings_printed(
        "s.ADMINS", "s.SERVER_EMAIL", env={**PRODUCTION, "DJANGO_ADMINS": "ops@example.org, b@x.org"}
    )

    assert printed == ["[('', 'ops@example.org'), ('', 'b@x.org')]", "'ratings@localhost'"]


def test_errors_are_reported_to_sentry_when_its_dsn_is_set_and_never_otherwise():
    dsn = "https://publickey@errors.example.org/42"
    active = "(sentry_sdk.get_client().is_active(), str(sentry_sdk.get_client().dsn or ''))"

    assert settings_printed(active, env={**PRODUCTION, "SENTRY_DSN": dsn}) == [f"(True, '{dsn}')"]
    assert settings_printed(active, env={**PRODUCTION, "SENTRY_DSN": ""}) == ["(False, '')"]
