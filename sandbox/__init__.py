"""Running untrusted submissions: backends, the channel protocol and the in-sandbox runtime.

This package imports neither Django nor the grader. The in-sandbox runtime
(`sandbox.runtime`) and the protocol (`sandbox.protocol`) are mounted read-only into
every sandbox, so they depend on the standard library and numpy only.
"""
