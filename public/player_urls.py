from django.urls import path

from public import player_views as views
from public.feeds import PlayerFeed

app_name = "players"

urlpatterns = [
    path("players/", views.player_list, name="list"),
    path("suggest/players/", views.player_suggestions, name="suggest"),
    path("players/<str:number>/", views.player_detail, name="detail"),
    path("players/<str:number>/feed/", PlayerFeed(), name="feed"),
    path("players/<str:number>/vs/", views.player_versus_pick, name="versus-pick"),
    path("players/<str:number>/vs/<str:other>/", views.player_versus, name="versus"),
    path("teams/<int:participant_id>/", views.team_detail, name="team"),
]
