"""The grading secret and the seeds it gives each submission's examples."""

import pytest

from grader import seeding
from grader.seeding import GradingSecretError, example_seed, grading_secret


def test_the_secret_comes_from_the_environment_or_a_file(monkeypatch, tmp_path):
    monkeypatch.setenv("JAXJUDGE_GRADING_SECRET", "from-the-environment")
    assert grading_secret() == b"from-the-environment"
    (tmp_path / "secret").write_text("from-a-file-of-the-deployment\n")
    monkeypatch.setenv("JAXJUDGE_GRADING_SECRET_FILE", str(tmp_path / "secret"))
    assert grading_secret() == b"from-a-file-of-the-deployment"


def test_a_bad_secret_is_refused_naming_the_setting(monkeypatch, tmp_path):
    monkeypatch.setenv("JAXJUDGE_GRADING_SECRET", "short")
    with pytest.raises(GradingSecretError, match=r"JAXJUDGE_GRADING_SECRET: .* at least 16"):
        grading_secret()
    monkeypatch.setenv("JAXJUDGE_GRADING_SECRET_FILE", str(tmp_path / "missing"))
    with pytest.raises(GradingSecretError, match="JAXJUDGE_GRADING_SECRET_FILE: cannot read"):
        grading_secret()


def test_without_configuration_one_secret_is_made_once(monkeypatch, tmp_path):
    monkeypatch.delenv("JAXJUDGE_GRADING_SECRET", raising=False)
    monkeypatch.setattr(seeding, "LOCAL_SECRET", tmp_path / ".cache" / "grading_secret")
    first = grading_secret()
    assert len(first) >= 32 and grading_secret() == first
    assert (tmp_path / ".cache" / "grading_secret").stat().st_mode & 0o777 == 0o600


def test_seeds_depend_on_every_input():
    seed = example_seed(b"secret-one-xxxxxxxx", "p", "code", "test_a")
    assert seed == example_seed(b"secret-one-xxxxxxxx", "p", "code", "test_a")
    for other in [
        example_seed(b"secret-two-xxxxxxxx", "p", "code", "test_a"),
        example_seed(b"secret-one-xxxxxxxx", "q", "code", "test_a"),
        example_seed(b"secret-one-xxxxxxxx", "p", "code ", "test_a"),
        example_seed(b"secret-one-xxxxxxxx", "p", "code", "test_b"),
    ]:
        assert other != seed
