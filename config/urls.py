from django.contrib import admin
from django.urls import path

from events import views as event_views

urlpatterns = [
    path("", event_views.home, name="home"),
    path("admin/", admin.site.urls),
]
