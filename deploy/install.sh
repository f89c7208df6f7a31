#!/bin/sh
# Install Sudija for a club: a virtual environment at VENV with the bot and exactly the versions it was tested
# with (requirements.lock), its C extension built by pip with this machine's compiler. The README's install and
# the image (Dockerfile) both run this script, so the two cannot drift.
#
#   deploy/install.sh VENV           e.g. deploy/install.sh /srv/sudija/.venv   (PYTHON=python3.12 to choose)
#
# Run it again after updating the sources (an upgrade: docs/deploy.md); it reinstalls within the lock file.
set -eu
VENV=${1:?usage: deploy/install.sh VENV}
PYTHON=${PYTHON:-python3}
cd "$(dirname "$0")/.."
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-cache-dir --upgrade pip
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-cache-dir -c requirements.lock .
"$VENV/bin/sudija" --version
