from django.urls import path

from webapp.courses import views

app_name = "courses"
urlpatterns = [
    path("", views.course_list, name="list"),
    path("join/<str:code>/", views.join, name="join"),
    # An emailed invitation's link (two parts after join/: never a course's invite code).
    path("join/invited/<str:token>/", views.invitation, name="invitation"),
    path("<slug:slug>/", views.course_detail, name="detail"),
    path("<slug:slug>/gradebook/", views.gradebook, name="gradebook"),
    path("<slug:slug>/roster/", views.roster, name="roster"),
    path("<slug:slug>/roster/uploads/<int:pk>/", views.roster_upload, name="roster_upload"),
    path("<slug:slug>/roster/uploads/<int:pk>/resume/", views.roster_upload_resume, name="roster_upload_resume"),
    path("<slug:slug>/roster/invitations/<int:pk>/resend/", views.invitation_resend, name="invitation_resend"),
    path("<slug:slug>/regrade/", views.regrade, name="regrade"),
    path("<slug:slug>/regrades/<int:pk>/", views.regrade_progress, name="regrade_progress"),
    path("<slug:slug>/submissions/<int:pk>/", views.submission_detail, name="submission"),
    path("<slug:slug>/<slug:assignment>/", views.assignment_detail, name="assignment"),
]
