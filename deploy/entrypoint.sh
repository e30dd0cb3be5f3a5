#!/bin/sh
# The jaxjudge container's commands:
#   web                 gunicorn on :8000 (static files by whitenoise)
#   worker [ARGS]       a grading worker (manage.py worker ARGS, e.g. --queue gpu)
#   courses-worker      a course's background work: rosters, LTI syncs and score sends
#   setup               migrations, then the catalog from problems/ (run once per start)
#   anything else       run as given (manage.py shell, say)
set -eu

case "${1:-web}" in
web)
    shift 2>/dev/null || true
    exec gunicorn webapp.wsgi:application --bind 0.0.0.0:8000 \
        --workers "${JAXJUDGE_WEB_PROCESSES:-2}" --threads 2 --worker-class gthread \
        --access-logfile - "$@"
    ;;
worker)
    shift
    # bubblewrap mounts a fresh /proc for each sandbox, which the kernel allows in a user
    # namespace only if a fully visible /proc is mounted somewhere already; docker masks parts
    # of the container's. So one is mounted here, with CAP_SYS_ADMIN, which is then dropped
    # from the bounding set: the worker and its sandboxes never hold it.
    if ! mountpoint -q /run/jaxjudge-proc 2>/dev/null; then
        mkdir -p /run/jaxjudge-proc
        mount -t proc -o nosuid,nodev,noexec proc /run/jaxjudge-proc
    fi
    exec setpriv --bounding-set -sys_admin --inh-caps -sys_admin python manage.py worker "$@"
    ;;
courses-worker)
    exec python manage.py db_worker --queue-name courses
    ;;
setup)
    python manage.py migrate --noinput
    exec python manage.py syncproblems
    ;;
*)
    exec "$@"
    ;;
esac
