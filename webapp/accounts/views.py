from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme

from webapp.accounts.forms import SignUpForm, TimeZoneForm
from webapp.accounts.models import Profile
from webapp.accounts.requests import SignedInRequest


def safe_next(request: HttpRequest) -> str:
    """Where to go after signing up: ``next`` if it is a page of this site (an emailed
    invitation's link, say), never another site's address."""
    wanted = request.POST.get("next") or request.GET.get("next") or ""
    allowed = url_has_allowed_host_and_scheme(
        wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return wanted if allowed else ""


def signup(request: HttpRequest) -> HttpResponse:
    form = SignUpForm(request.POST or None)
    next_page = safe_next(request)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user)
        return redirect(next_page or "catalog:list")
    return render(request, "registration/signup.html", {"form": form, "next": next_page})


@login_required
def account(request: SignedInRequest) -> HttpResponse:
    """One's own settings: the time zone every time on the site is in (and the password's link)."""
    current = Profile.time_zone_of(request.user)
    form = TimeZoneForm(request.POST or None, current=current)
    if request.method == "POST" and form.is_valid():
        Profile.set_time_zone(request.user, form.cleaned_data["time_zone"])
        messages.success(request, f"Times are now shown in {form.cleaned_data['time_zone']}.")
        return redirect("account")  # the next page is read in the new zone
    chosen = Profile.objects.filter(user_id=request.user.pk).exists()
    return render(request, "registration/account.html", {"form": form, "current": current, "chosen": chosen})
