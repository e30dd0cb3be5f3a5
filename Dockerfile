# The jaxjudge image: the web app, the grading workers and their bubblewrap sandboxes.
#   docker-compose build                          (base: python:3.11-slim from a registry)
#   BASE_IMAGE=jaxjudge-base:bookworm docker-compose build   (base: deploy/base-image.sh)
# Python packages come only from the pin files, installed from wheels: those in deploy/wheels
# when `make images` has built them there (no registry needed inside the build), otherwise
# built here from the package registry.
ARG BASE_IMAGE=python:3.11-slim

FROM ${BASE_IMAGE} AS packages
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
COPY requirements.txt /src/requirements.txt
COPY deploy/wheels/ /wheels/
RUN if ls /wheels/*.whl >/dev/null 2>&1; then echo "wheels from the build context"; \
    else python -m pip wheel --no-deps --wheel-dir /wheels -r /src/requirements.txt; fi \
    && python -m venv /opt/venv \
    && /opt/venv/bin/pip install --no-index --find-links /wheels --no-deps -r /src/requirements.txt

FROM ${BASE_IMAGE}
# The sandbox (bubblewrap, prlimit, setpriv) and an init that reaps what sandboxes leave
# behind; the local base has them already.
RUN if ! command -v bwrap >/dev/null || ! command -v setpriv >/dev/null || ! command -v tini >/dev/null; then \
        apt-get update && apt-get install -y --no-install-recommends bubblewrap util-linux tini \
        && rm -rf /var/lib/apt/lists/*; \
    fi
# The same base in both stages: the environment works where it was made.
COPY --from=packages /opt/venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH PYTHONUNBUFFERED=1 DJANGO_SETTINGS_MODULE=webapp.settings \
    JAX_PLATFORMS=cpu
WORKDIR /opt/jaxjudge
COPY manage.py pyproject.toml ./
COPY grader grader
COPY sandbox sandbox
COPY problems problems
COPY solutions solutions
COPY webapp webapp
COPY deploy/entrypoint.sh /usr/local/bin/jaxjudge-entrypoint
# Static files collected once here (hashed names, gzip and brotli: webapp/static_files.py),
# with a key for this command alone, so that no secret is left in the image.
RUN JAXJUDGE_SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput --verbosity 0
# Byte-compiled once here, since the code is read-only for the processes that run it.
RUN python -m compileall -q grader sandbox webapp && mkdir -p .cache && chmod 1777 .cache
EXPOSE 8000
ENTRYPOINT ["tini", "--", "jaxjudge-entrypoint"]
CMD ["web"]
