"""Reports the site wrote itself (a cancellation, a platform failure) take the grader's report
shape, with its schema and an empty verdict, as the site now writes them: ``report`` holds one
shape. Written out here rather than imported, so that this migration stays as it is."""

from django.db import migrations

# The grader's report keys (schema 2), for a grading that ended with no verdict.
SCHEMA = 2
EMPTY: dict[str, object] = {
    "verdict": "",
    "score": None,
    "max_score": None,
    "duration_s": 0.0,
    "output": "",
    "hidden_output": "",
    "sandbox": {},
    "insight": {},
}


def in_one_shape(apps, schema_editor):
    submission_model = apps.get_model("submissions", "Submission")
    for submission in submission_model.objects.exclude(report=None).select_related("problem").iterator():
        report = submission.report
        if not isinstance(report, dict) or "schema" in report:
            continue
        submission.report = {
            "schema": SCHEMA,
            "problem": submission.problem.slug,
            **EMPTY,
            "message": str(report.get("message", "")),
            "tests": report.get("tests") if isinstance(report.get("tests"), list) else [],
        }
        submission.save(update_fields=["report"])


class Migration(migrations.Migration):
    dependencies = [("submissions", "0009_submission_handed_in_at")]

    operations = [migrations.RunPython(in_one_shape, migrations.RunPython.noop)]
