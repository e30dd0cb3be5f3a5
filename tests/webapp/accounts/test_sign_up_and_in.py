import pytest
from django.contrib.auth.models import User
from django.urls import reverse

pytestmark = pytest.mark.django_db


@pytest.mark.slow
def test_sign_up_signs_the_new_user_in(client):
    response = client.post(
        reverse("signup"),
        {"username": "grace", "password1": "compile-ahead-1", "password2": "compile-ahead-1"},
    )
    assert response.status_code == 302
    assert User.objects.filter(username="grace").exists()
    assert "grace" in client.get(reverse("catalog:list")).content.decode()


def test_sign_in_and_out(client):
    User.objects.create_user("alan", password="turing-machine-9")
    response = client.post(reverse("login"), {"username": "alan", "password": "turing-machine-9"})
    assert response.status_code == 302
    assert client.post(reverse("logout")).status_code == 302
    assert "Sign in" in client.get(reverse("catalog:list")).content.decode()


def test_a_weak_password_is_refused_with_a_reason(client):
    response = client.post(reverse("signup"), {"username": "bob", "password1": "123", "password2": "123"})
    assert response.status_code == 200
    assert "too short" in response.content.decode()


def test_sign_up_goes_on_to_a_page_of_this_site_it_was_sent_from_never_another_site(client):
    """An emailed invitation sends a person without an account to sign up, then back to its link."""
    back = "/courses/join/invited/some-token/"
    form = client.get(reverse("signup") + f"?next={back}").content.decode()
    assert f'name="next" value="{back}"' in form
    fields = {"password1": "compile-ahead-1", "password2": "compile-ahead-1", "next": back}
    assert client.post(reverse("signup"), {"username": "grace", **fields})["Location"] == back
    client.post(reverse("logout"))
    elsewhere = client.post(reverse("signup"), {"username": "alan", **fields, "next": "https://evil.example/"})
    assert elsewhere["Location"] == reverse("catalog:list")
