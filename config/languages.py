"""The API answers in English whatever the visitor's language: its messages, errors and names are data
for programs, the same for every client. Its reference page (/api/docs/) is a page for people, and is
translated like the others."""

from django.utils import translation

API_PREFIX = "/api/"
API_PAGES = ("/api/docs/",)


def api_in_english(get_response):
    """Middleware, after LocaleMiddleware: English for the API's answers."""

    def middleware(request):
        if not request.path.startswith(API_PREFIX) or request.path in API_PAGES:
            return get_response(request)
        with translation.override("en"):
            request.LANGUAGE_CODE = "en"
            response = get_response(request)
        response.headers["Content-Language"] = "en"  # LocaleMiddleware, outside, keeps it
        return response

    return middleware
