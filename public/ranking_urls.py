from django.urls import path

from public import ranking_views as views

app_name = "ratings"

urlpatterns = [
    path("rankings/", views.ranking_index, name="index"),
    path("rankings/<slug:slug>/", views.ranking_detail, name="detail"),
]
