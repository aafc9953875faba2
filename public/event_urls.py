from django.urls import path

from public import event_views

app_name = "events"

urlpatterns = [
    path("events/", event_views.event_list, name="list"),
    path("events/<int:event_id>/", event_views.event_detail, name="detail"),
]
