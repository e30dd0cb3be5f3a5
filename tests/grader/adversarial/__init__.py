"""The adversarial suite: hostile submissions, the verdict each must get, and proof of no leak.

Most cases answer the canary problem (``canary.py``), whose secret lives in three places a
submission might look for it: the hidden tests, the reference solution and the expected value
the harness computes. A submission passes only by returning the secret, so any leak shows up
as ``accepted``. After every hostile submission the same harness grades a correct one, to show
that nothing the hostile one did survived it or harmed the worker. The other cases answer real
problems with forged JAX paths (``test_forged_jax_paths.py``).
"""
