from django.contrib import admin
from django.urls import include, path

from public import home

urlpatterns = [
    path("", home.home, name="home"),
    # Browsers ask for /favicon.ico whatever the pages link: send them to the icon the pages link.
    path("favicon.ico", home.favicon, name="favicon"),
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
