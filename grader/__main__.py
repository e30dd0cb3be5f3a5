import os
import sys

from grader.cli import main

code = main()
# Leave without the interpreter's teardown: with JAX loaded it takes about half a second
# and has nothing left to do (every report file is written and closed by now).
sys.stdout.flush()
sys.stderr.flush()
os._exit(code)
