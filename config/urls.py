from django.contrib import admin
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt
from django.views.i18n import set_language

from public import home

urlpatterns = [
    path("", home.home, name="home"),
    # Browsers ask for /favicon.ico whatever the pages link: send them to the icon the pages link.
    path("favicon.ico", home.favicon, name="favicon"),
    # The language switcher on every page. Without a CSRF token, so that the pages carrying it stay
    # the same for every visitor (and cacheable): all another site could do with it is change a
    # visitor's language, which the visitor sees and changes back.
    path("language/", csrf_exempt(set_language), name="set_language"),
    path("", include("public.ranking_urls")),  # /rankings/...
    path("", include("public.player_urls")),  # /players/..., /teams/...
    path("", include("public.event_urls")),  # /events/...
    path("", include("calculator.urls")),  # /calculator/
    path("", include("corrections.urls")),  # /corrections/..., /appeals/...
    path("organize/", include("organize.urls")),  # organizers report events
    path("accounts/", include("accounts.urls")),  # the account page and signing in
    path("accounts/", include("django.contrib.auth.urls")),  # signing out, password change and reset
    path("api/", include("api.urls")),
    path("admin/", admin.site.urls),
]
