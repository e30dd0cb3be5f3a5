#!/bin/sh
# A base image made from Debian's packages alone, for machines that reach the package
# registries but no image registry:
#   sudo deploy/base-image.sh [TAG]       (default jaxjudge-base:bookworm)
#   BASE_IMAGE=jaxjudge-base:bookworm docker-compose build
# It holds what python:3.11-slim holds for this project (Debian 12's Python 3.11 with venv
# and pip), plus bubblewrap and prlimit, which the grading worker's sandbox needs.
set -eu
TAG=${1:-jaxjudge-base:bookworm}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
PACKAGES=python3,python3-venv,python3-pip,ca-certificates,bubblewrap,util-linux,tini,curl

command -v debootstrap >/dev/null || { echo "error: install debootstrap (apt-get install debootstrap)" >&2; exit 1; }
ROOTFS=$(mktemp -d /var/tmp/jaxjudge-base.XXXXXX)
trap 'rm -rf "$ROOTFS"' EXIT
debootstrap --variant=minbase --include="$PACKAGES" bookworm "$ROOTFS" "$MIRROR"
# python:3.11-slim's names, so the Dockerfile reads the same on either base.
ln -sf /usr/bin/python3 "$ROOTFS/usr/local/bin/python"
# A smaller image: no package lists, caches or documentation.
chroot "$ROOTFS" apt-get clean
rm -rf "$ROOTFS"/var/lib/apt/lists/* "$ROOTFS"/usr/share/doc/* "$ROOTFS"/usr/share/man/*
tar --numeric-owner -C "$ROOTFS" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8' \
    --change 'CMD ["python3"]' - "$TAG"
echo "built $TAG"
