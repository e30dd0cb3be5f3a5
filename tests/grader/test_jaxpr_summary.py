"""A jaxpr summary from the sandbox is read field by field: a malformed one is the submission's error."""

import pytest

from grader.jaxpr_summary import JaxprSummary
from grader.submission_exceptions import RaisedBySubmission


@pytest.mark.parametrize(
    "flow",
    [
        None,
        {"inputs": [0], "outputs": [0]},
        {"inputs": ["0"], "outputs": [0], "equations": []},
        {"inputs": [0], "outputs": [0], "equations": [{"primitive": "jit", "inputs": [0], "outputs": [1]}]},
        {
            "inputs": [0],
            "outputs": [1],
            "equations": [
                {
                    "primitive": "device_put",
                    "inputs": [0],
                    "outputs": [1],
                    "shardings": [{"mesh": [["d", 4, "extra"]], "spec": [["d"]]}],
                    "inner": [],
                }
            ],
        },
        {"inputs": [0], "outputs": [True], "equations": []},
        {"inputs": [0], "outputs": [-2], "equations": []},
        {
            "inputs": [0],
            "outputs": [0],
            "equations": [{"primitive": "x" * 65, "inputs": [0], "outputs": [0], "shardings": [], "inner": []}],
        },
    ],
)
def test_a_malformed_flow_is_the_submission_s_error(flow):
    raw = {"primitives": [], "all_primitives": [], "equations": 0, "text": "", "flow": flow}
    with pytest.raises(RuntimeError, match="malformed jaxpr summary") as error:
        JaxprSummary.from_wire(raw)
    assert isinstance(error.value, RaisedBySubmission)
