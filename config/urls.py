from django.contrib import admin
from django.urls import include, path

from events import views as event_views

urlpatterns = [
    path("", event_views.home, name="home"),
    path("", include("ratings.urls")),  # /rankings/...
    path("", include("players.urls")),  # /players/..., /teams/...
    path("", include("events.urls")),  # /events/...
    path("", include("calculator.urls")),  # /calculator/
    path("", include("corrections.urls")),  # /corrections/..., /appeals/...
    path("organize/", include("events.organize_urls")),  # organizers report events
    path("accounts/", include("accounts.urls")),  # the account page and signing in
    path("accounts/", include("django.contrib.auth.urls")),  # signing out, password change and reset
    path("api/", include("api.urls")),
    path("admin/", admin.site.urls),
]
