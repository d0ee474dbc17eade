"""RR407: a curl readiness loop without --fail."""
import pytest

from rules import run
from rules.scripts.checks import health_check_without_fail as rule
from tests.rules.scripts_helpers import repo

P = "benchmarks/multi_node/x/wait_server.sh"


@pytest.mark.parametrize(
    "loop,hits",
    [
        ("until curl -s -o /dev/null http://localhost:$PORT/health; do sleep 5; done", 1),
        (
            'while true; do\n  code=$(curl -s -o /dev/null -w "%{http_code}" "http://h:8000/v1/models")\n'
            '  sleep 1\ndone',
            1,
        ),
        ("until curl -sf http://localhost:$PORT/health; do sleep 5; done", 0),
        ("until curl --fail -s http://localhost:$PORT/health; do sleep 5; done", 0),
        ("curl -s http://localhost:$PORT/health", 0),
        ("until curl -s http://localhost:$PORT/metrics; do sleep 5; done", 0),
        (
            'until [[ "$(curl -s -o /dev/null -w \'%{http_code}\' http://h:8000/health)" == "200" ]]; do sleep 5; done',
            0,
        ),
    ],
    ids=[
        "until without fail",
        "status code in while",
        "-sf",
        "--fail",
        "not in a loop",
        "not a health URL",
        "status code compared with 200",
    ],
)
def test_loops(loop, hits):
    r = run(repo({P: "#!/bin/bash\n" + loop + "\n"}), rules=[rule])
    assert len(r.findings) == hits and all(not f.blocking for f in r.findings)


def test_negated_and_substituted_conditions():
    loop = ('while ! curl -s -o /dev/null -w "%{http_code}" "http://${h}:${p}/health" > /dev/null 2>&1; do\n'
            '  sleep 10\ndone')
    r = run(repo({P: "#!/bin/bash\n" + loop + "\n"}), rules=[rule])
    assert [f.line for f in r.findings] == [2], loop  # the status code goes to /dev/null: any answer ends it
    compared = 'while [ "$(curl -s -o /dev/null -w "%{http_code}" http://h:1/health)" != 200 ]; do sleep 1; done'
    assert run(repo({P: "#!/bin/bash\n" + compared + "\n"}), rules=[rule]).findings == []  # only 200 ends it
