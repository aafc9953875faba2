"""GET /healthz for load balancers and monitors: 200 "ok" when the site reaches its database, else 503.

A middleware, listed first: a probe needs no allowed host name, no HTTPS
redirect and no session, and learns nothing else about the site.
"""

from django.db import DatabaseError, connection
from django.http import HttpResponse

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
            response = HttpResponse("ok\n", content_type="text/plain")
        response["Cache-Control"] = "no-store"
        return response

    return middleware
