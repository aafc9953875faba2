"""GET /healthz for load balancers and monitors: 200 "ok" when the site reaches its database, else 503.

With standbys (DATABASE_REPLICA_URLS), a line each says its replay lag or why reads leave it out; a standby
never makes the answer a 503, since reads then go to the primary (lib/replicas.py).

A middleware, listed first: a probe needs no allowed host name, no HTTPS
redirect and no session, and learns nothing else about the site.
"""

from django.db import DatabaseError, connection
from django.http import HttpResponse

from lib.replicas import standby_states

HEALTH_PATH = "/healthz"


def health_check(get_response):
    def middleware(request):
        if request.path != HEALTH_PATH or request.method not in ("GET", "HEAD"):
            return get_response(request)
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
        except DatabaseError:
            response = HttpResponse("database unavailable\n", status=503, content_type="text/plain")
        else:
            # The states as this process last checked them (at most every REPLICA_CHECK_SECONDS).
            lines = ["ok"] + [_standby_line(state) for state in standby_states()]
            response = HttpResponse("\n".join(lines) + "\n", content_type="text/plain")
        response["Cache-Control"] = "no-store"
        return response

    return middleware


def _standby_line(state) -> str:
    if state.usable:
        return f"standby {state.alias}: lag {state.lag:.1f} s"
    return f"standby {state.alias}: not read ({state.problem})"
