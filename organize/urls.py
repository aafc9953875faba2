from django.urls import path

from organize import views

app_name = "organize"

urlpatterns = [
    path("", views.index, name="index"),
    path("events/new/", views.event_create, name="event_create"),
    path("events/<int:event_id>/", views.event_detail, name="event"),
    path("events/<int:event_id>/edit/", views.event_edit, name="event_edit"),
    path("events/<int:event_id>/delete/", views.event_delete, name="event_delete"),
    path("events/<int:event_id>/upload/", views.results_upload, name="upload"),
    path("events/<int:event_id>/rounds/<int:round_number>/", views.round_entry, name="round"),
    path("events/<int:event_id>/standings/", views.standings_entry, name="standings"),
    path("events/<int:event_id>/preview/", views.preview, name="preview"),
    path("events/<int:event_id>/submit/", views.submit, name="submit"),
]
