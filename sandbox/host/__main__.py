"""``python -m sandbox.host selftest [--backend NAME]``."""

import argparse
import sys

from sandbox.host.backends import BACKENDS, BackendUnavailable, get_backend
from sandbox.host.selftest import selftest


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m sandbox.host", description="jaxjudge's sandbox")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("selftest", help="check that a backend runs programs and refuses forbidden acts")
    check.add_argument("--backend", choices=sorted(BACKENDS), default="bwrap")
    args = parser.parse_args()
    try:
        backend = get_backend(args.backend)
    except BackendUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0 if selftest(backend) else 1


sys.exit(main())
