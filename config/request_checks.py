"""Requests carrying control characters are refused before any view reads them.

A NUL or another control character has no business in an address or a query
(no name, number, date or search contains one); PostgreSQL refuses NUL in
text outright, so a view passing one to a query would fail with a server
error. Tab, line feed and carriage return are let through: forms send them
in free text. Form bodies are left to the forms, whose fields refuse NUL.
"""

import re

from django.http import JsonResponse
from django.shortcuts import render

CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
MESSAGE = "The address holds a control character (such as NUL), which no page or parameter accepts."


def _crafted(request) -> bool:
    texts = [request.path]
    for key, values in request.GET.lists():
        texts += [key, *values]
    return any(CONTROL.search(text) for text in texts)


def control_characters_refused(get_response):
    def middleware(request):
        if _crafted(request):
            if request.path.startswith("/api/"):
                body = {"status": 400, "error": "bad_request", "message": MESSAGE, "details": []}
                return JsonResponse(body, status=400)
            return render(request, "400.html", {"message": MESSAGE}, status=400)
        return get_response(request)

    return middleware
