from django.urls import path

from corrections import claim_views, views
from corrections.feeds import CorrectionLogFeed

app_name = "corrections"

urlpatterns = [
    path("corrections/", views.correction_log, name="log"),
    path("corrections/feed/", CorrectionLogFeed(), name="feed"),
    path("corrections/<int:correction_id>/", views.correction_detail, name="detail"),
    path("corrections/matches/<int:match_id>/correct/", views.match_correct, name="match_correct"),
    path("corrections/matches/<int:match_id>/remove/", views.match_remove, name="match_remove"),
    path("corrections/events/<int:event_id>/add-match/", views.match_add, name="match_add"),
    path("appeals/", views.my_appeals, name="my_appeals"),
    path("appeals/new/<int:match_id>/", views.appeal_new, name="appeal_new"),
    path("appeals/queue/", views.appeal_queue, name="appeal_queue"),
    path("appeals/<int:appeal_id>/review/", views.appeal_review, name="appeal_review"),
    path("appeals/details/", views.my_details, name="my_details"),
    path("claims/queue/", claim_views.claim_queue, name="claim_queue"),
    path("claims/merge/", claim_views.player_merge, name="player_merge"),
    path("claims/details/<int:request_id>/decide/", claim_views.detail_decide, name="detail_decide"),
    path("claims/<int:claim_id>/decide/", claim_views.claim_decide, name="claim_decide"),
]
