"""The records of JAX's work that come back with each reply: read field by field, never believed
beyond what they can be."""

from grader.call_records import JaxEvents, StageRecord


def test_reported_durations_are_capped_so_sums_stay_finite():
    huge = {"compile_seconds": 1.7e308, "staging_seconds": float("inf"), "seconds": -1.0}
    events = JaxEvents.from_wire(huge)
    assert events == JaxEvents()
    total = sum([JaxEvents.from_wire({"compile_seconds": 1e6})] * 1000, JaxEvents())
    assert total.compile_seconds == 1e9


def test_malformed_stage_records_are_dropped():
    good = {"stage": "call", "id": 3, "source": 2, "signature": [[[2], "float32"]], "inputs": [True], "returned": True}
    bad = [
        {**good, "stage": "forge"},
        {**good, "signature": [[[-1], "float32"]]},
        {**good, "inputs": ["yes"]},
        {**good, "returned": 1},
        {**good, "signature": [[[2], "x" * 40]]},
    ]
    events = JaxEvents.from_wire({"stages": [good, *bad]})
    assert events.stages == (StageRecord("call", 3, 2, (((2,), "float32"),), (True,), True),)
