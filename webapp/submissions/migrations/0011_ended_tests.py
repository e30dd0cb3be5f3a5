"""``Submission.progress`` is ``ended_tests``: "progress" is a student's standing (``Progress``)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("submissions", "0010_reports_in_one_shape")]

    operations = [migrations.RenameField(model_name="submission", old_name="progress", new_name="ended_tests")]
