from django.conf import settings
from django.http import JsonResponse
from django.shortcuts import render
from django.urls import reverse

from api.docs import openapi_reference
from api.endpoints import api


def index(request):
    """/api/: where to start."""
    links = {
        name: request.build_absolute_uri(reverse(f"api:{name}"))
        for name in ("categories", "players", "events", "docs", "openapi-json")
    }
    return JsonResponse({"title": api.title, "version": api.version, "links": links})


def docs(request):
    """The API reference as a plain page, rendered from the OpenAPI document: no JavaScript, no CDN."""
    return render(
        request,
        "api/docs.html",
        {
            "reference": openapi_reference(api.get_openapi_schema()),
            "swagger_url": reverse("api:openapi-view") if "ninja" in settings.INSTALLED_APPS else None,
        },
    )


def not_found(request, *args, **kwargs):
    """Any other URL under /api/: a JSON 404 in the API's error shape, not the site's HTML page."""
    body = {
        "status": 404,
        "error": "not_found",
        "message": f"No API endpoint at {request.path}: see {reverse('api:docs')} for the endpoints.",
        "details": [],
    }
    return JsonResponse(body, status=404)
