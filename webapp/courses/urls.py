from django.urls import path

from webapp.courses import setup, views

app_name = "courses"
urlpatterns = [
    path("", views.course_list, name="list"),
    path("new/", setup.course_create, name="create"),  # before a course's own: "new" is no course's slug
    path("join/<str:code>/", views.join, name="join"),
    # An emailed invitation's link (two parts after join/: never a course's invite code).
    path("join/invited/<str:token>/", views.invitation, name="invitation"),
    path("<slug:slug>/", views.course_detail, name="detail"),
    # Setting the course up (webapp/courses/setup.py); "edit" is no assignment's slug.
    path("<slug:slug>/edit/", setup.course_edit, name="edit"),
    path("<slug:slug>/assignments/new/", setup.assignment_create, name="assignment_create"),
    path("<slug:slug>/students/<str:username>/extension/", setup.extension, name="extension"),
    path("<slug:slug>/students/<str:username>/override/", setup.override, name="override"),
    path("<slug:slug>/regrade/confirm/", setup.regrade_confirm, name="regrade_confirm"),
    path("<slug:slug>/gradebook/", views.gradebook, name="gradebook"),
    path("<slug:slug>/gradebook/statistics/", views.problem_statistics, name="statistics"),
    path("<slug:slug>/roster/", views.roster, name="roster"),
    path("<slug:slug>/roster/uploads/<int:pk>/", views.roster_upload, name="roster_upload"),
    path("<slug:slug>/roster/uploads/<int:pk>/resume/", views.roster_upload_resume, name="roster_upload_resume"),
    path("<slug:slug>/roster/invitations/<int:pk>/resend/", views.invitation_resend, name="invitation_resend"),
    path("<slug:slug>/roster/members/<str:username>/role/", views.member_role, name="member_role"),
    path("<slug:slug>/regrade/", views.regrade, name="regrade"),
    path("<slug:slug>/regrades/<int:pk>/", views.regrade_progress, name="regrade_progress"),
    path("<slug:slug>/submissions/<int:pk>/", views.submission_detail, name="submission"),
    path("<slug:slug>/<slug:assignment>/", views.assignment_detail, name="assignment"),
    path("<slug:slug>/<slug:assignment>/edit/", setup.assignment_edit, name="assignment_edit"),
]
