"""The verdicts' vocabulary: which one speaks for several failures, and how a student reads each."""

from grader.verdicts import VERDICT_PRECEDENCE, Verdict, worst


def test_every_verdict_reads_as_words_and_the_machine_value_is_kept():
    assert Verdict.WRONG_ANSWER.label == "Wrong answer"
    assert Verdict.TIME_LIMIT_EXCEEDED.label == "Time limit exceeded"
    assert Verdict("wrong_answer") is Verdict.WRONG_ANSWER and str(Verdict.WRONG_ANSWER) == "wrong_answer"
    labels = [verdict.label for verdict in Verdict]
    assert len(set(labels)) == len(labels) and all("_" not in label for label in labels)


def test_a_limit_speaks_for_the_failures_it_caused():
    assert worst(set()) is Verdict.ACCEPTED
    assert worst({Verdict.WRONG_ANSWER, Verdict.TIME_LIMIT_EXCEEDED}) is Verdict.TIME_LIMIT_EXCEEDED
    assert worst({Verdict.RUNTIME_ERROR, Verdict.INTEGRITY_VIOLATION}) is Verdict.INTEGRITY_VIOLATION
    assert set(VERDICT_PRECEDENCE) == set(Verdict) - {Verdict.ACCEPTED}
