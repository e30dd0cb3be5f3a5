"""What runs inside a sandbox, and nowhere else: the runtime that serves the harness's requests
on a submission, the notebook's kernel and the runner that drives it, the fork server's side.

No module of the host imports this package (a lint contract says so): the host and the
sandbox share only the wire's vocabulary (``sandbox.protocol``, ``sandbox.wire_values``,
``sandbox.cell_outputs``) and ``sandbox.stages``, which both sides compute alike. Everything
here runs beside the student's code and is as untrusted as it is.
"""
