from django.urls import path

from public import official_views
from public import ranking_views as views
from public.feeds import RankingFeed

app_name = "ratings"

urlpatterns = [
    path("rankings/", views.ranking_index, name="index"),
    path("rankings/<slug:slug>/", views.ranking_detail, name="detail"),
    path("rankings/<slug:slug>/feed/", RankingFeed(), name="feed"),
    path("rankings/<slug:slug>/history.csv.gz", views.history_download, name="history-download"),
    path("rankings/<slug:slug>/official/", official_views.official_archive, name="official"),
    path("rankings/<slug:slug>/official/<str:as_of>/", official_views.official_detail, name="official-list"),
]
