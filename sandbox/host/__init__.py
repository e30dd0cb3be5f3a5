"""The host's side of a sandbox: backends that start one, the session and pool that keep it.

Nothing here is imported inside a sandbox, and nothing here imports ``sandbox.inside``: the two
sides meet only on the wire (``sandbox.protocol``, ``sandbox.wire_values``,
``sandbox.cell_outputs``, ``sandbox.stages``).
"""
