"""What an attacker or a failure shows of the site: forms need their CSRF token, cookies and headers are
those of an HTTPS site in production, errors are plain pages without stack traces, /healthz tells
load balancers whether the database answers.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.http import HttpResponse
from django.test import Client
from django.urls import path

from events.models import Event
from tests.clients import client_of
from tests.config.test_security_urls import site_urls
from tests.factories import PASSWORD, EventFactory, UserFactory

ROOT = Path(__file__).resolve().parents[2]

PRODUCTION = {
    "DJANGO_DEBUG": "0",
    "DJANGO_SECRET_KEY": "k3#vq8!m2z@p9r4t7w1y6b0n5c8e3h2j7l9s4u6a1d8f3g5i2o7",
    "DJANGO_ALLOWED_HOSTS": "ratings.example.org",
}


# CSRF -----------------------------------------------------------------------------------------------------------


def form_token(response) -> str:
    html = response.content.decode()
    marker = 'name="csrfmiddlewaretoken" value="'
    start = html.index(marker) + len(marker)
    return html[start : html.index('"', start)]


@pytest.mark.django_db
@pytest.mark.parametrize("persona", ["anonymous", "organizer"])
def test_no_page_accepts_a_post_without_its_csrf_token(personas_and_ids, persona):
    """Every URL, POSTed to as from another site: refused (403) or not a form at all (405); nothing changes."""
    client = client_of(personas_and_ids["people"][persona], enforce_csrf_checks=True)
    events = set(Event.objects.values_list("pk", "status", "name"))

    answers = {
        name: client.post(url, {"name": "Changed"}).status_code
        for name, url in site_urls(personas_and_ids["ids"]).items()
    }
    # The language switcher takes no token, so that the pages carrying it stay cacheable: a cookie with the
    # visitor's language is all it sets (tests/public/test_german_pages.py).
    assert answers.pop("set_language") == 302

    assert {name: status for name, status in answers.items() if status not in (403, 405)} == {}
    assert answers["organize:event_create"] == 403
    assert answers["organize:upload"] == 403
    assert answers["corrections:appeal_new"] == 403
    assert answers["logout"] == 403
    assert set(Event.objects.values_list("pk", "status", "name")) == events


@pytest.mark.django_db
def test_a_refused_form_says_how_to_send_it_again():
    response = client_of(None, enforce_csrf_checks=True).post(
        "/accounts/login/", {"username": "someone", "password": "x"}
    )

    assert response.status_code == 403
    assert "This form has expired" in response.content.decode()


@pytest.mark.django_db
def test_with_its_token_the_same_form_is_accepted(organizer):
    client = client_of(organizer, enforce_csrf_checks=True)
    token = form_token(client.get("/organize/events/new/"))

    response = client.post(
        "/organize/events/new/",
        {"csrfmiddlewaretoken": token, "name": "Token Open", "date": "2024-05-01", "format": "standard",
         "team_size": "1", "k": "16", "player_count": "8", "structure": "swiss"},
    )  # fmt: skip

    assert response.status_code == 302
    assert Event.objects.filter(name="Token Open", organizer=organizer).exists()


@pytest.mark.django_db
def test_signing_in_needs_the_token_of_the_sign_in_page():
    user = UserFactory()
    client = client_of(None, enforce_csrf_checks=True)
    token = form_token(client.get("/accounts/login/"))

    response = client.post(
        "/accounts/login/", {"csrfmiddlewaretoken": token, "username": user.username, "password": PASSWORD}
    )

    assert response.status_code == 302
    assert "_auth_user_id" in client.session


# error pages ----------------------------------------------------------------------------------------------------


def page_that_breaks(request):
    raise RuntimeError("secret detail: the table ratings_secret is gone")


def page_that_works(request):
    return HttpResponse("fine")


urlpatterns = [path("breaks/", page_that_breaks), path("works/", page_that_works)]


@pytest.mark.django_db
def test_a_missing_page_is_the_sites_own_404_without_debug_details(client):
    response = client.get("/no-such-page/")

    assert response.status_code == 404
    html = response.content.decode()
    assert "Page not found" in html and "Card game ratings" in html
    assert "URLconf" not in html and "Traceback" not in html


@pytest.mark.django_db
def test_a_page_that_breaks_answers_a_plain_500_that_tells_nothing_of_the_error(settings):
    settings.ROOT_URLCONF = __name__
    client = Client(raise_request_exception=False)

    response = client.get("/breaks/")

    assert response.status_code == 500
    html = response.content.decode()
    assert "Something went wrong" in html
    assert "secret detail" not in html and "Traceback" not in html and "RuntimeError" not in html


@pytest.mark.django_db
def test_a_page_that_breaks_is_reported_to_the_operators_once_with_its_traceback(settings, mailoutbox):
    settings.ROOT_URLCONF = __name__
    settings.ADMINS = [("", "ops@example.org")]

    Client(raise_request_exception=False).get("/breaks/")

    assert len(mailoutbox) == 1
    report = mailoutbox[0]
    assert report.to == ["ops@example.org"] and "/breaks/" in report.subject
    assert "secret detail" in report.body and "Traceback" in report.body


@pytest.fixture
def job_loggers_restored():
    import logging

    loggers = [logging.getLogger(name) for name in ("django_tasks", "django_tasks_db")]
    levels = [each.level for each in loggers]
    yield
    for each, level in zip(loggers, levels, strict=True):
        each.setLevel(level)


def test_a_failed_background_job_is_reported_to_the_operators(settings, mailoutbox, job_loggers_restored):
    import logging

    from ratings.management.commands.db_worker import Command

    Command().configure_logging(0)  # the quietest worker (the job library would silence even failures)
    settings.ADMINS = [("", "ops@example.org")]
    try:
        raise RuntimeError("the recompute broke")
    except RuntimeError:
        logging.getLogger("django_tasks").exception("Task ratings.tasks.recompute_task failed")

    assert [mail.to for mail in mailoutbox] == [["ops@example.org"]]
    assert "the recompute broke" in mailoutbox[0].body


@pytest.mark.django_db
def test_a_forbidden_page_gives_its_reason(client):
    client.force_login(UserFactory())

    response = client.get("/organize/")

    assert response.status_code == 403
    assert "Only organizers report events" in response.content.decode()


@pytest.mark.django_db
def test_another_organizers_event_is_not_found_rather_than_forbidden(client, organizer, second_organizer):
    event = EventFactory(organizer=second_organizer)
    client.force_login(organizer)

    response = client.get(f"/organize/events/{event.pk}/")

    assert response.status_code == 404


# /healthz -------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_health_check_answers_ok_when_the_database_answers(client):
    response = client.get("/healthz", HTTP_HOST="10.0.0.7:8000")  # a probe by address, not a known host name

    assert response.status_code == 200
    assert response.content == b"ok\n"
    assert response["Cache-Control"] == "no-store"


# production settings, in a process of their own ------------------------------------------------------------------

PROBE = """
import json
from django.conf import settings
from django.test import Client
client = Client(raise_request_exception=False)
https = {"secure": True, "HTTP_HOST": "ratings.example.org"}
login = client.get("/accounts/login/", **https)
cookie = login.cookies["csrftoken"]
out = {
    "login": login.status_code,
    "hsts": login.get("Strict-Transport-Security"),
    "nosniff": login.get("X-Content-Type-Options"),
    "frame": login.get("X-Frame-Options"),
    "referrer": login.get("Referrer-Policy"),
    "csp": login.get("Content-Security-Policy"),
    "permissions": login.get("Permissions-Policy"),
    "csrf_cookie": {"secure": cookie["secure"], "httponly": cookie["httponly"], "samesite": cookie["samesite"]},
    "session": [settings.SESSION_COOKIE_SECURE, settings.SESSION_COOKIE_HTTPONLY, settings.SESSION_COOKIE_SAMESITE],
    "plain_http": client.get("/rankings/", HTTP_HOST="ratings.example.org").status_code,
    "plain_http_to": client.get("/rankings/", HTTP_HOST="ratings.example.org").get("Location"),
    "other_host": client.get("/", secure=True, HTTP_HOST="evil.example.com").status_code,
    "broken": client.get("/rankings/", **https).content.decode(),
    "broken_status": client.get("/rankings/", **https).status_code,
    "health": [client.get("/healthz").status_code, client.get("/healthz").content.decode()],
    "debug": settings.DEBUG,
}
print("PROBE" + json.dumps(out))
"""


@pytest.fixture(scope="module")
def production(tmp_path_factory):
    """What a production process answers, with a database that is not there (an empty SQLite file's
    directory is gone), so that pages needing it fail and /healthz says so."""
    missing = tmp_path_factory.mktemp("gone") / "nowhere" / "db.sqlite3"
    env = {
        **os.environ,
        **PRODUCTION,
        "DATABASE_URL": f"sqlite:///{missing}",
        "DJANGO_STATIC_ROOT": str(tmp_path_factory.mktemp("static")),
    }
    collected = subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=ROOT, env=env, timeout=300
    )
    assert collected.returncode == 0
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    line = next(line for line in result.stdout.splitlines() if line.startswith("PROBE"))
    return json.loads(line.removeprefix("PROBE")), result.stderr


def test_in_production_cookies_are_secure_http_only_and_same_site(production):
    probe, _ = production

    assert probe["debug"] is False
    assert probe["csrf_cookie"] == {"secure": True, "httponly": True, "samesite": "Lax"}
    assert probe["session"] == [True, True, "Lax"]


def test_in_production_pages_carry_hsts_and_the_other_security_headers(production):
    probe, _ = production

    assert probe["login"] == 200
    assert probe["hsts"] == "max-age=31536000; includeSubDomains; preload"
    assert (probe["nosniff"], probe["frame"], probe["referrer"]) == ("nosniff", "DENY", "same-origin")


def test_in_production_pages_run_only_the_sites_own_scripts_and_deny_unused_browser_features(production):
    probe, _ = production

    csp = dict(part.strip().split(" ", 1) for part in probe["csp"].split(";"))
    assert csp["default-src"] == "'self'"  # no inline script, nothing from another origin
    assert "script-src" not in csp and "unsafe-inline" not in probe["csp"]
    assert csp["frame-ancestors"] == "'none'" and csp["object-src"] == "'none'"
    assert "camera=()" in probe["permissions"] and "geolocation=()" in probe["permissions"]


def test_in_production_plain_http_is_sent_to_https_and_unknown_hosts_are_refused(production):
    probe, _ = production

    assert probe["plain_http"] == 301
    assert probe["plain_http_to"] == "https://ratings.example.org/rankings/"
    assert probe["other_host"] == 400


def test_in_production_a_database_failure_shows_the_plain_error_page_and_fails_the_health_check(production):
    probe, stderr = production

    assert probe["broken_status"] == 500
    assert "Something went wrong" in probe["broken"]
    assert "Traceback" not in probe["broken"] and "sqlite" not in probe["broken"].lower()
    assert probe["health"] == [503, "database unavailable\n"]
    assert "unable to open database file" in stderr  # the detail goes to the log, not to the visitor
