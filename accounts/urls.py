from django.urls import path

from accounts import views

app_name = "accounts"

urlpatterns = [
    path("", views.account, name="account"),
    path("login/", views.SignInView.as_view(), name="login"),
]
