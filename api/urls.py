from django.urls import path, re_path

from api import views
from api.endpoints import api

app_name = "api"

# django-ninja's patterns (openapi.json and the endpoints) live in this app's namespace, as
# NinjaAPI(urls_namespace="api") expects; the docs page and the JSON 404 for everything else are ours.
endpoint_patterns, _, _ = api.urls

urlpatterns = [
    path("", views.index, name="index"),
    path("docs/", views.docs, name="docs"),
    *endpoint_patterns,
    re_path(r"^.*$", views.not_found, name="not-found"),
]
